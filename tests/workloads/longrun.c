/* longrun [SECONDS]: spins in longrun_spin() for SECONDS (default 30) or
 * until SIGTERM, for the test of a process that was already running when
 * profiling started: its mappings can only come from /proc/PID/maps. Prints
 * its pid at start (flushed) and its CPU time at the end. */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "wl.h"

uint64_t longrun_spin(uint64_t n);

static volatile uint64_t sink;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

__attribute__((noinline)) uint64_t longrun_spin(uint64_t n)
{
	uint64_t x = sink | 5;

	for (uint64_t i = 0; i < n; i++)
		x = (x + i) * 0xbf58476d1ce4e5b9ULL;
	return x;
}

int main(int argc, char **argv)
{
	double deadline = wl_wall_ns() + wl_arg(argc, argv, 1, 30) * 1e9;
	double t0 = wl_thread_ns();

	signal(SIGTERM, on_term);
	printf("longrun: pid %ld\n", (long)getpid());
	fflush(stdout);
	while (!stop && wl_wall_ns() < deadline)
		sink += longrun_spin(200000);
	printf("longrun: longrun_spin %.3f s\n", (wl_thread_ns() - t0) / 1e9);
	return 0;
}
