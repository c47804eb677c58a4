/* burn [MILLIONS [THREADS]]: a fixed amount of CPU-bound work, MILLIONS
 * (default 2000) million iterations of burn_loop() split over THREADS
 * (default: online CPUs) threads, for the overhead benchmarks: a profiler's
 * cost shows as extra wall and CPU time for the same work.
 * burn -t SECONDS [THREADS]: burn for SECONDS of wall time instead, for the
 * benchmarks that need a known number of samples whatever each one costs.
 * Prints "burn: wall_s W cpu_s C iterations_M I" (CPU = user + system of
 * the process). */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "wl.h"

uint64_t burn_loop(uint64_t n);

static volatile uint64_t sink;

__attribute__((noinline)) uint64_t burn_loop(uint64_t n)
{
	uint64_t x = sink | 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + i;
	return x;
}

struct job {
	uint64_t iterations;	/* fixed work; 0: until deadline */
	double deadline;	/* wall ns */
	uint64_t done;
};

static void *run(void *arg)
{
	struct job *j = arg;
	const uint64_t chunk = 1000000;

	if (j->iterations) {
		for (uint64_t n = j->iterations; n; ) {
			uint64_t c = n < chunk ? n : chunk;

			sink += burn_loop(c);
			n -= c;
		}
		j->done = j->iterations;
		return NULL;
	}
	while (wl_wall_ns() < j->deadline) {
		sink += burn_loop(chunk);
		j->done += chunk;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	bool timed = argc > 1 && strcmp(argv[1], "-t") == 0;
	int a = timed ? 2 : 1;
	double amount = wl_arg(argc, argv, a, timed ? 5 : 2000);
	long nthreads = (long)wl_arg(argc, argv, a + 1, (double)sysconf(_SC_NPROCESSORS_ONLN));
	static struct job jobs[256];
	pthread_t th[256];
	struct rusage ru;
	double t0 = wl_wall_ns(), total = 0;

	if (nthreads < 1 || nthreads > 256) {
		fprintf(stderr, "burn: threads must be 1..256\n");
		return 2;
	}
	for (long i = 0; i < nthreads; i++) {
		int err;

		jobs[i].iterations = timed ? 0 : (uint64_t)(amount * 1e6 / nthreads);
		jobs[i].deadline = t0 + amount * 1e9;
		err = pthread_create(&th[i], NULL, run, &jobs[i]);

		if (err) {
			fprintf(stderr, "burn: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	for (long i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		total += jobs[i].done;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("burn: wall_s %.4f cpu_s %.4f iterations_M %.1f\n",
	       (wl_wall_ns() - t0) / 1e9,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, total / 1e6);
	return 0;
}
