#!/usr/bin/env bash
# Known ratio: the four functions of tests/workloads/ratio take about
# 50/30/15/5 % of its CPU time, as the program itself measures with its
# thread CPU clock. Profiled system-wide, each function's share of those four
# functions' samples in `opreport -l image:ratio` must be within 2 percentage
# points of the program's own figure. At 10 kHz for 4 s the standard error of
# a 50 % share is about 0.3 points, so 2 points only fails on a real bias.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
e2e_need_perf

acc_start none
"$WORKLOADS/ratio" 4 >"$E2E_TMP/ratio.out" || fail "ratio workload failed"
acc_stop
cat "$E2E_TMP/ratio.out"
acc_report "$E2E_TMP/report" -l "image:$WORKLOADS/ratio"
cat "$E2E_TMP/report"

total=0
for f in func_a50 func_b30 func_c15 func_d05; do
	total=$((total + $(sym_count "$E2E_TMP/report" $f)))
done
check "$total >= 5000" "$total samples in the four functions (>= 5000 needed for the 2-point test)"
for f in func_a50 func_b30 func_c15 func_d05; do
	n=$(sym_count "$E2E_TMP/report" $f)
	want=$(share_of "$E2E_TMP/ratio.out" $f)
	got=$(awk -v n="$n" -v t="$total" 'BEGIN { printf "%.3f", 100 * n / t }')
	check "$got - $want <= 2 && $want - $got <= 2" "$f: opreport $got %, program $want %"
done
