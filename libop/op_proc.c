/* /proc/PID/stat, read in one place. */
#include "config.h"
#include "op_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int op_proc_state(pid_t pid)
{
	char path[64], buf[512];
	const char *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? (int)n : -EIO;
	buf[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold anything, so the last ')' */
	paren = strrchr(buf, ')');
	if (!paren || paren[1] != ' ' || !paren[2])
		return 0;
	return (unsigned char)paren[2];
}
