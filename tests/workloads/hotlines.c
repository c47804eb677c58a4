/* hotlines [SECONDS]: opannotate's workload. Its time goes to two loops on
 * known lines, three quarters to the one marked HOT_A and a quarter to the
 * one marked HOT_B (same work per iteration, three times the iterations),
 * so that an annotated source shows both lines, HOT_A's with the most
 * samples. The test finds the lines by their markers, not by number.
 * SECONDS is of CPU time (wl_budget_start() in wl.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include "wl.h"

uint64_t hot_a(uint64_t n);
uint64_t hot_b(uint64_t n);

static volatile uint64_t sink;

__attribute__((noinline)) uint64_t hot_a(uint64_t n)
{
	uint64_t x = sink | 1;

	for (uint64_t i = 0; i < n; i++) x = x * 0x9e3779b97f4a7c15ULL + i; /* HOT_A */
	return x;
}

__attribute__((noinline)) uint64_t hot_b(uint64_t n)
{
	uint64_t x = sink | 3;

	for (uint64_t i = 0; i < n; i++) x = x * 0xd1342543de82ef95ULL + i; /* HOT_B */
	return x;
}

int main(int argc, char **argv)
{
	struct wl_budget run = wl_budget_start(wl_arg(argc, argv, 1, 2.0));

	while (wl_budget_left(&run)) {
		sink += hot_a(3000000);
		sink += hot_b(1000000);
	}
	printf("hotlines: done\n");
	return 0;
}
