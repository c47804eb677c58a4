/* percpu [SECONDS]: two threads pinned to CPU 0 and CPU 1, the first running
 * cpu0_work and the second cpu1_work, for the per-CPU separation test. The
 * clock is read between chunks of work, outside the two functions, so their
 * samples are theirs alone. Exits 77 (skip) when CPU 1 does not exist or a
 * thread cannot be pinned.
 * SECONDS is of CPU time, not wall time (wl_budget_start() in wl.h).
 */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wl.h"

uint64_t cpu0_work(uint64_t n);
uint64_t cpu1_work(uint64_t n);

static volatile uint64_t sink;

__attribute__((noinline)) uint64_t cpu0_work(uint64_t n)
{
	uint64_t x = sink | 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 2862933555777941757ULL + 3037000493ULL;
	return x;
}

__attribute__((noinline)) uint64_t cpu1_work(uint64_t n)
{
	uint64_t x = sink | 5;

	for (uint64_t i = 0; i < n; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
	}
	return x;
}

struct worker {
	int cpu;
	uint64_t (*fn)(uint64_t);
	double seconds;
	double cpu_ns;
	int err;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;
	struct wl_budget run;
	double t0;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	w->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (w->err)
		return NULL;
	t0 = wl_thread_ns();
	run = wl_budget_start(w->seconds);
	while (wl_budget_left(&run))
		sink += w->fn(200000);
	w->cpu_ns = wl_thread_ns() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = wl_arg(argc, argv, 1, 4.0);
	struct worker w[2] = {
		{ .cpu = 0, .fn = cpu0_work },
		{ .cpu = 1, .fn = cpu1_work },
	};
	pthread_t th[2];

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "percpu: needs two online CPUs\n");
		return 77;
	}
	for (int i = 0; i < 2; i++) {
		w[i].seconds = seconds;
		int err = pthread_create(&th[i], NULL, worker_run, &w[i]);

		if (err) {
			fprintf(stderr, "percpu: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 2; i++) {
		if (w[i].err) {
			fprintf(stderr, "percpu: cannot pin a thread to CPU %d: %s\n",
				w[i].cpu, strerror(w[i].err));
			return 77;
		}
	}
	printf("percpu: pid %ld cpu0_work %.3f s cpu1_work %.3f s\n",
	       (long)getpid(), w[0].cpu_ns / 1e9, w[1].cpu_ns / 1e9);
	return 0;
}
