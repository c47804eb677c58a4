/* The real test's known workload: burn CPU in user space for argv[1] ms. */
#include "config.h"

#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double end = now_ms() + (argc > 1 ? atof(argv[1]) : 300);
	volatile unsigned long x = 0;

	while (now_ms() < end)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i * 7;
	return x == 1;
}
