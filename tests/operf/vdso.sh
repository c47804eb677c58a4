#!/usr/bin/env bash
# The vDSO's functions by name: a program that spends its time calling
# clock_gettime, which the vDSO serves, profiled by operf. The daemon
# saves the vDSO's image in the session (stats/vdso), and opreport -l
# names its samples __vdso_clock_gettime, from the image's own symbol
# table, as perf names them, where it named the region ("[vdso] (tgid:N
# range:...)") as both image and symbol. The image keeps OProfile's name:
# OProfile's opreport reads the same session (tests/interop). With -g
# --unwind=dwarf, chains from the vDSO reach the program's main through
# the vDSO's own unwind table.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
. "$top_srcdir/tests/operf/lib.sh"
e2e_need_perf

grep -qx tsc /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null ||
	echo "vdso: clock source $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null) (the vDSO may fall back to the system call)"
expect 0 "" "$OPERF" -e cpu-clock:100000 -g --unwind=dwarf "$WORKLOADS/vdsoloop" 1
echo "$OUT" | grep "^vdsoloop:"
[ -s "$SESSION_DIR/samples/current/stats/vdso" ] || fail "no stats/vdso in the session"
operf_report "$E2E_TMP/l" -l image:"$WORKLOADS/vdsoloop"
cat "$E2E_TMP/l"
# the program's samples, and those of the vDSO's clock_gettime
total=$(awk '$1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$E2E_TMP/l")
named=$(awk '$NF == "__vdso_clock_gettime" { n += $1 } END { print n + 0 }' "$E2E_TMP/l")
[ "$total" -ge 200 ] || fail "vdsoloop had $total samples (at least 200 expected in 1 s at 10 kHz)"
[ $((named * 100)) -ge $((total * 30)) ] ||
	fail "__vdso_clock_gettime has $named of vdsoloop's $total samples (30 % at least expected)"
# the region's own name is no longer a symbol's
! grep -q "range:0x.*range:0x" "$E2E_TMP/l" || fail "a [vdso] region still named as its own symbol"
# its image keeps OProfile's name
awk '$NF == "__vdso_clock_gettime" && /\[vdso\] \(tgid:[0-9]* range:0x/ { f = 1 } END { exit !f }' "$E2E_TMP/l" ||
	fail "the vDSO's image is not named as OProfile names it"
# the chains: through the vDSO's own unwind table to main (folded stacks:
# root first); at least 90 % of __vdso_clock_gettime's samples
OPEXPORT=$top_builddir/pp/opexport
"$OPEXPORT" --format=folded image:"$WORKLOADS/vdsoloop" >"$E2E_TMP/folded" 2>"$E2E_TMP/folded.err" ||
	{ cat "$E2E_TMP/folded.err" >&2; fail "opexport --format=folded failed"; }
sort -k2 -n -r "$E2E_TMP/folded" >"$E2E_TMP/folded.sorted"
head -3 "$E2E_TMP/folded.sorted"
leaf=$(awk '$1 ~ /;__vdso_clock_gettime$/ { n += $2 } END { print n + 0 }' "$E2E_TMP/folded")
through=$(awk '$1 ~ /;main;clock_gettime[^;]*;__vdso_clock_gettime$/ { n += $2 } END { print n + 0 }' "$E2E_TMP/folded")
[ "$leaf" -gt 0 ] && [ $((through * 100)) -ge $((leaf * 90)) ] ||
	fail "$through of __vdso_clock_gettime's $leaf chains reach main through libc's clock_gettime (90 % expected)"
echo "vdso: $named of $total samples named __vdso_clock_gettime; $through of $leaf chains from it reach main"
