#!/usr/bin/env bash
# optop with no profiler running profiles the system itself, as operf
# --system-wide does, at its default rate (cpu-clock every 250 us): on
# tests/workloads/ratio its batch tables put func_a50 first among ratio's
# rows and the four functions' shares within 2 points of the program's
# figures; its private profile directory (under $TMPDIR) is gone when it
# exits, on SIGINT as on -n; with --callers it collects call chains.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/live/lib.sh"
e2e_need_perf

lockpid=$(cat /var/lib/oprofile/lock 2>/dev/null || true)
if [ -n "$lockpid" ] && kill -0 "$lockpid" 2>/dev/null; then
	fail "a profiler runs on /var/lib/oprofile (pid $lockpid): optop would watch it"
fi
mkdir -p "$E2E_TMP/cwd" "$E2E_TMP/tmp"
cd "$E2E_TMP/cwd"
TMPDIR=$E2E_TMP/tmp "$OPTOP" --batch -d 2 --filter=ratio -l 0 \
	>"$E2E_TMP/optop.out" 2>"$E2E_TMP/optop.err" &
optop=$!
for ((i = 0; i < 50; i++)); do
	ls "$E2E_TMP/tmp" | grep -q '^optop\.' && break
	sleep 0.1
done
ls "$E2E_TMP/tmp" | grep -q '^optop\.' || fail "no private profile directory under \$TMPDIR"
# its profile is running once the first table is out (starting reads
# every process's maps: seconds on a loaded machine under ASan)
for ((i = 0; i < 600; i++)); do
	grep -q "^optop: 1: " "$E2E_TMP/optop.out" && break
	kill -0 $optop 2>/dev/null || { cat "$E2E_TMP/optop.err"; fail "optop exited"; }
	sleep 0.1
done
grep -q "^optop: 1: " "$E2E_TMP/optop.out" || fail "no table within 60 s"
"$WORKLOADS/ratio" 4 >"$E2E_TMP/ratio.out" || fail "ratio workload failed"
sleep 4.5
kill -INT $optop
wait $optop || fail "optop exited $? after SIGINT"
cat "$E2E_TMP/ratio.out" "$E2E_TMP/optop.err"
grep -E "^optop: |func_" "$E2E_TMP/optop.out"
# the status line names optop's own profile and its event, the cpu-clock
# every 250 us (TIMER:250000 in the sample files' spelling)
grep -q "optop's own profile (TIMER:250000" "$E2E_TMP/optop.out" ||
	fail "the status line does not say optop profiles on its own"
[ -z "$(ls -A "$E2E_TMP/tmp")" ] || fail "optop left $(ls -A "$E2E_TMP/tmp") behind"

live_tables "$E2E_TMP/optop.out" >"$E2E_TMP/rows"
first=$(awk '$4 ~ /^func_/ { print $1; exit }' "$E2E_TMP/rows")
[ -n "$first" ] || fail "no table shows ratio's functions"
top=$(awk -v t="$first" '$1 == t { print $4; exit }' "$E2E_TMP/rows")
top2=$(awk -v t="$((first + 1))" '$1 == t { print $4; exit }' "$E2E_TMP/rows")
check "\"$top\" == \"func_a50\" || \"$top2\" == \"func_a50\"" \
	"func_a50 heads ratio's rows within two intervals (table $first: $top, then $top2)"
awk '$4 ~ /^func_/ { print $4, $2 }' "$E2E_TMP/rows" >"$E2E_TMP/counts"
live_judge "$E2E_TMP/counts" "$E2E_TMP/ratio.out" 2

# -n: it stops by itself, and cleans up too
TMPDIR=$E2E_TMP/tmp "$OPTOP" --batch -n 2 -d 0.5 >"$E2E_TMP/optop2.out" 2>&1 ||
	{ cat "$E2E_TMP/optop2.out"; fail "optop --batch -n 2 failed"; }
[ "$(grep -c '^optop: [0-9]*: ' "$E2E_TMP/optop2.out")" = 2 ] || fail "-n 2 did not print two tables"
[ -z "$(ls -A "$E2E_TMP/tmp")" ] || fail "optop -n left $(ls -A "$E2E_TMP/tmp") behind"
# --callers: its own profile collects call chains for them (whatever
# runs: optop itself, the kernel's idle loop), and says so on exit too
TMPDIR=$E2E_TMP/tmp "$OPTOP" --batch -n 3 -d 0.5 -l 5 --callers=2 >"$E2E_TMP/optop3.out" 2>&1 ||
	{ cat "$E2E_TMP/optop3.out"; fail "optop --batch --callers failed"; }
cat "$E2E_TMP/optop3.out"
grep -qE "^ +<- +[0-9]+ +[0-9.]+ " "$E2E_TMP/optop3.out" || fail "no callers in optop's own profile with --callers"
[ -z "$(ls -A "$E2E_TMP/tmp")" ] || fail "optop --callers left $(ls -A "$E2E_TMP/tmp") behind"
echo "ok: optop's own profile"
