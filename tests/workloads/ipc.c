/* ipc [SECONDS]: two functions that take the same CPU time at very
 * different instructions per cycle, for the accuracy test of hardware
 * events. ipc_chase follows pointers through a 64 MiB random cycle (a
 * cache miss almost every load: well under one instruction a cycle);
 * ipc_alu runs independent integer chains (several a cycle). Each call is
 * timed with the thread's CPU clock and steered to the same time, and its
 * user-mode instructions are counted with perf_event_open on the program's
 * own thread, so the program knows both splits a profile should show:
 * cycles like its time, instructions like its instruction counts.
 *
 * Output: "ipc: pid P seconds S" then "share NAME PERCENT" (CPU time) and
 * "ishare NAME PERCENT" (instructions) per function. Exit 77 when the
 * instruction counter cannot be opened (no hardware PMU).
 */
#include "config.h"

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wl.h"

#define CHASE_NODES (64u << 20) / sizeof(uint32_t)

static volatile uint64_t sink;
static uint32_t *next_node;

uint64_t ipc_chase(uint64_t n);
uint64_t ipc_alu(uint64_t n);

__attribute__((noinline)) uint64_t ipc_chase(uint64_t n)
{
	uint32_t at = (uint32_t)sink % CHASE_NODES;

	for (uint64_t i = 0; i < n; i++)
		at = next_node[at];
	return at;
}

__attribute__((noinline)) uint64_t ipc_alu(uint64_t n)
{
	uint64_t a = sink | 1, b = a + 3, c = a + 5, d = a + 7;

	for (uint64_t i = 0; i < n; i++) {
		a = a * 3 + i;
		b = b ^ (b >> 3);
		c = c + (c << 1);
		d = d - i;
	}
	return a + b + c + d;
}

/* a random cycle through every node (Sattolo's shuffle) */
static void chase_init(void)
{
	uint64_t x = 88172645463325252ULL;

	next_node = malloc(CHASE_NODES * sizeof(*next_node));
	if (!next_node) {
		perror("ipc: malloc");
		exit(1);
	}
	for (uint32_t i = 0; i < CHASE_NODES; i++)
		next_node[i] = i;
	for (uint32_t i = CHASE_NODES - 1; i > 0; i--) {
		uint32_t j, t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (uint32_t)(x % i);
		t = next_node[i];
		next_node[i] = next_node[j];
		next_node[j] = t;
	}
}

static int instructions_counter(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static uint64_t counter_read(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		perror("ipc: read of the instruction counter");
		exit(1);
	}
	return v;
}

typedef uint64_t (*work_fn)(uint64_t);

static const struct {
	const char *name;
	work_fn fn;
} funcs[] = {
	{ "ipc_chase", ipc_chase },
	{ "ipc_alu", ipc_alu },
};
#define NR_FUNCS (sizeof(funcs) / sizeof(funcs[0]))
#define SLICE_NS 2.0e6

int main(int argc, char **argv)
{
	double seconds = wl_arg(argc, argv, 1, 4.0);
	double spent[NR_FUNCS] = { 0 }, total = 0, itotal = 0;
	uint64_t insns[NR_FUNCS] = { 0 }, iters[NR_FUNCS] = { 1000, 1000 };
	struct wl_budget run;
	int fd = instructions_counter();

	if (fd < 0) {
		perror("ipc: no instruction counter (no hardware PMU?)");
		return 77;
	}
	chase_init();
	run = wl_budget_start(seconds);
	while (wl_budget_left(&run)) {
		for (size_t f = 0; f < NR_FUNCS; f++) {
			uint64_t i0 = counter_read(fd), i1;
			double t0 = wl_thread_ns(), dt;

			sink += funcs[f].fn(iters[f]);
			dt = wl_thread_ns() - t0;
			i1 = counter_read(fd);
			spent[f] += dt;
			insns[f] += i1 - i0;
			if (dt > 0) {
				double want = iters[f] * SLICE_NS / dt;

				iters[f] = (uint64_t)(0.5 * iters[f] + 0.5 * want) + 1;
			}
		}
	}
	for (size_t f = 0; f < NR_FUNCS; f++) {
		total += spent[f];
		itotal += (double)insns[f];
	}
	printf("ipc: pid %ld seconds %.2f\n", (long)getpid(), seconds);
	for (size_t f = 0; f < NR_FUNCS; f++)
		printf("share %s %.3f\nishare %s %.3f\n", funcs[f].name,
		       100.0 * spent[f] / total, funcs[f].name,
		       100.0 * (double)insns[f] / itotal);
	close(fd);
	return 0;
}
