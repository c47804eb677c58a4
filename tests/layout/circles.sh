#!/usr/bin/env bash
# layout/circles.sh: no import circle among the product's files (a file
# whose functions call a second file's, which call back: STYLE.md's
# "dependencies run one way"), read from the built objects by
# scripts/circles.sh; and that the check finds one planted on purpose.
set -euo pipefail
: "${top_srcdir:?}" "${top_builddir:?}"
check="$top_srcdir/scripts/circles.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/layout-circles.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# the check itself: three files calling round, a fourth calling in, and
# an older object of one of them that did not call round
mkdir -p "$tmp/src/x" "$tmp/build/x"
echo 'int b1(void); int a1(void) { return b1(); } int a2(void) { return 2; }' > "$tmp/src/x/a.c"
echo 'int c1(void); int b1(void) { return c1(); }' > "$tmp/src/x/b.c"
echo 'int a2(void); int c1(void) { return a2(); }' > "$tmp/src/x/c.c"
echo 'int a1(void); int d1(void) { return a1(); }' > "$tmp/src/x/d.c"
echo 'int c1(void) { return 0; }' > "$tmp/old.c"
${CC:-cc} -c "$tmp/old.c" -o "$tmp/build/x/c.o"
touch -d '2000-01-01' "$tmp/build/x/c.o"
for f in a b c d; do
	${CC:-cc} -c "$tmp/src/x/$f.c" -o "$tmp/build/x/libx_a-$f.o"
done
if "$check" "$tmp/src" "$tmp/build" x > "$tmp/out"; then
	echo "FAIL: a planted circle was not found"; cat "$tmp/out"; exit 1
fi
grep -q '^circle: x/a.c x/b.c x/c.c$' "$tmp/out" ||
	{ echo "FAIL: the planted circle, named wrong:"; cat "$tmp/out"; exit 1; }
grep -q '^  x/c.c -> x/a.c: a2$' "$tmp/out" ||
	{ echo "FAIL: the symbol behind a use is not named:"; cat "$tmp/out"; exit 1; }
grep -q 'x/d.c' "$tmp/out" && { echo "FAIL: d.c is in no circle:"; cat "$tmp/out"; exit 1; }
echo "ok: a planted circle is found and named"

# the product
if ! "$check" "$top_srcdir" "$top_builddir" daemon kmod libop pp; then
	echo "FAIL: import circles in the product (above)"
	exit 1
fi
