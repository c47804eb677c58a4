/* vdsoloop [SECONDS]: calls clock_gettime(CLOCK_MONOTONIC) in a loop for
 * SECONDS of wall time (default 1), so that its time is spent in the
 * vDSO's __vdso_clock_gettime (with a clock source the vDSO reads, as
 * tsc): the test that reports name the vDSO's functions. Prints the
 * calls made and its CPU time. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "wl.h"

int main(int argc, char **argv)
{
	double secs = wl_arg(argc, argv, 1, 1);
	struct timespec ts, end;
	uint64_t calls = 0;
	double t0 = wl_thread_ns();

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)secs;
	end.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	do {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		calls++;
	} while (ts.tv_sec < end.tv_sec ||
		 (ts.tv_sec == end.tv_sec && ts.tv_nsec < end.tv_nsec));
	printf("vdsoloop: calls %llu cpu_s %.3f\n", (unsigned long long)calls,
	       (wl_thread_ns() - t0) / 1e9);
	return 0;
}
