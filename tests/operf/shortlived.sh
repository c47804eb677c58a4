#!/usr/bin/env bash
# operf on tests/workloads/forker: 1,500 children of ~2 ms each, followed
# through fork by the events operf opens on the command; at least 95 % of
# their user-mode samples are child_burn's, and none vanished
# (acclib.sh's shortlived_judge). operf files every sample under its
# application, as --separate=lib,kernel does.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/operf/lib.sh"
e2e_need_perf

"$OPERF" --events="cpu-clock:$ACC_PERIOD" "$WORKLOADS/forker" 1500 2 >"$E2E_TMP/forker.out" 2>"$E2E_TMP/operf.err" ||
	{ cat "$E2E_TMP/operf.err" >&2; fail "operf forker failed"; }
cat "$E2E_TMP/forker.out" "$E2E_TMP/operf.err"
operf_report "$E2E_TMP/summary"
operf_report "$E2E_TMP/symbols" -l "image:$WORKLOADS/forker"
head -20 "$E2E_TMP/symbols"
shortlived_judge "$E2E_TMP/summary" "$E2E_TMP/symbols" "$E2E_TMP/forker.out"
