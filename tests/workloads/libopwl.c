/* libopwl.so: the shared library of the libraries-and-kernel workload
 * (libcall). Built by the test suite so its symbols are known. */
#include "config.h"

#include <stdint.h>

uint64_t opwl_lib_burn(uint64_t n);

__attribute__((noinline)) uint64_t opwl_lib_burn(uint64_t n)
{
	uint64_t x = n | 9;

	for (uint64_t i = 0; i < n; i++)
		x = (x << 7 | x >> 57) + 0x2545f4914f6cdd1dULL * i;
	return x;
}
