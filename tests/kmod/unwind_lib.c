/* A library unwind_rec loads with dlopen after it has started: its frame
 * sits between two of the program's in the dl_after case (test_unwind). */
#include "config.h"

int unwind_lib_call(int (*cb)(void));

__attribute__((noinline)) int unwind_lib_call(int (*cb)(void))
{
	volatile int keep = 1;	/* work after the call: no tail call */

	return cb() * 2 + keep;
}
