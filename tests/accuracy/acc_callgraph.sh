#!/usr/bin/env bash
# Call graphs against the program's own clock: in tests/workloads/cgleaf one
# leaf, cg_leaf, is reached through cg_via_a and cg_via_b, which spend about
# 70 % and 30 % of its time in it as the program measures. Profiled with
# --callgraph, the two callers' shares of the leaf's callers in
# `opreport -c` must be within 2 percentage points of the program's. And
# cg_syscalls, which spends its time in the kernel (read of /dev/zero by its
# own syscall instruction), must have that kernel time under it: its
# callees in the kernel hold at least half the samples its share of the
# program's time stands for.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
e2e_need_perf

op --setup --no-vmlinux --event="cpu-clock:$ACC_PERIOD" --callgraph=32 ||
	fail "opcontrol --setup --callgraph=32 failed"
op --start || fail "opcontrol --start failed"
"$WORKLOADS/cgleaf" 4 >"$E2E_TMP/cgleaf.out" || fail "cgleaf workload failed"
# --status and the report say that chains are collected, and how deep
op --status >"$E2E_TMP/status" || fail "opcontrol --status failed"
grep -q "^Call chains: depth 32" "$E2E_TMP/status" ||
	{ cat "$E2E_TMP/status" >&2; fail "--status does not say the call-chain depth"; }
acc_stop
cat "$E2E_TMP/cgleaf.out"
acc_report "$E2E_TMP/report" -c
grep -q "^NOTE: call chains were collected, to a depth of 32: opreport -c shows them (user part by frame pointers)$" "$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; fail "opreport does not say the call-chain depth"; }
acc_report "$E2E_TMP/flat" -l "image:$WORKLOADS/cgleaf"
[ "$(stats_value callgraph_chains_lost)" = 0 ] || fail "the chain store lost chains"
# the kernel named from the session's saved symbols and order of names
# gives the text /proc/kallsyms gives (its order of ties is OProfile's)
[ -s "$SESSION_DIR/samples/current/stats/kallsyms.order" ] ||
	fail "no stats/kallsyms.order in a stopped call-graph session"
acc_report "$E2E_TMP/report.proc" -c --kallsyms=/proc/kallsyms
diff "$E2E_TMP/report.proc" "$E2E_TMP/report" >"$E2E_TMP/report.diff" ||
	{ head -20 "$E2E_TMP/report.diff" >&2; fail "opreport -c from the saved kernel symbols differs from /proc/kallsyms"; }

cg_block "$E2E_TMP/report" cg_leaf callers >"$E2E_TMP/leaf.callers"
cg_block "$E2E_TMP/report" cg_syscalls callees >"$E2E_TMP/sys.callees"
echo "cg_leaf's callers:"; cat "$E2E_TMP/leaf.callers"
echo "cg_syscalls' callees:"; cat "$E2E_TMP/sys.callees"

a=$(awk '$3 == "cg_via_a" { n += $1 } END { print n + 0 }' "$E2E_TMP/leaf.callers")
b=$(awk '$3 == "cg_via_b" { n += $1 } END { print n + 0 }' "$E2E_TMP/leaf.callers")
check "$a + $b >= 2000" "$a + $b samples of cg_leaf through its callers (>= 2000 needed for the 2-point test)"
pair_judge "$a" "$b" "$E2E_TMP/cgleaf.out" via_a via_b "cg_via_a's share of cg_leaf: opreport -c"

kernel=$(awk -v re="$ACC_KERNEL_RE" '$2 ~ re { n += $1 } END { print n + 0 }' "$E2E_TMP/sys.callees")
total=0
for f in cg_leaf cg_via_a cg_via_b cg_syscalls main; do
	total=$((total + $(sym_count "$E2E_TMP/flat" $f)))
done
want_sys=$(share_of "$E2E_TMP/cgleaf.out" syscalls)
# the kernel's samples are the session's, the program's flat samples are
# its user time: the syscalls' share of the whole is share / (100 - share)
# of the user samples
expect=$(awk -v t="$total" -v s="$want_sys" 'BEGIN { printf "%d", t * s / (100 - s) }')
check "$kernel >= 0.5 * $expect" "cg_syscalls' kernel callees hold $kernel samples; its time stands for about $expect"
