#!/usr/bin/env bash
# optop --batch on a live opcontrol session (10 kHz, system-wide) while
# tests/workloads/ratio runs: ratio's heaviest function heads ratio's rows
# within two intervals of its start, and the four functions' shares over
# the tables are within 2 points of the program's own figures. optop must
# leave the session as it found it: no dump (the stats files a dump writes
# are absent), nothing written under samples/.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/live/lib.sh"
e2e_need_perf

acc_start cpu
sleep 0.5
live_batch ratio 4 4.5 -d 2 --filter=ratio -l 0 --separate=cpu
[ -s "$E2E_TMP/optop.out" ] || fail "optop printed nothing"
grep -q "^optop: 1: interval .* lost" "$E2E_TMP/optop.out" || fail "no status line with the losses"
grep -q "oprofiled $(cat "$SESSION_DIR/lock")" "$E2E_TMP/optop.out" || fail "the status line does not name the daemon"

live_tables "$E2E_TMP/optop.out" >"$E2E_TMP/rows"
# the heaviest function heads ratio's rows in the first or second table
first=$(awk '$4 ~ /^func_/ { print $1; exit }' "$E2E_TMP/rows")
[ -n "$first" ] || fail "no table shows ratio's functions"
top=$(awk -v t="$first" '$1 == t { print $4; exit }' "$E2E_TMP/rows")
top2=$(awk -v t="$((first + 1))" '$1 == t { print $4; exit }' "$E2E_TMP/rows")
[ "$first" -le 2 ] || fail "ratio's functions first appear in table $first"
check "\"$top\" == \"func_a50\" || \"$top2\" == \"func_a50\"" \
	"func_a50 heads ratio's rows within two intervals (table $first: $top, then $top2)"
# per-CPU columns: one per CPU, summing to the row
ncpu=$(nproc)
grep -q "cpu$((ncpu - 1))" "$E2E_TMP/optop.out" || fail "no cpu$((ncpu - 1)) column"
awk -v c="$ncpu" '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ && NF >= 4 + c {
		s = 0; for (i = 3; i < 3 + c; i++) s += $i
		if (s != $1) { print "row does not add up: " $0; bad = 1 } }
	END { exit bad }' "$E2E_TMP/optop.out" || fail "per-CPU columns do not add up to their rows"

awk '$4 ~ /^func_/ { print $4, $2 }' "$E2E_TMP/rows" >"$E2E_TMP/counts"
live_judge "$E2E_TMP/counts" "$E2E_TMP/ratio.out" 2

# nothing written into the session: a dump would have written stats/
[ ! -e "$SESSION_DIR/samples/current/stats" ] || fail "a dump happened: samples/current/stats exists"
acc_stop
