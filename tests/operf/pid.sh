#!/usr/bin/env bash
# operf --pid on a process already running (tests/workloads/longrun), in
# the background as OProfile's manual says to run it, stopped by SIGINT:
# operf exits 0 having said "Profiling done.", and everything is on disk
# when it has exited (the samples of longrun_spin, the stats, no lock).
# Then --system-wide, stopped the same way.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
. "$top_srcdir/tests/operf/lib.sh"
e2e_need_perf

pids=()
pid_cleanup() {
	local status=$?
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	e2e_cleanup "$status"
}
trap pid_cleanup EXIT

"$WORKLOADS/longrun" 20 >"$E2E_TMP/longrun.out" &
target=$!
pids+=("$target")
# its first line says it runs
for _ in $(seq 100); do [ -s "$E2E_TMP/longrun.out" ] && break; sleep 0.05; done

"$OPERF" --pid "$target" --events=cpu-clock:100000 >"$E2E_TMP/operf.out" 2>"$E2E_TMP/operf.err" &
op=$!
pids+=("$op")
for _ in $(seq 200); do grep -q "Profiler started" "$E2E_TMP/operf.err" && break; sleep 0.05; done
grep -q "Profiler started" "$E2E_TMP/operf.err" || fail "operf --pid did not start"
grep -q "kill -SIGINT $op" "$E2E_TMP/operf.out" || fail "operf --pid did not say how to stop it"
# until longrun has had 1.5 s of CPU (on a busy machine it gets less than
# the wall clock's; its samples follow its CPU time), 30 s at most
cpu_of() { awk -v tck="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f\n", ($12 + $13) / tck }' "/proc/$1/stat"; }
c0=$(cpu_of "$target")
for _ in $(seq 300); do
	awk -v a="$c0" -v b="$(cpu_of "$target")" 'BEGIN { exit !(b - a >= 1.5) }' && break
	sleep 0.1
done
c1=$(cpu_of "$target")
kill -INT "$op"
rc=0
wait "$op" || rc=$?
cat "$E2E_TMP/operf.out" "$E2E_TMP/operf.err"
[ "$rc" -eq 0 ] || fail "operf --pid exited $rc after SIGINT"
grep -qx "Profiling done." "$E2E_TMP/operf.err" || fail "operf --pid did not say Profiling done."
alive "$target" || fail "SIGINT to operf --pid reached the profiled process"

# on disk, with operf gone
[ ! -e "$SESSION_DIR/lock" ] || fail "operf left its lock"
[ -s "$SESSION_DIR/samples/operf.log" ] || fail "no operf.log"
total=$(cat "$SESSION_DIR/samples/current/stats/total_samples")
[ "$total" -gt 0 ] || fail "no samples counted in stats"
operf_report "$E2E_TMP/report" -l
head -8 "$E2E_TMP/report"
spin=$(awk '$NF == "longrun_spin" && $1 ~ /^[0-9]+$/ { print $1 }' "$E2E_TMP/report")
# 10 kHz over the CPU time longrun had while operf ran (ticks of 10 ms:
# a generous floor)
want=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%d", (b - a) * 10000 * 0.7 }')
[ "$want" -ge 7000 ] || fail "longrun had only $c0 -> $c1 s of CPU in 30 s"
[ "${spin:-0}" -ge "$want" ] ||
	fail "longrun_spin has ${spin:-0} samples, fewer than $want (70 % of $c0 -> $c1 s of CPU at 10 kHz)"
others=$(awk '$1 ~ /^[0-9]+$/ && $NF != "longrun_spin" { n += $1 } END { print n + 0 }' "$E2E_TMP/report")
check_share=$(awk -v s="$spin" -v o="$others" 'BEGIN { exit !(s >= 0.9 * (s + o)) }' && echo ok)
[ "$check_share" = ok ] || fail "longrun_spin is $spin of $((spin + others)) samples"
echo "ok: --pid: $spin longrun_spin samples of $((spin + others)), on disk after SIGINT"

# --system-wide, in another session directory, stopped the same way
"$OPERF" -s -d "$E2E_TMP/sys" --events=cpu-clock:100000 >"$E2E_TMP/sys.out" 2>"$E2E_TMP/sys.err" &
op=$!
pids+=("$op")
for _ in $(seq 200); do grep -q "Profiler started" "$E2E_TMP/sys.err" && break; sleep 0.05; done
sleep 1
kill -INT "$op"
rc=0
wait "$op" || rc=$?
cat "$E2E_TMP/sys.err"
[ "$rc" -eq 0 ] || fail "operf --system-wide exited $rc after SIGINT"
"$OPREPORT" --session-dir="$E2E_TMP/sys" >"$E2E_TMP/sys.report" 2>&1 || fail "opreport on the system-wide session failed"
grep -q longrun "$E2E_TMP/sys.report" || fail "--system-wide did not see longrun"
echo "ok: --system-wide sees longrun"
