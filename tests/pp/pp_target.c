/* A known binary for opreport's tests (symbols, lines, golden reports):
 * four functions whose names say the share of samples the tests write for
 * them, and a C++-mangled name for --demangle. The golden files name the
 * line numbers of the functions: keep them where they are. */
#include <stdio.h>
#include <stdlib.h>

int func_a50(int x);
int func_b30(int x);
int func_c15(int x);
int func_d05(int x);

__attribute__((noinline)) int func_a50(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * 3 + (s >> 3); return s; }
__attribute__((noinline)) int func_b30(int x) { int s = 1; for (int i = 0; i < x; i++) s ^= i * 5 + (s << 1); return s; }
__attribute__((noinline)) int func_c15(int x) { int s = 2; for (int i = 0; i < x; i++) s += i * 7 - (s >> 2); return s; }
__attribute__((noinline)) int func_d05(int x) { int s = 3; for (int i = 0; i < x; i++) s -= i * 9 + (s << 2); return s; }

/* ns::scale(int) as a C++ compiler would name it */
__attribute__((noinline)) int _ZN2ns5scaleEi(int x) { return x * 11 + (x >> 1); }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	printf("%d\n", func_a50(n) + func_b30(n) + func_c15(n) + func_d05(n) +
	       _ZN2ns5scaleEi(n));
	return 0;
}
