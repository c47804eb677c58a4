/* oprofiled as a process: inherited descriptors closed, daemonised, its
 * stdio detached (opd_proc.h). */
#include "config.h"
#include "opd_proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool kept(int fd, const int *keep, size_t nr_keep)
{
	for (size_t i = 0; i < nr_keep; i++)
		if (keep[i] == fd)
			return true;
	return false;
}

/* close_range(2) of [first, last]; -ENOSYS where the kernel (or the
 * headers) have none */
static int close_span(unsigned int first, unsigned int last)
{
#ifdef SYS_close_range
	if (first > last)
		return 0;
	if (syscall(SYS_close_range, first, last, 0) == 0)
		return 0;
	return -errno;
#else
	(void)first;
	(void)last;
	return -ENOSYS;
#endif
}

static int by_value(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The kept descriptors in order, and the spans between them closed. */
static int close_by_range(const int *keep, size_t nr_keep)
{
	int sorted[OPD_KEEP_FDS_MAX];
	unsigned int first = 3;
	int ret;

	memcpy(sorted, keep, nr_keep * sizeof(*keep));
	qsort(sorted, nr_keep, sizeof(*sorted), by_value);
	for (size_t i = 0; i < nr_keep; i++) {
		if (sorted[i] < (int)first)
			continue;
		ret = close_span(first, (unsigned int)sorted[i] - 1);
		if (ret)
			return ret;
		first = (unsigned int)sorted[i] + 1;
	}
	return close_span(first, ~0U);
}

/* Each descriptor /proc/self/fd lists; -errno when it cannot be read. */
static int close_listed(const int *keep, size_t nr_keep)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int fds[256], self, ret = 0;
	size_t n;

	if (!d)
		return -errno;
	self = dirfd(d);
	/* closing while reading could skip entries: gather, close, again
	 * until a pass finds nothing */
	do {
		n = 0;
		rewinddir(d);
		while (n < sizeof(fds) / sizeof(fds[0]) && (de = readdir(d))) {
			char *end;
			long fd = strtol(de->d_name, &end, 10);

			if (*end || end == de->d_name || fd < 3 || fd > INT_MAX ||
			    fd == self || kept((int)fd, keep, nr_keep))
				continue;
			fds[n++] = (int)fd;
		}
		for (size_t i = 0; i < n; i++)
			if (close(fds[i]) && errno != EINTR)
				ret = -errno;
	} while (n && !ret);
	closedir(d);
	return ret;
}

/* Without /proc: every descriptor up to the limit. */
static void close_up_to_limit(const int *keep, size_t nr_keep)
{
	struct rlimit rl;
	long max = sysconf(_SC_OPEN_MAX);

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (long)rl.rlim_cur > max)
		max = (long)rl.rlim_cur;
	if (max <= 0 || max > (1L << 20))
		max = 1L << 20;
	for (long fd = 3; fd < max; fd++)
		if (!kept((int)fd, keep, nr_keep))
			close((int)fd);
}

int opd_close_inherited(const int *keep, size_t nr_keep, unsigned int flags)
{
	int ret = -ENOSYS;

	if (nr_keep > OPD_KEEP_FDS_MAX)
		return -E2BIG;
	if (!(flags & OPD_CLOSE_NO_RANGE))
		ret = close_by_range(keep, nr_keep);
	if (ret != -ENOSYS && ret != -EINVAL)
		return ret;
	ret = close_listed(keep, nr_keep);
	if (ret == -ENOENT || ret == -EACCES || ret == -EMFILE) {
		close_up_to_limit(keep, nr_keep);
		ret = 0;
	}
	return ret;
}

int opd_keep_fds_parse(const char *list, int *fds)
{
	const char *p = list;
	size_t n = 0;

	if (!*p)
		return -EINVAL;
	for (;;) {
		char *end;
		long fd;

		errno = 0;
		fd = strtol(p, &end, 10);
		if (errno || end == p || fd < 3 || fd > INT_MAX || n == OPD_KEEP_FDS_MAX ||
		    (*end && *end != ','))
			return -EINVAL;
		fds[n++] = (int)fd;
		if (!*end)
			return (int)n;
		p = end + 1;
	}
}

int opd_daemonise(void)
{
	int fds[2];
	pid_t child;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		perror("oprofiled: pipe");
		exit(1);
	}
	child = fork();
	if (child < 0) {
		perror("oprofiled: fork");
		exit(1);
	}
	if (child > 0) {
		char msg[1024];
		size_t got = 0;
		ssize_t n;

		close(fds[1]);
		while (got < sizeof(msg) - 1 &&
		       ((n = read(fds[0], msg + got, sizeof(msg) - 1 - got)) > 0 ||
			(n < 0 && errno == EINTR)))
			got += n > 0 ? (size_t)n : 0;
		msg[got] = '\0';
		if (!strcmp(msg, "ok\n"))
			exit(0);
		if (!got)
			fputs("oprofiled: the daemon died during start-up\n", stderr);
		else
			fprintf(stderr, "oprofiled: %s", msg);
		exit(1);
	}
	close(fds[0]);
	setsid();
	return fds[1];
}

void opd_detach_stdio(int log_fd)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(log_fd >= 0 ? log_fd : fd, STDERR_FILENO);
	close(fd);
}
