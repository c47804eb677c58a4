/* cgqsort [SECONDS]: a leaf reached only through libc, for DWARF
 * unwinding. cmp_keys(), the comparator, burns the CPU under libc's qsort
 * (qsort_r, msort_with_tmp: Debian's libc keeps no frame pointers), called
 * from sort_big() and sort_small(), which the program times with the
 * thread CPU clock around each qsort and prints as "share sort_big|
 * sort_small PERCENT" (about 80 and 20). Built -fomit-frame-pointer: a
 * frame-pointer walk finds none of the callers.
 *
 * The two callers do different things around their qsort (sizes, the
 * order they fill their arrays in, what they fold the result into), so
 * the compiler cannot fold them into one function.
 * SECONDS is of CPU time, not wall time (wl_budget_start() in wl.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "wl.h"

#define BIG 6000
#define SMALL 1000

int cmp_keys(const void *a, const void *b);
uint64_t sort_big(uint64_t seed);
uint64_t sort_small(uint64_t seed);

static volatile uint64_t sink;
static uint64_t big[BIG], small_keys[SMALL];
static double spent_big, spent_small;

/* the leaf: a dozen rounds of mixing make each comparison cost more
 * than qsort's own work around it */
__attribute__((noinline)) int cmp_keys(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	for (int i = 0; i < 12; i++) {
		x = (x ^ (x >> 31)) * 0x7fb5d329728ea185ULL;
		y = (y ^ (y >> 31)) * 0x7fb5d329728ea185ULL;
	}
	return x < y ? -1 : x > y;
}

__attribute__((noinline)) uint64_t sort_big(uint64_t seed)
{
	double t0;

	for (size_t i = 0; i < BIG; i++)
		big[i] = seed + i * 2654435761u;
	t0 = wl_thread_ns();
	qsort(big, BIG, sizeof(big[0]), cmp_keys);
	spent_big += wl_thread_ns() - t0;
	return big[0] ^ big[BIG - 1];
}

__attribute__((noinline)) uint64_t sort_small(uint64_t seed)
{
	double t0;
	uint64_t sum = 0;

	for (size_t i = SMALL; i-- > 0;)
		small_keys[i] = (seed ^ i) * 40503u;
	t0 = wl_thread_ns();
	qsort(small_keys, SMALL, sizeof(small_keys[0]), cmp_keys);
	spent_small += wl_thread_ns() - t0;
	for (size_t i = 0; i < SMALL; i += 100)
		sum += small_keys[i];
	return sum;
}

int main(int argc, char **argv)
{
	double seconds = wl_arg(argc, argv, 1, 4.0), total;
	struct wl_budget run = wl_budget_start(seconds);
	uint64_t seed = 1;

	/* rounds of one big sort (6000 keys) and two small ones (1000):
	 * about 4 : 1 of the comparisons, n log n counted */
	while (wl_budget_left(&run)) {
		sink += sort_big(seed++);
		for (int i = 0; i < 2; i++)
			sink += sort_small(seed++);
	}
	total = spent_big + spent_small;
	printf("share sort_big %.3f\n", 100 * spent_big / total);
	printf("share sort_small %.3f\n", 100 * spent_small / total);
	return 0;
}
