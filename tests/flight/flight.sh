#!/usr/bin/env bash
# The flight recorder on this kernel (opcontrol --flight-recorder):
#  - a workload that ended before the window has none of its samples in
#    the snapshot;
#  - a burst of 1,500 short-lived processes (tests/workloads/forker), all
#    exited, then a snapshot: at least 95 % of their samples attributed to
#    child_burn in the forker image (acclib.sh's shortlived_judge, on the
#    window --dump writes into current);
#  - a second snapshot (--snapshot=NAME) holds its own last window: a
#    workload run between the two is in it and not in the first;
#  - SIGUSR2 to oprofiled writes a snapshot under the default name, and
#    --status says the mode and how full the rings are;
#  - what a snapshot's pause loses is counted in the next window that
#    holds the pause (lost_records_by_kernel), not in its own.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
e2e_need_perf

WINDOW=6
op --setup --no-vmlinux --event="cpu-clock:$ACC_PERIOD" --separate=lib,kernel \
	--flight-recorder=$WINDOW || fail "opcontrol --setup --flight-recorder failed"
op --start || fail "opcontrol --start failed"
op --status >"$E2E_TMP/status" || fail "opcontrol --status failed"
cat "$E2E_TMP/status"
grep -q "^Mode: flight recorder, last $WINDOW s" "$E2E_TMP/status" || fail "--status does not say the mode"
grep -q "^Ring fill (cpu:written): 0:" "$E2E_TMP/status" || fail "--status does not say how full the rings are"

# before the window: burn, then more than a window of quiet
"$WORKLOADS/burn" -t 1 1 >/dev/null || fail "burn workload failed"
sleep $((WINDOW + 1))
"$WORKLOADS/forker" 1500 2 >"$E2E_TMP/forker.out" || fail "forker workload failed"
cat "$E2E_TMP/forker.out"
t_first=$(date +%s.%N)
op --dump || fail "opcontrol --dump (a snapshot into current) failed"

acc_report "$E2E_TMP/summary"
acc_report "$E2E_TMP/symbols" -l "image:$WORKLOADS/forker"
head -12 "$E2E_TMP/summary"
shortlived_judge "$E2E_TMP/summary" "$E2E_TMP/symbols" "$E2E_TMP/forker.out"
n=$(app_count "$E2E_TMP/summary" burn)
check "$n == 0" "burn, ended $((WINDOW + 1)) s before the snapshot: $n samples in it"

# between the two snapshots: exec_b, in the second alone
"$WORKLOADS/exec_b" 1 >"$E2E_TMP/exec_b.out" || fail "exec_b workload failed"
op --snapshot=second || fail "opcontrol --snapshot=second failed"
t_second=$(date +%s.%N)
acc_report "$E2E_TMP/second" session:second
n=$(app_count "$E2E_TMP/second" exec_b)
# judged by the CPU exec_b had (a busy machine gives it less than its
# second of wall clock), half of it for what the snapshot's pause loses
cpu=$(awk '$1 == "exec_b:" { print $5 }' "$E2E_TMP/exec_b.out")
check "$n >= 0.5 * $cpu * 1e9 / $ACC_PERIOD" "exec_b: $n samples in the second snapshot, for $cpu s of its CPU"
check "$cpu >= 0.05" "exec_b had $cpu s of CPU (enough to judge by)"
n=$(app_count "$E2E_TMP/summary" exec_b)
check "$n == 0" "exec_b, run after the first snapshot: $n samples in it"
n=$(app_count "$E2E_TMP/second" burn)
check "$n == 0" "burn: $n samples in the second snapshot"
# the pause losses: the first snapshot's came after its window, inside the
# second's (taken less than a window later). The kernel says them through
# PERF_FORMAT_LOST (6.0 on); before it, as a LOST record after the pause
# that the next window reads like any ring loss, and the log says 0.
log=$SESSION_DIR/samples/oprofiled.log
paused=$(sed -n 's|.*snapshot: .* in .*/current, .*, \([0-9]*\) samples lost meanwhile).*|\1|p' "$log" | head -1)
[ -n "$paused" ] || fail "no snapshot line for current in $log"
lost=$(cat "$SESSION_DIR/samples/current/stats/lost_records_by_kernel")
check "$lost == 0" "the first snapshot: lost_records_by_kernel $lost (its pause lost $paused, after its window)"
lost=$(cat "$SESSION_DIR/samples/second/stats/lost_records_by_kernel")
if [ "$paused" -eq 0 ]; then
	echo "note: no pause loss reported (none, or a kernel without PERF_FORMAT_LOST); the second's $lost not judged"
elif awk -v a="$t_first" -v b="$t_second" -v w="$WINDOW" 'BEGIN { exit !(b - a < w - 1) }'; then
	check "$lost == $paused" "the second snapshot: lost_records_by_kernel $lost, the first's pause lost $paused inside its window"
else
	echo "note: the second snapshot came more than a window after the first; its loss ($lost) not judged"
fi
op --snapshot=second 2>"$E2E_TMP/again.err" && fail "a snapshot over a saved session was not refused"
grep -q "already exists" "$E2E_TMP/again.err" || fail "no reason for the refusal: $(cat "$E2E_TMP/again.err")"

# SIGUSR2: the default name
kill -USR2 "$(cat "$SESSION_DIR/lock")"
for _ in $(seq 100); do
	compgen -G "$SESSION_DIR/samples/snapshot-*" >/dev/null && break
	sleep 0.1
done
snap=$(compgen -G "$SESSION_DIR/samples/snapshot-*" | head -1)
[ -n "$snap" ] || fail "SIGUSR2 wrote no snapshot-* session"
# renamed into place whole: its stats are there as soon as it is
[ -f "$snap/stats/total_samples" ] || fail "$snap has no stats"
acc_report "$E2E_TMP/usr2" "session:${snap##*/}"
echo "ok: SIGUSR2 wrote ${snap##*/}"
op --shutdown || fail "opcontrol --shutdown failed"
