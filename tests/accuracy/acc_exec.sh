#!/usr/bin/env bash
# exec: tests/workloads/exec_a burns in before_exec(), then execs exec_b,
# which burns in after_exec(): one pid, two images in turn. Each image's
# samples must land on that image: at least 95 % of exec_a's samples in
# before_exec and of exec_b's in after_exec, and the split between the two
# within 5 points of the CPU time each program measured (samples of exec_a
# resolved against exec_b's mappings, or the reverse, would break both).
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
e2e_need_perf

acc_start none
"$WORKLOADS/exec_a" 2 "$WORKLOADS/exec_b" >"$E2E_TMP/exec.out" || fail "exec workload failed"
acc_stop
cat "$E2E_TMP/exec.out"
ta=$(awk '$1 == "exec_a:" { print $5 }' "$E2E_TMP/exec.out")
tb=$(awk '$1 == "exec_b:" { print $5 }' "$E2E_TMP/exec.out")
[ -n "$ta" ] && [ -n "$tb" ] || fail "the workload did not print its times"

acc_report "$E2E_TMP/a" -l "image:$WORKLOADS/exec_a"
acc_report "$E2E_TMP/b" -l "image:$WORKLOADS/exec_b"
cat "$E2E_TMP/a" "$E2E_TMP/b"
na=$(sym_count "$E2E_TMP/a" before_exec)
nb=$(sym_count "$E2E_TMP/b" after_exec)
alla=$(table_total "$E2E_TMP/a")
allb=$(table_total "$E2E_TMP/b")
# judged by the CPU each side had (a busy machine gives them less than
# their wall-clock seconds): at least half of what it stands for
check "$ta >= 0.1 && $tb >= 0.1" "before_exec had $ta s of CPU, after_exec $tb s (enough to judge by)"
check "$na >= 0.5 * $ta * 1e9 / $ACC_PERIOD && $nb >= 0.5 * $tb * 1e9 / $ACC_PERIOD" \
	"before_exec $na samples for $ta s of CPU, after_exec $nb for $tb s"
check "$na >= 0.95 * $alla" "exec_a: $na of its $alla samples in before_exec"
check "$nb >= 0.95 * $allb" "exec_b: $nb of its $allb samples in after_exec"
check "(100 * $na / ($na + $nb)) - (100 * $ta / ($ta + $tb)) <= 5 && (100 * $ta / ($ta + $tb)) - (100 * $na / ($na + $nb)) <= 5" \
	"before/after split: samples $na/$nb, CPU time $ta/$tb s"
