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

/* How long a workload runs: SECONDS of its thread's CPU time, so that a
 * busy machine makes the run last longer instead of thinning its samples
 * (a profiler samples CPU time, and the tests need enough samples to
 * judge shares); at most WL_WALL_CAP times SECONDS of wall time, so that a
 * starved run still ends. */
#define WL_WALL_CAP 5
struct wl_budget {
	double cpu_end, wall_end;	/* ns */
};

static inline struct wl_budget wl_budget_start(double seconds)
{
	struct wl_budget b = {
		wl_thread_ns() + seconds * 1e9,
		wl_wall_ns() + WL_WALL_CAP * seconds * 1e9,
	};

	return b;
}

static inline int wl_budget_left(const struct wl_budget *b)
{
	return wl_thread_ns() < b->cpu_end && wl_wall_ns() < b->wall_end;
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
