/* spin SECONDS: burn SECONDS of CPU time (a fraction allowed) in this
 * binary, after printing its pid, so a test knows which sample files must
 * hold it and about how many samples (CPU time, not wall time: a loaded
 * machine only makes the run longer). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	double end = now() + secs;

	printf("%d\n", (int)getpid());
	fflush(stdout);
	while (now() < end) {
		for (unsigned long i = 0; i < 100000; i++)
			sink += i * i;
	}
	return 0;
}
