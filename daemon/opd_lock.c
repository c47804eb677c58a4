/* The pid-file lock. link(2) either creates the lock complete or fails
 * with EEXIST, which is what makes two daemons starting at once safe; a
 * stale lock is removed and the link retried. */
#include "config.h"
#include "opd_lock.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "op_proc.h"

pid_t opd_lock_read(const struct op_sessdir *sd, const char *path)
{
	char buf[32];
	ssize_t n;
	long pid;
	char *end;
	int fd = op_sd_open(sd, path, O_RDONLY | O_NONBLOCK, 0);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	errno = 0;
	pid = strtol(buf, &end, 10);
	/* "PID\n" is all a lock holds: anything else is junk */
	if (errno || end == buf || (*end && !isspace((unsigned char)*end)) ||
	    pid <= 0 || pid > INT_MAX)
		return 0;
	return (pid_t)pid;
}

/* Alive and an oprofiled, or an operf (which writes a session in process
 * and takes the same lock)? A pid reused by another program after a crash
 * does not hold the lock. */
bool opd_lock_holder_alive(pid_t pid)
{
	char path[64], comm[64];
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	/* a zombie (killed, not yet reaped) holds nothing */
	if (op_proc_state_exited(op_proc_state(pid)))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;	/* no /proc: trust kill() */
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return true;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, "oprofiled") || !strncmp(comm, "lt-oprofiled", 12) ||
	       !strcmp(comm, "operf");
}

int opd_lock_take(const struct op_sessdir *sd, const char *path, pid_t pid,
		  pid_t *owner)
{
	char tmp[PATH_MAX];
	char buf[32];
	int len, fd, ret = 0;

	*owner = 0;
	if (snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)pid) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	len = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	fd = op_sd_open(sd, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fd;
	if (write(fd, buf, (size_t)len) != len) {
		ret = errno ? -errno : -EIO;
		close(fd);
		goto err_tmp;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		ret = -errno;
		goto err_tmp;
	}

	for (int tries = 0; tries < 5; tries++) {
		struct stat st;
		pid_t other;

		ret = op_sd_link(sd, tmp, path);
		if (ret == 0)
			goto err_tmp;	/* done: remove the temporary name */
		if (ret != -EEXIST)
			goto err_tmp;
		ret = op_sd_stat(sd, path, &st);
		if (!ret && S_ISLNK(st.st_mode))
			ret = -ELOOP;	/* neither read through nor removed */
		if (ret)
			goto err_tmp;
		other = opd_lock_read(sd, path);
		if (other == pid) {
			ret = 0;
			goto err_tmp;
		}
		if (other > 0 && opd_lock_holder_alive(other)) {
			*owner = other;
			ret = -EBUSY;
			goto err_tmp;
		}
		if (other == 0) {
			/* empty or garbage: a daemon killed while writing it
			 * cannot leave this (link is atomic), so it is junk,
			 * unless another one is being linked right now */
			usleep(10000);
			if (opd_lock_read(sd, path) != 0)
				continue;
		}
		ret = op_sd_unlink(sd, path);
		if (ret && ret != -ENOENT)
			goto err_tmp;
	}
	ret = -EBUSY;

err_tmp:
	op_sd_unlink(sd, tmp);
	return ret;
}

void opd_lock_release(const struct op_sessdir *sd, const char *path, pid_t pid)
{
	if (opd_lock_read(sd, path) == pid)
		op_sd_unlink(sd, path);
}
