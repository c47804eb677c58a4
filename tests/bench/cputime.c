/* cputime -o FILE CMD [ARG...]: run CMD and write the user and system CPU
 * seconds it and its waited-for children used to FILE, as "USER SYS" with
 * microsecond precision. time(1) prints hundredths, which at the profilers'
 * cost per sample (a few seconds' worth of samples cost them tens of
 * milliseconds) is the size of the figure itself. Exits with CMD's status.
 * A benchmark helper, not installed. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static double seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	const char *out;
	FILE *f;
	pid_t pid;
	int status;

	if (argc < 4 || strcmp(argv[1], "-o")) {
		fprintf(stderr, "usage: cputime -o FILE CMD [ARG...]\n");
		return 2;
	}
	out = argv[2];
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "cputime: fork failed: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		fprintf(stderr, "cputime: cannot run %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	/* a signal meant for the command (SIGINT to stop perf) is its alone */
	signal(SIGINT, SIG_IGN);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "cputime: wait failed: %s\n", strerror(errno));
			return 2;
		}
	}
	f = fopen(out, "we");
	if (!f) {
		fprintf(stderr, "cputime: cannot write %s: %s\n", out, strerror(errno));
		return 2;
	}
	fprintf(f, "%.6f %.6f\n", seconds(ru.ru_utime), seconds(ru.ru_stime));
	if (fclose(f)) {
		fprintf(stderr, "cputime: cannot write %s: %s\n", out, strerror(errno));
		return 2;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
