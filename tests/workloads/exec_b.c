/* exec_b SECONDS: the image exec_a execs; burns SECONDS in after_exec(). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "wl.h"

uint64_t after_exec(uint64_t n);

static volatile uint64_t sink;

__attribute__((noinline)) uint64_t after_exec(uint64_t n)
{
	uint64_t x = sink | 3;

	for (uint64_t i = 0; i < n; i++) {
		x ^= x >> 11;
		x ^= x << 31;
		x ^= x >> 18;
	}
	return x;
}

int main(int argc, char **argv)
{
	double t0, deadline = wl_wall_ns() + wl_arg(argc, argv, 1, 1) * 1e9;

	t0 = wl_thread_ns();
	while (wl_wall_ns() < deadline)
		sink += after_exec(200000);
	printf("exec_b: pid %ld after_exec %.3f s\n", (long)getpid(),
	       (wl_thread_ns() - t0) / 1e9);
	return 0;
}
