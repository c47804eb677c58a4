#!/usr/bin/env bash
# Short-lived processes: tests/workloads/forker forks 1,500 children that
# each burn ~2 ms in child_burn() and exit, the case where a profiler that
# resolves addresses late has lost the process's mappings. With
# --separate=lib,kernel (so the kernel's part stays under the app):
#  - at least 95 % of the app's user-mode samples (all its images but the
#    kernel; the parent's calib_burn left out), plus every sample the run
#    lost for want of a mapping, are child_burn samples in the forker image,
#    not unknown, anonymous or lost;
#  - the app's samples are at least 90 % of what the children's measured CPU
#    time (user + system, RUSAGE_CHILDREN) stands for, so samples did not
#    vanish without a counter;
#  - every loss counter the run's stats show non-zero is in opreport's
#    loss summary (stderr) with its value.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
e2e_need_perf

acc_start lib,kernel
"$WORKLOADS/forker" 1500 2 >"$E2E_TMP/forker.out" || fail "forker workload failed"
acc_stop
cat "$E2E_TMP/forker.out"
acc_report "$E2E_TMP/summary"
acc_report "$E2E_TMP/symbols" -l "image:$WORKLOADS/forker"
head -20 "$E2E_TMP/symbols"

shortlived_judge "$E2E_TMP/summary" "$E2E_TMP/symbols" "$E2E_TMP/forker.out"

# the loss counters in opreport's loss summary (stderr, after OProfile's
# own warnings): every sample-loss counter the stats show non-zero, with
# its value; the per-CPU sample_lost_overflow files are the breakdown of
# lost_records_by_kernel and show as that
stats=$SESSION_DIR/samples/current/stats
shown=0
for f in "$stats"/* "$stats"/cpu*/*; do
	[ -f "$f" ] || continue
	name=${f##*/}
	case $name in
	lost_bt_*|callgraph_*) continue ;;	# frames and chains, not samples
	*lost*|bad_escape) ;;
	*) continue ;;
	esac
	v=$(cat "$f")
	[ "$v" -gt 0 ] 2>/dev/null || continue
	if [ "$name" = sample_lost_overflow ]; then
		name=lost_records_by_kernel
		v=$(stats_value lost_records_by_kernel)
	fi
	grep -Eq "^WARNING: .* were lost while profiling:.* $name $v(,|\$)" "$E2E_TMP/summary.err" || {
		cat "$E2E_TMP/summary.err" >&2
		fail "loss counter $name = $v is not in opreport's loss summary"
	}
	shown=$((shown + 1))
done
echo "ok: $shown non-zero loss counters, each in the loss summary:"
grep "were lost while profiling" "$E2E_TMP/summary.err" || true
