/* Control socket server: one command per connection, answered when done. */
#include "config.h"
#include "opd_ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* A client gets this long to send its line and to take the reply. */
#define OPD_CTL_IO_TIMEOUT_S 5

int opd_ctl_listen(const struct op_sessdir *sd, const char *path)
{
	mode_t old_umask;
	int fd, ret;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	ret = op_sd_unlink(sd, path);
	if (ret && ret != -ENOENT)
		goto err_fd;
	/* created 0600, never briefly open to others: bind makes the
	 * socket file 0777 less the umask, and it is never chmod'ed by
	 * name afterwards */
	old_umask = umask(0177);
	ret = op_sd_bind(sd, path, fd);
	umask(old_umask);
	if (ret < 0)
		goto err_fd;
	if (listen(fd, 16) < 0) {
		ret = -errno;
		goto err_sock;
	}
	return fd;

err_sock:
	op_sd_unlink(sd, path);
err_fd:
	close(fd);
	return ret;
}

int opd_ctl_accept(int listen_fd, char *line, size_t len)
{
	struct timeval tv = { .tv_sec = OPD_CTL_IO_TIMEOUT_S };
	size_t got = 0;
	int conn;

	conn = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (conn < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(conn, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	for (;;) {
		ssize_t n;
		char *nl;

		if (got + 1 >= len) {
			opd_ctl_reply(conn, "error command too long\n");
			return -EPROTO;
		}
		n = recv(conn, line + got, len - 1 - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			opd_ctl_reply(conn, "error no command\n");
			return -EPROTO;
		}
		got += (size_t)n;
		line[got] = '\0';
		nl = memchr(line, '\n', got);
		if (nl) {
			*nl = '\0';
			if (nl > line && nl[-1] == '\r')
				nl[-1] = '\0';
			return conn;
		}
	}
}

void opd_ctl_reply(int conn, const char *reply)
{
	size_t len = strlen(reply);

	while (len) {
		ssize_t n = send(conn, reply, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* the client went away: nothing to do */
		reply += n;
		len -= (size_t)n;
	}
	close(conn);
}
