/* cgleaf [SECONDS]: one leaf function, cg_leaf(), reached through two
 * callers, cg_via_a() and cg_via_b(), which spend about 70 % and 30 % of
 * the program's CPU time in it; and cg_syscalls(), which spends its time in
 * the kernel through read(2) of /dev/zero issued by its own instruction
 * (no libc wrapper between it and the kernel, so a frame-pointer chain from
 * the kernel reaches it). Each part is timed with the thread CPU clock and
 * printed as "share via_a|via_b|syscalls PERCENT" (of the three).
 *
 * Every function here keeps a frame pointer: a leaf without one hides its
 * caller from a frame-pointer walk, which then names the caller's caller.
 * GCC 12 sets no frame up in a leaf that uses no stack, whatever
 * -fno-omit-frame-pointer and -mno-omit-leaf-frame-pointer say, so the two
 * leaves keep their result in a stack slot.
 * SECONDS is of CPU time, not wall time (wl_budget_start() in wl.h).
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wl.h"

uint64_t cg_leaf(uint64_t n);
uint64_t cg_via_a(uint64_t n);
uint64_t cg_via_b(uint64_t n);
long cg_syscalls(int fd, int n);

static volatile uint64_t sink;
static char buf[65536];

__attribute__((noinline)) uint64_t cg_leaf(uint64_t n)
{
	volatile uint64_t slot;	/* a stack slot: a frame (see above) */
	uint64_t x = sink | 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	slot = x;
	return slot;
}

__attribute__((noinline)) uint64_t cg_via_a(uint64_t n)
{
	return cg_leaf(n) + 1;
}

__attribute__((noinline)) uint64_t cg_via_b(uint64_t n)
{
	return cg_leaf(n) + 2;
}

/* read(2) by the syscall instruction itself */
__attribute__((noinline)) long cg_syscalls(int fd, int n)
{
	volatile long total = 0;	/* a stack slot: a frame (see above) */

	for (int i = 0; i < n; i++) {
		long ret;

		__asm__ volatile("syscall"
				 : "=a"(ret)
				 : "0"((long)SYS_read), "D"((long)fd), "S"(buf),
				   "d"((long)sizeof(buf))
				 : "rcx", "r11", "memory");
		total += ret;
	}
	return total;
}

int main(int argc, char **argv)
{
	double seconds = wl_arg(argc, argv, 1, 4.0);
	double spent[3] = { 0 }, total;
	struct wl_budget run = wl_budget_start(seconds);
	static const char *const names[3] = { "via_a", "via_b", "syscalls" };
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0) {
		perror("cgleaf: /dev/zero");
		return 1;
	}
	/* rounds of 7 : 3 : 2 units of work, timed part by part */
	while (wl_budget_left(&run)) {
		double t0 = wl_thread_ns(), t1, t2, t3;

		sink += cg_via_a(700000);
		t1 = wl_thread_ns();
		sink += cg_via_b(300000);
		t2 = wl_thread_ns();
		sink += (uint64_t)cg_syscalls(fd, 20);
		t3 = wl_thread_ns();
		spent[0] += t1 - t0;
		spent[1] += t2 - t1;
		spent[2] += t3 - t2;
	}
	close(fd);
	total = spent[0] + spent[1] + spent[2];
	for (int i = 0; i < 3; i++)
		printf("share %s %.3f\n", names[i], 100 * spent[i] / total);
	return 0;
}
