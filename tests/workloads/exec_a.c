/* exec_a SECONDS EXEC_B: burns SECONDS of CPU in before_exec(), then execs
 * EXEC_B (passing SECONDS), which burns the same time in after_exec(). The
 * same pid runs two images in turn; each image's samples must land on it. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "wl.h"

uint64_t before_exec(uint64_t n);

static volatile uint64_t sink;

__attribute__((noinline)) uint64_t before_exec(uint64_t n)
{
	uint64_t x = sink | 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 0x5851f42d4c957f2dULL + 0x14057b7ef767814fULL;
	return x;
}

int main(int argc, char **argv)
{
	double t0, deadline;

	if (argc != 3) {
		fprintf(stderr, "usage: exec_a SECONDS EXEC_B\n");
		return 2;
	}
	deadline = wl_wall_ns() + wl_arg(argc, argv, 1, 1) * 1e9;
	t0 = wl_thread_ns();
	while (wl_wall_ns() < deadline)
		sink += before_exec(200000);
	printf("exec_a: pid %ld before_exec %.3f s\n", (long)getpid(),
	       (wl_thread_ns() - t0) / 1e9);
	fflush(stdout);
	execl(argv[2], argv[2], argv[1], (char *)NULL);
	perror("exec_a: exec");
	return 1;
}
