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

int opd_ctl_listen(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	mode_t old_umask;
	int fd, ret;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (unlink(path) < 0 && errno != ENOENT) {
		ret = -errno;
		goto err_fd;
	}
	/* created owner-only, never briefly open to others */
	old_umask = umask(077);
	ret = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
	umask(old_umask);
	if (ret < 0) {
		ret = -errno;
		goto err_fd;
	}
	if (chmod(path, 0600) < 0 || listen(fd, 16) < 0) {
		ret = -errno;
		goto err_sock;
	}
	return fd;

err_sock:
	unlink(path);
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
