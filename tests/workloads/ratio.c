/* ratio [SECONDS]: the known-ratio workload. Four functions with distinct
 * bodies (so the compiler cannot fold them into one) share the program's CPU
 * time about 50/30/15/5 %. The program times every call with its own thread
 * CPU clock and prints the shares it measured, which the accuracy test
 * compares with opreport's; the nominal split only has to be roughly right.
 *
 * Output: "ratio: pid P seconds S" then one "share NAME PERCENT" per
 * function.
 * SECONDS is of CPU time, not wall time (wl_budget_start() in wl.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "wl.h"

uint64_t func_a50(uint64_t n);
uint64_t func_b30(uint64_t n);
uint64_t func_c15(uint64_t n);
uint64_t func_d05(uint64_t n);

/* volatile so the work cannot be proved useless and removed */
static volatile uint64_t sink;

/* a 64-bit linear congruential generator */
__attribute__((noinline)) uint64_t func_a50(uint64_t n)
{
	uint64_t x = sink | 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

/* xorshift64 */
__attribute__((noinline)) uint64_t func_b30(uint64_t n)
{
	uint64_t x = sink | 7;

	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/* a floating-point recurrence */
__attribute__((noinline)) uint64_t func_c15(uint64_t n)
{
	double d = (double)(sink & 0xff) + 0.5;

	for (uint64_t i = 0; i < n; i++)
		d = d * 0.999999 + 1.000001;
	return (uint64_t)d;
}

/* integer division, which no unit pipelines */
__attribute__((noinline)) uint64_t func_d05(uint64_t n)
{
	uint64_t acc = sink + 3;

	for (uint64_t i = 1; i <= n; i++)
		acc += (acc ^ i) / (i | 3);
	return acc;
}

typedef uint64_t (*work_fn)(uint64_t);

static const struct {
	const char *name;
	work_fn fn;
	double target_ns;	/* per round */
} funcs[] = {
	{ "func_a50", func_a50, 5.0e6 },
	{ "func_b30", func_b30, 3.0e6 },
	{ "func_c15", func_c15, 1.5e6 },
	{ "func_d05", func_d05, 0.5e6 },
};
#define NR_FUNCS (sizeof(funcs) / sizeof(funcs[0]))

int main(int argc, char **argv)
{
	double seconds = wl_arg(argc, argv, 1, 5.0);
	double spent[NR_FUNCS] = { 0 }, total = 0;
	struct wl_budget run;
	uint64_t iters[NR_FUNCS];

	for (size_t f = 0; f < NR_FUNCS; f++)
		iters[f] = 10000;
	run = wl_budget_start(seconds);
	while (wl_budget_left(&run)) {
		for (size_t f = 0; f < NR_FUNCS; f++) {
			double t0 = wl_thread_ns(), dt;

			sink += funcs[f].fn(iters[f]);
			dt = wl_thread_ns() - t0;
			spent[f] += dt;
			/* steer the next call towards its share of a round */
			if (dt > 0) {
				double next = iters[f] * funcs[f].target_ns / dt;

				iters[f] = (uint64_t)(0.5 * iters[f] + 0.5 * next) + 1;
			}
		}
	}
	for (size_t f = 0; f < NR_FUNCS; f++)
		total += spent[f];
	printf("ratio: pid %ld seconds %.2f\n", (long)getpid(), seconds);
	for (size_t f = 0; f < NR_FUNCS; f++)
		printf("share %s %.3f\n", funcs[f].name, 100.0 * spent[f] / total);
	return 0;
}
