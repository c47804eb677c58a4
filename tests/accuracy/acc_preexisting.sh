#!/usr/bin/env bash
# A process already running when profiling starts: its mappings can only
# come from /proc/PID/maps. tests/workloads/longrun spins in longrun_spin()
# before opcontrol --start and throughout the session; its samples must be
# attributed to longrun_spin in the longrun image: 80 to 120 % of the
# samples its CPU time during the session stands for (CPU time from
# /proc/PID/stat around the session, one sample per period of it), and at
# least 95 % of the image's samples.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
e2e_need_perf

"$WORKLOADS/longrun" 60 >"$E2E_TMP/longrun.out" &
lpid=$!
longrun_stop() {
	kill -TERM "$lpid" 2>/dev/null || true
	wait "$lpid" 2>/dev/null || true
	acc_cleanup
}
trap longrun_stop EXIT
for _ in $(seq 50); do
	grep -q "pid $lpid" "$E2E_TMP/longrun.out" 2>/dev/null && break
	sleep 0.1
done
grep -q "pid $lpid" "$E2E_TMP/longrun.out" || fail "longrun did not start"
sleep 0.5

acc_start none
c0=$(cpu_seconds "$lpid")
sleep 3
op --stop || fail "opcontrol --stop failed"
c1=$(cpu_seconds "$lpid")
acc_stop
kill -TERM "$lpid"
wait "$lpid" || fail "longrun failed"
cat "$E2E_TMP/longrun.out"

acc_report "$E2E_TMP/report" -l "image:$WORKLOADS/longrun"
cat "$E2E_TMP/report"
n=$(sym_count "$E2E_TMP/report" longrun_spin)
all=$(table_total "$E2E_TMP/report")
want=$(awk -v a="$c0" -v b="$c1" -v p="$ACC_PERIOD" 'BEGIN { printf "%d", (b - a) * 1e9 / p }')
check "$want >= 1000" "longrun used $c0 -> $c1 s of CPU during the session ($want samples' worth)"
check "$n >= 0.8 * $want && $n <= 1.2 * $want" "longrun_spin: $n samples of $want expected"
check "$n >= 0.95 * $all" "longrun_spin: $n of the image's $all samples"
