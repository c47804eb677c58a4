#!/usr/bin/env bash
# Per-CPU separation: tests/workloads/percpu pins a thread running cpu0_work
# to CPU 0 and one running cpu1_work to CPU 1. With --separate=cpu, at least
# 90 % of each function's samples must be in its own CPU's column of
# `opreport -l` (columns: samples % for CPU 0, then for CPU 1).
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
e2e_need_perf
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs two CPUs" >&2; exit 77; }

acc_start cpu
rc=0
"$WORKLOADS/percpu" 3 >"$E2E_TMP/percpu.out" || rc=$?
acc_stop
[ $rc -eq 77 ] && { echo "SKIP: cannot pin threads" >&2; exit 77; }
[ $rc -eq 0 ] || fail "percpu workload failed ($rc)"
cat "$E2E_TMP/percpu.out"
acc_report "$E2E_TMP/report" -l "image:$WORKLOADS/percpu"
cat "$E2E_TMP/report"
grep -q 'Samples on CPU 0' "$E2E_TMP/report" || fail "no per-CPU header in the report"

for cpu in 0 1; do
	f=cpu${cpu}_work
	c0=$(sym_count "$E2E_TMP/report" $f 1)
	c1=$(sym_count "$E2E_TMP/report" $f 3)
	mine=$((cpu == 0 ? c0 : c1))
	check "$c0 + $c1 >= 1000" "$f: $((c0 + c1)) samples (>= 1000)"
	check "$mine >= 0.9 * ($c0 + $c1)" "$f: $mine of $((c0 + c1)) samples on CPU $cpu"
done
