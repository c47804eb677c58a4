/* Aliases for the symbol-choice tests: one function under five names of
 * every binding, and one called through the PLT. OProfile keeps, of names
 * at one address, a non-local one, then one without a leading '_', then a
 * non-weak one: "thing" here, though it is weak. */
#include <stdlib.h>

int __libc_thing(int x);
int __libc_thing(int x) { return x * 3 + abs(x - 7); }
int thing(int x) __attribute__((weak, alias("__libc_thing")));
int __thing(int x) __attribute__((alias("__libc_thing")));
static int local_thing(int x) __attribute__((used, alias("__libc_thing")));

/* of two names without '_', the non-weak one */
int other_strong(int x);
int other_strong(int x) { return x ^ 0x55; }
int other_weak(int x) __attribute__((weak, alias("other_strong")));
