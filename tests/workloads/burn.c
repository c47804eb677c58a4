/* burn [MILLIONS [THREADS]]: a fixed amount of CPU-bound work, MILLIONS
 * (default 2000) million iterations of burn_loop() split over THREADS
 * (default: online CPUs) threads, for the overhead benchmarks: a profiler's
 * cost shows as extra wall and CPU time for the same work. Prints
 * "burn: wall_s W cpu_s C" (CPU = user + system of the process). */
#include "config.h"

#include <pthread.h>
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

static void *run(void *arg)
{
	uint64_t n = *(uint64_t *)arg;

	while (n) {
		uint64_t chunk = n < 10000000 ? n : 10000000;

		sink += burn_loop(chunk);
		n -= chunk;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double millions = wl_arg(argc, argv, 1, 2000);
	long nthreads = (long)wl_arg(argc, argv, 2, (double)sysconf(_SC_NPROCESSORS_ONLN));
	pthread_t th[256];
	uint64_t per;
	struct rusage ru;
	double t0 = wl_wall_ns();

	if (nthreads < 1 || nthreads > 256) {
		fprintf(stderr, "burn: threads must be 1..256\n");
		return 2;
	}
	per = (uint64_t)(millions * 1e6 / nthreads);
	for (long i = 0; i < nthreads; i++) {
		int err = pthread_create(&th[i], NULL, run, &per);

		if (err) {
			fprintf(stderr, "burn: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	for (long i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	getrusage(RUSAGE_SELF, &ru);
	printf("burn: wall_s %.4f cpu_s %.4f\n", (wl_wall_ns() - t0) / 1e9,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 0;
}
