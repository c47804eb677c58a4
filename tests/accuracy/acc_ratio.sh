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

ratio_judge "$E2E_TMP/report" "$E2E_TMP/ratio.out" 2
