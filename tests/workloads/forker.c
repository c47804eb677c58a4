/* forker [CHILDREN [BURN_MS]]: forks CHILDREN (1500) short-lived children,
 * at most one per online CPU at a time, each burning about BURN_MS (2) ms of
 * CPU in child_burn() and exiting at once. This is the case where a profiler
 * that resolves addresses after the fact loses the process's mappings.
 *
 * The iteration count for BURN_MS is calibrated in the parent with
 * calib_burn(), the same loop under another name, so the parent's own time
 * is never charged to child_burn. Prints the children's measured CPU time
 * (user and system, from RUSAGE_CHILDREN) so the test knows what to expect.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

uint64_t child_burn(uint64_t n);
uint64_t calib_burn(uint64_t n);

static volatile uint64_t sink;

#define BURN_LOOP(n) do {						\
		uint64_t x = sink | 3;					\
		for (uint64_t i = 0; i < (n); i++)			\
			x = (x ^ (x >> 31)) * 0x9e3779b97f4a7c15ULL + i; \
		return x;						\
	} while (0)

__attribute__((noinline)) uint64_t child_burn(uint64_t n)
{
	BURN_LOOP(n);
}

__attribute__((noinline)) uint64_t calib_burn(uint64_t n)
{
	BURN_LOOP(n);
}

static int reap_one(unsigned long *nr_bad)
{
	int st;

	if (wait(&st) < 0)
		return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		(*nr_bad)++;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long nr_children = (unsigned long)wl_arg(argc, argv, 1, 1500);
	double burn_ms = wl_arg(argc, argv, 2, 2.0);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long running = 0, nr_bad = 0;
	struct rusage ru;
	uint64_t iters = 1u << 16;
	double t0, dt;

	if (ncpu < 1)
		ncpu = 1;
	/* grow until one calibration call takes >= 20 ms, then scale */
	for (;;) {
		t0 = wl_thread_ns();
		sink += calib_burn(iters);
		dt = wl_thread_ns() - t0;
		if (dt >= 20e6)
			break;
		iters *= 2;
	}
	iters = (uint64_t)(iters * burn_ms * 1e6 / dt);

	for (unsigned long i = 0; i < nr_children; i++) {
		pid_t pid;

		if (running >= (unsigned long)ncpu) {
			if (reap_one(&nr_bad) == 0)
				running--;
		}
		pid = fork();
		if (pid < 0) {
			perror("forker: fork");
			return 1;
		}
		if (pid == 0) {
			sink += child_burn(iters);
			_exit(0);
		}
		running++;
	}
	while (running && reap_one(&nr_bad) == 0)
		running--;
	if (getrusage(RUSAGE_CHILDREN, &ru)) {
		perror("forker: getrusage");
		return 1;
	}
	printf("forker: pid %ld children %lu failed %lu iters %llu "
	       "children_user_s %.3f children_sys_s %.3f\n",
	       (long)getpid(), nr_children, nr_bad, (unsigned long long)iters,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return nr_bad ? 1 : 0;
}
