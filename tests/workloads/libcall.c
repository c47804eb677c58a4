/* libcall LIBRARY [SECONDS]: spends its CPU time in three places, in turn:
 * app_burn() in this program, opwl_lib_burn() in the shared library LIBRARY
 * (libopwl.so, loaded with dlopen so the test names the file it built), and
 * the kernel, reading /dev/zero (the kernel clears the buffer). Each part is
 * timed with the thread CPU clock and its share printed as
 * "share app|lib|kernel PERCENT".
 * SECONDS is of CPU time, not wall time (wl_budget_start() in wl.h).
 */
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "wl.h"

uint64_t app_burn(uint64_t n);

static volatile uint64_t sink;

__attribute__((noinline)) uint64_t app_burn(uint64_t n)
{
	uint64_t x = sink | 1;

	for (uint64_t i = 0; i < n; i++)
		x = x * 0xd1342543de82ef95ULL + 1;
	return x;
}

static char zbuf[256 * 1024];

int main(int argc, char **argv)
{
	double seconds = wl_arg(argc, argv, 2, 4.0);
	double spent[3] = { 0 }, total, t0;
	struct wl_budget run;
	uint64_t (*lib_burn)(uint64_t);
	void *lib;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: libcall LIBRARY [SECONDS]\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "libcall: %s\n", dlerror());
		return 1;
	}
	*(void **)&lib_burn = dlsym(lib, "opwl_lib_burn");
	if (!lib_burn) {
		fprintf(stderr, "libcall: %s\n", dlerror());
		return 1;
	}
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("libcall: /dev/zero");
		return 1;
	}
	run = wl_budget_start(seconds);
	while (wl_budget_left(&run)) {
		t0 = wl_thread_ns();
		sink += app_burn(1000000);
		spent[0] += wl_thread_ns() - t0;

		t0 = wl_thread_ns();
		sink += lib_burn(2000000);
		spent[1] += wl_thread_ns() - t0;

		t0 = wl_thread_ns();
		for (int i = 0; i < 64; i++) {
			if (read(fd, zbuf, sizeof(zbuf)) < 0) {
				perror("libcall: read");
				return 1;
			}
		}
		spent[2] += wl_thread_ns() - t0;
	}
	close(fd);
	total = spent[0] + spent[1] + spent[2];
	printf("libcall: pid %ld seconds %.2f\n", (long)getpid(), seconds);
	printf("share app %.3f\nshare lib %.3f\nshare kernel %.3f\n",
	       100 * spent[0] / total, 100 * spent[1] / total,
	       100 * spent[2] / total);
	return 0;
}
