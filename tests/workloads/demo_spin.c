/* demo_spin: the workload ./demo.sh profiles. One thread per online CPU,
 * pinned to it, each spinning in its own function for the same time, so a
 * per-CPU report shows a different hot symbol in each CPU's column:
 * even CPUs in demo_crc (integer work), odd CPUs in demo_sqrt (floating
 * point), and every thread a little in demo_mix.
 *
 * Usage: demo_spin [SECONDS]   (default 3, at most 600)
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

struct demo_thread {
	pthread_t thread;
	int cpu;
	double seconds;
	uint64_t iterations;
	double sink;
};

__attribute__((noinline)) static uint32_t demo_crc(uint32_t crc, uint32_t v)
{
	for (int i = 0; i < 4096; i++) {
		crc ^= v + (uint32_t)i;
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1u));
	}
	return crc;
}

__attribute__((noinline)) static double demo_sqrt(double x)
{
	double acc = 0;

	for (int i = 1; i <= 8192; i++)
		acc += sqrt(x + i) / (double)i;
	return acc;
}

__attribute__((noinline)) static uint64_t demo_mix(uint64_t v)
{
	for (int i = 0; i < 512; i++)
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
	return v;
}

static double demo_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *demo_run(void *arg)
{
	struct demo_thread *t = arg;
	double end = demo_now() + t->seconds;
	uint32_t crc = 0;
	uint64_t mix = (uint64_t)t->cpu;
	double acc = 0;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	/* not fatal: unpinned threads still exercise both functions */
	if (sched_setaffinity(0, sizeof(set), &set))
		fprintf(stderr, "demo_spin: cannot pin to cpu %d: %s\n", t->cpu, strerror(errno));
	while (demo_now() < end) {
		if (t->cpu % 2 == 0)
			crc = demo_crc(crc, (uint32_t)t->iterations);
		else
			acc += demo_sqrt((double)t->iterations);
		if (t->iterations % 16 == 0)
			mix = demo_mix(mix);
		t->iterations++;
	}
	t->sink = acc + crc + (double)(mix & 0xff);
	return NULL;
}

int main(int argc, char **argv)
{
	long nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct demo_thread *threads;
	double seconds;
	int ret = 0;

	if (argc > 2) {
		fprintf(stderr, "usage: demo_spin [SECONDS (0 < s <= 600)]\n");
		return 2;
	}
	seconds = wl_arg(argc, argv, 1, 3);	/* exits 2 on garbage */
	if (seconds > 600) {
		fprintf(stderr, "demo_spin: at most 600 seconds\n");
		return 2;
	}
	if (nr_cpus < 1)
		nr_cpus = 1;
	threads = calloc((size_t)nr_cpus, sizeof(*threads));
	if (!threads) {
		perror("demo_spin");
		return 1;
	}
	for (long i = 0; i < nr_cpus; i++) {
		threads[i].cpu = (int)i;
		threads[i].seconds = seconds;
		if (pthread_create(&threads[i].thread, NULL, demo_run, &threads[i])) {
			fprintf(stderr, "demo_spin: cannot start thread %ld\n", i);
			nr_cpus = i;
			ret = 1;
			break;
		}
	}
	for (long i = 0; i < nr_cpus; i++) {
		pthread_join(threads[i].thread, NULL);
		printf("demo_spin: cpu%d %s %llu iterations (sink %g)\n", threads[i].cpu,
		       threads[i].cpu % 2 ? "demo_sqrt" : "demo_crc",
		       (unsigned long long)threads[i].iterations, threads[i].sink);
	}
	free(threads);
	return ret;
}
