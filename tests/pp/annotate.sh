#!/usr/bin/env bash
# opannotate on a session recorded for real: hotlines spends three
# quarters of its time on the line marked HOT_A and a quarter on HOT_B.
#   --source: both lines carry samples, HOT_A the most of the file, and
#     the two functions' totals follow their first lines;
#   --assembly: the hot instructions are in hot_a and hot_b, and the
#     function headers carry the totals; with --source, the marked lines
#     are interleaved;
#   -o: the annotated copy is written under the directory, nowhere else;
#   bad input: an unknown option, a specification selecting nothing, a
#     missing binary (with -x: its dependents, which may be annotated,
#     left out): a message and a non-zero exit each.
. "$top_srcdir/tests/e2e/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

OPANNOTATE=$top_builddir/pp/opannotate
SRC=$top_srcdir/tests/workloads/hotlines.c
# a copy, so that the missing-binary case can remove it
HL=$E2E_TMP/hotlines
cp "$top_builddir/tests/workloads/hotlines" "$HL"

e2e_need_perf
"$OPCONTROL" --session-dir="$SESSION_DIR" --setup --event=default >/dev/null ||
	fail "opcontrol --setup failed"
"$OPCONTROL" --session-dir="$SESSION_DIR" --start >/dev/null || fail "opcontrol --start failed"
"$HL" 2 >/dev/null || fail "hotlines failed"
"$OPCONTROL" --session-dir="$SESSION_DIR" --dump >/dev/null || fail "opcontrol --dump failed"
"$OPCONTROL" --session-dir="$SESSION_DIR" --shutdown >/dev/null || fail "opcontrol --shutdown failed"
e2e_unlock_system_wide

ann() { "$OPANNOTATE" --session-dir="$SESSION_DIR" "$@"; }

# --source
ann --source "image:$HL" >"$E2E_TMP/src" 2>"$E2E_TMP/src.err" ||
	{ cat "$E2E_TMP/src.err" >&2; fail "opannotate --source failed"; }
grep -q "Total samples for file : \"$(realpath "$SRC")\"" "$E2E_TMP/src" ||
	fail "--source: no block for $SRC"
count_of() { grep -F "$1" "$E2E_TMP/src" | grep -v 'total:' | sed -n 's/^ *\([0-9][0-9]*\) .*/\1/p' | head -1; }
a=$(count_of '/* HOT_A */')
b=$(count_of '/* HOT_B */')
[ -n "$a" ] && [ -n "$b" ] || { sed -n '1,80p' "$E2E_TMP/src" >&2; fail "--source: HOT_A ($a) or HOT_B ($b) has no samples"; }
max=$(sed -n 's/^ *\([0-9][0-9]*\) *[0-9.e+-]* :.*/\1/p' "$E2E_TMP/src" | sort -n | tail -1)
[ "$a" -eq "$max" ] || fail "--source: HOT_A has $a samples, another line $max"
[ "$a" -gt "$b" ] || fail "--source: HOT_A ($a) is not above HOT_B ($b)"
grep -q '/\* hot_a total: ' "$E2E_TMP/src" || fail "--source: no hot_a total"
grep -q '/\* hot_b total: ' "$E2E_TMP/src" || fail "--source: no hot_b total"
echo "annotate: --source HOT_A $a, HOT_B $b samples"

# --assembly, and with --source
ann --assembly "image:$HL" >"$E2E_TMP/asm" 2>"$E2E_TMP/asm.err" ||
	{ cat "$E2E_TMP/asm.err" >&2; fail "opannotate --assembly failed"; }
for f in hot_a hot_b; do
	grep -q "^[0-9a-f]\{16\} <$f>: /\* $f total: " "$E2E_TMP/asm" ||
		fail "--assembly: no header for $f"
	# the function's sampled instructions, after its header
	n=$(awk -v f="<$f>:" 'index($0, f) { on = 1; next } / <[^>]*>: / { on = 0 }
		on && /^ *[0-9]+ +[0-9.e+-]+ :  *[0-9a-f]+:\t/ { n++ } END { print n + 0 }' "$E2E_TMP/asm")
	[ "$n" -gt 0 ] || fail "--assembly: no sampled instruction in $f"
done
ann --assembly --source "image:$HL" >"$E2E_TMP/both" 2>/dev/null ||
	fail "opannotate --assembly --source failed"
grep -q ':.*/\* HOT_A \*/' "$E2E_TMP/both" || fail "-a -s: HOT_A's line not interleaved"

# -o: the tree
ann --source -o "$E2E_TMP/tree" "image:$HL" >"$E2E_TMP/tree.out" 2>&1 ||
	fail "opannotate -o failed"
copy="$E2E_TMP/tree$(realpath "$SRC")"
[ -f "$copy" ] || fail "-o: no $copy"
grep -q 'Total samples for file' "$copy" || fail "-o: $copy has no totals"
tail -1 "$copy" | grep -q '^ \*/$' || fail "-o: $copy does not end with the command's comment"

# bad input
expect_fail() {
	local what=$1 status=$2 pattern=$3 rc=0
	shift 3
	"$@" >"$E2E_TMP/bad.out" 2>"$E2E_TMP/bad.err" || rc=$?
	[ "$rc" -eq "$status" ] || fail "$what: exit $rc, not $status"
	grep -q -- "$pattern" "$E2E_TMP/bad.err" || { cat "$E2E_TMP/bad.err" >&2; fail "$what: no '$pattern'"; }
}
expect_fail "unknown option" 1 "unknown option" ann --source --no-such-option
expect_fail "neither -s nor -a" 1 "at least --source or --assembly" ann "image:$HL"
expect_fail "-o with -a" 1 "meaningless with --assembly" ann -a -o "$E2E_TMP/x"
expect_fail "spec selecting nothing" 4 "no sample file matches" ann --source image:/no/such/program
expect_fail "bad spec" 2 "bad profile specification" ann --source cpu:x
rm -f "$HL"
# image:$HL also selects the images hotlines depends on (OProfile's lib
# merge), and a tick may land in one of them that is still found: its
# [vdso], whose copy is in the session (clock_gettime, read by the CPU
# time budget), libc or ld.so. That one is annotated (with --assembly
# always, with --source if it has line information), correctly: exit 0.
# -x leaves the dependents out, so nothing is left to annotate.
expect_fail "missing binary (-s -x)" 5 "nothing to annotate" ann --source -x "image:$HL"
expect_fail "missing binary (-a -x)" 5 "nothing to annotate" ann --assembly -x "image:$HL"
# without -x: 5, or 0 if a dependent was annotated; either way the
# binary is named as missing and none of its functions is shown
for m in --source --assembly; do
	rc=0
	ann "$m" "image:$HL" >"$E2E_TMP/miss.out" 2>"$E2E_TMP/miss.err" || rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 5 ] || fail "missing binary ($m): exit $rc, not 0 or 5"
	grep -qF "$HL could not be found" "$E2E_TMP/miss.err" ||
		{ cat "$E2E_TMP/miss.err" >&2; fail "missing binary ($m): not named as missing"; }
	[ "$rc" -eq 0 ] || grep -q "nothing to annotate" "$E2E_TMP/miss.err" ||
		{ cat "$E2E_TMP/miss.err" >&2; fail "missing binary ($m): exit 5 without 'nothing to annotate'"; }
	! grep -qE '<hot_[ab]>|hot_[ab] total:' "$E2E_TMP/miss.out" ||
		fail "missing binary ($m): hotlines' functions annotated without the binary"
	echo "annotate: missing binary, $m without -x: exit $rc"
done
echo "annotate: ok"
