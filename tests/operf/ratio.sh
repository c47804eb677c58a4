#!/usr/bin/env bash
# operf on tests/workloads/ratio: its four functions' shares in
# `opreport -l image:ratio` on ./oprofile_data are within 1 percentage point
# of the program's own figures (acclib.sh's ratio_judge; 10 kHz for 4 s is
# ~40,000 samples, a standard error of 0.25 points on the 50 % share).
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/operf/lib.sh"
e2e_need_perf

"$OPERF" --events="cpu-clock:$ACC_PERIOD" "$WORKLOADS/ratio" 4 >"$E2E_TMP/ratio.out" 2>"$E2E_TMP/operf.err" ||
	{ cat "$E2E_TMP/operf.err" >&2; fail "operf ratio failed"; }
cat "$E2E_TMP/ratio.out" "$E2E_TMP/operf.err"
grep -qx "Profiling done." "$E2E_TMP/operf.err" || fail "operf did not say Profiling done."
operf_report "$E2E_TMP/report" -l "image:$WORKLOADS/ratio"
grep -q "oprofile_data" "$E2E_TMP/report.err" || fail "opreport did not take ./oprofile_data"
cat "$E2E_TMP/report"
ratio_judge "$E2E_TMP/report" "$E2E_TMP/ratio.out" 1
