/* The client side of the control protocol (op_ctl.h): one request per
 * connection, the reply read until the daemon closes. It lives in libop so
 * opcontrol and the tests talk to oprofiled the same way. */
#include "config.h"
#include "op_ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for fd to be ready for events before deadline (-1: none). Returns
 * 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = events };
		int timeout = -1;
		int ret;

		if (deadline >= 0) {
			int64_t left = deadline - now_ms();

			if (left <= 0)
				return -ETIMEDOUT;
			timeout = left > INT32_MAX ? INT32_MAX : (int)left;
		}
		ret = poll(&pfd, 1, timeout);
		if (ret > 0)
			return 0;
		if (ret == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static int send_all(int fd, const char *buf, size_t len, int64_t deadline)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0) {
			int ret;

			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return -errno;
			ret = wait_fd(fd, POLLOUT, deadline);
			if (ret)
				return ret;
			continue;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The whole reply may hold many status lines; a reply is bounded by a
 * generous multiple of the line limit. */
#define OP_CTL_REPLY_MAX (64 * OP_CTL_LINE_MAX)

int op_ctl_request(const struct op_sessdir *sd, const char *socket_path,
		   const char *cmd, int timeout_ms, char **reply)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	size_t cmd_len = strlen(cmd);
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, ret;

	*reply = NULL;
	if (cmd_len == 0 || cmd_len >= OP_CTL_LINE_MAX || strchr(cmd, '\n'))
		return -EINVAL;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	ret = op_sd_connect(sd, socket_path, fd);
	if (ret < 0) {
		if (ret == -EAGAIN || ret == -EINPROGRESS) {
			/* listen backlog full: wait for the daemon to accept */
			ret = wait_fd(fd, POLLOUT, deadline);
			if (!ret) {
				int soerr = 0;
				socklen_t sl = sizeof(soerr);

				getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
				ret = -soerr;
			}
		}
		if (ret)
			goto err_fd;
	}

	ret = send_all(fd, cmd, cmd_len, deadline);
	if (!ret)
		ret = send_all(fd, "\n", 1, deadline);
	if (ret)
		goto err_fd;

	for (;;) {
		ssize_t n;

		if (cap - len < 1024 + 1) {
			size_t ncap = cap ? cap * 2 : 4096;
			char *nbuf;

			if (ncap > OP_CTL_REPLY_MAX + 1024 + 1)
				ncap = OP_CTL_REPLY_MAX + 1024 + 1;
			nbuf = realloc(buf, ncap);
			if (!nbuf) {
				ret = -ENOMEM;
				goto err_buf;
			}
			buf = nbuf;
			cap = ncap;
		}
		n = recv(fd, buf + len, cap - len - 1, 0);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				ret = -errno;
				goto err_buf;
			}
			ret = wait_fd(fd, POLLIN, deadline);
			if (ret)
				goto err_buf;
			continue;
		}
		len += (size_t)n;
		if (len > OP_CTL_REPLY_MAX) {
			ret = -EPROTO;
			goto err_buf;
		}
	}
	if (!buf) {
		buf = malloc(1);
		if (!buf) {
			ret = -ENOMEM;
			goto err_fd;
		}
	}
	buf[len] = '\0';
	close(fd);
	*reply = buf;
	return 0;

err_buf:
	free(buf);
err_fd:
	close(fd);
	return ret;
}
