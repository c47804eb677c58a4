/* Helpers shared by the accuracy workloads: CPU and wall clocks, and a
 * command-line number parser that refuses garbage instead of guessing.
 *
 * The workloads measure their own time so the accuracy tests can compare the
 * profiler's figures with the program's, not with a constant. Everything is
 * static inline: each workload is a single small program.
 */
#ifndef WL_H
#define WL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CPU time of the calling thread, in ns (user + system). */
static inline double wl_thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Monotonic wall time, in ns. */
static inline double wl_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* argv[i] as a positive number, or dflt when absent; exits 2 on garbage. */
static inline double wl_arg(int argc, char **argv, int i, double dflt)
{
	char *end;
	double v;

	if (i >= argc)
		return dflt;
	errno = 0;
	v = strtod(argv[i], &end);
	if (errno || end == argv[i] || *end || !(v > 0)) {
		fprintf(stderr, "%s: bad number '%s'\n", argv[0], argv[i]);
		exit(2);
	}
	return v;
}

#endif /* WL_H */
