/* A shared library for opreport's symbol tests. */
int pplib_hot(int x);
int pplib_cold(int x);

__attribute__((noinline)) int pplib_hot(int x) { int s = 0; for (int i = 0; i < x; i++) s += i ^ (s >> 1); return s; }
__attribute__((noinline)) int pplib_cold(int x) { return x * 3 + 1; }
