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
#    header with its value.
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

# the loss counters in the header
stats=$SESSION_DIR/samples/current/stats
shown=0
for f in "$stats"/* "$stats"/cpu*/*; do
	[ -f "$f" ] || continue
	name=${f##*/}
	case $name in
	*lost*|bad_escape) ;;
	*) continue ;;
	esac
	v=$(cat "$f")
	[ "$v" -gt 0 ] 2>/dev/null || continue
	# per-CPU counters may be shown summed; the total of the name must appear
	sum=0
	for g in "$stats/$name" "$stats"/cpu*/"$name"; do
		[ -f "$g" ] && sum=$((sum + $(cat "$g")))
	done
	sed -n '/samples|/q;p' "$E2E_TMP/summary" | grep -Eq "$name.*\\b($v|$sum)\\b" ||
		fail "loss counter $name = $v is not in opreport's header"
	shown=$((shown + 1))
done
echo "ok: $shown non-zero loss counters, each in the header:"
sed -n '1,/samples|/p' "$E2E_TMP/summary" | grep -i -E 'lost|loss|escape|dropped' || true
