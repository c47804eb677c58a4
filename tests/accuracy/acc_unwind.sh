#!/usr/bin/env bash
# DWARF unwinding against the program's own clock. tests/workloads/cgqsort
# is built without frame pointers; its leaf, cmp_keys, runs only under
# libc's qsort (qsort_r, msort_with_tmp: no frame pointers either), called
# from sort_big and sort_small, whose time in qsort the program measures.
# Profiled with --callgraph=64 --unwind=dwarf:
#  - --status and opreport say how the chains' user part was found;
#  - at least 95 % of cmp_keys' samples carry chains that reach main
#    (go tool pprof -traces on our pprof export);
#  - the two callers' shares, of qsort_r's callers in opreport -c and of
#    cmp_keys' stacks in the pprof export, are within 2 percentage points
#    of the program's;
#  - tests/workloads/cgleaf, built with frame pointers, in the same
#    session: cg_leaf's callers' shares as acc_callgraph.sh finds them by
#    frame pointers, within 2 points of the program's (the same chains by
#    both methods);
#  - Debian's own python3 (built without frame pointers), running a small
#    loop in the same session: at least 90 % of its samples carry chains
#    through the interpreter (Py_RunMain) to the caller of main
#    (__libc_start_call_main: python's main has no symbol to be named by);
#  - the unwinder's counters are in stats/.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"

OPEXPORT=$top_builddir/pp/opexport
if ! command -v go >/dev/null; then
	if [ "${OPSAMPLER_REQUIRE_PERF:-0}" != 0 ]; then
		echo "FAIL: go is missing (scripts/install-deps.sh installs it)" >&2
		exit 1
	fi
	echo "SKIP: go is missing (scripts/install-deps.sh installs it)" >&2
	exit 77
fi
e2e_need_perf

op --setup --no-vmlinux --event="cpu-clock:$ACC_PERIOD" --callgraph=64 \
	--unwind=dwarf || fail "opcontrol --setup --unwind=dwarf failed"
grep -q '^UNWIND=dwarf,8192$' "$SESSION_DIR/daemonrc" ||
	fail "the daemonrc does not hold UNWIND=dwarf,8192"
op --start || fail "opcontrol --start failed"
"$WORKLOADS/cgqsort" 4 >"$E2E_TMP/cgqsort.out" || fail "cgqsort workload failed"
"$WORKLOADS/cgleaf" 2 >"$E2E_TMP/cgleaf.out" || fail "cgleaf workload failed"
PYTHON=$(readlink -f /usr/bin/python3)
[ -x "$PYTHON" ] || fail "no /usr/bin/python3 (Debian's python3 package)"
/usr/bin/python3 -c '
import time
end = time.process_time() + 2
x = 0
while time.process_time() < end:
    for i in range(10000):
        x += i * i
' || fail "python3 failed"
op --status >"$E2E_TMP/status" || fail "opcontrol --status failed"
cat "$E2E_TMP/status"
grep -q "^Call chains: depth 64, user part by DWARF unwinding of 8192-byte stack copies" "$E2E_TMP/status" ||
	fail "--status does not say how the chains were unwound"
grep -q "^Unwinding: [0-9]* user stacks" "$E2E_TMP/status" ||
	fail "--status does not give the unwinder's figures"
acc_stop
cat "$E2E_TMP/cgqsort.out"
acc_report "$E2E_TMP/report" -c
grep -q "^NOTE: call chains were collected, to a depth of 64: opreport -c shows them (user part by DWARF unwinding of 8192-byte stack copies)$" "$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; fail "opreport does not say how the chains were unwound"; }
for c in unwind_no_cfi unwind_short_stack unwind_bad_frame unwind_done unwind_walks; do
	[ -f "$SESSION_DIR/samples/current/stats/$c" ] || fail "no stats/$c"
done
[ "$(stats_value unwind_stack_bytes)" = 8192 ] || fail "stats/unwind_stack_bytes is not 8192"

# opreport -c: qsort_r's callers
# (the workload's own qsort_r: another program sorting meanwhile, a
# system-wide session records it too)
cg_block "$E2E_TMP/report" qsort_r callers cgqsort >"$E2E_TMP/qsort.callers"
echo "qsort_r's callers:"; cat "$E2E_TMP/qsort.callers"
big=$(awk '$3 == "sort_big" { n += $1 } END { print n + 0 }' "$E2E_TMP/qsort.callers")
small=$(awk '$3 == "sort_small" { n += $1 } END { print n + 0 }' "$E2E_TMP/qsort.callers")
check "$big + $small >= 2000" "$big + $small samples of qsort_r through its callers (>= 2000 needed for the 2-point test)"
pair_judge "$big" "$small" "$E2E_TMP/cgqsort.out" sort_big sort_small "sort_big's share of qsort_r: opreport -c"

# pprof: cmp_keys' stacks, innermost first
"$OPEXPORT" --session-dir="$SESSION_DIR" -o "$E2E_TMP/cg.pb.gz" \
	"image:$WORKLOADS/cgqsort" 2>"$E2E_TMP/export.err" ||
	{ cat "$E2E_TMP/export.err" >&2; fail "opexport of the session failed"; }
go tool pprof -sample_index=samples -traces "$E2E_TMP/cg.pb.gz" \
	>"$E2E_TMP/traces.raw" 2>"$E2E_TMP/pprof.err" ||
	{ cat "$E2E_TMP/pprof.err" >&2; fail "go tool pprof -traces failed"; }
awk '/^-----------\+/ { if (n) print line; n = 0; next }
     /^ *[0-9]+ / && !n { line = $1; sub(/^ *[0-9]+ +/, ""); n = 1 }
     n { sub(/^ +/, ""); line = line "\t" $0 }
     END { if (n) print line }' "$E2E_TMP/traces.raw" >"$E2E_TMP/traces"
sort -t"$(printf '\t')" -k1,1nr "$E2E_TMP/traces" | awk 'NR <= 5'
read -r leaf main pbig psmall < <(awk -F'\t' '$2 == "cmp_keys" {
		leaf += $1; m = b = s = 0
		for (i = 3; i <= NF; i++) {
			if ($i == "main") m = 1
			if ($i == "sort_big") b = 1
			if ($i == "sort_small") s = 1
		}
		if (m) main += $1
		if (m && b) big += $1
		if (m && s) small += $1
	} END { print leaf + 0, main + 0, big + 0, small + 0 }' "$E2E_TMP/traces")
echo "cmp_keys: $leaf samples, $main reach main ($pbig via sort_big, $psmall via sort_small)"
check "$leaf >= 2000" "$leaf samples of cmp_keys (>= 2000 needed)"
check "$main >= 0.95 * $leaf" "$main of cmp_keys' $leaf samples reach main (>= 95 %)"
pair_judge "$pbig" "$psmall" "$E2E_TMP/cgqsort.out" sort_big sort_small "sort_big's share of cmp_keys: pprof"

# what could not be finished, for the log (the whole machine's: other
# processes' too, so not judged)
echo "unwinder: walks $(stats_value unwind_walks) done $(stats_value unwind_done)" \
	"no_cfi $(stats_value unwind_no_cfi) short_stack $(stats_value unwind_short_stack)" \
	"bad_frame $(stats_value unwind_bad_frame) lost_bt_no_mapping $(stats_value lost_bt_no_mapping)"

# python3: its stacks, through the interpreter to the caller of main
"$OPEXPORT" --session-dir="$SESSION_DIR" -o "$E2E_TMP/py.pb.gz" "image:$PYTHON" \
	2>"$E2E_TMP/export.err" ||
	{ cat "$E2E_TMP/export.err" >&2; fail "opexport of python3's samples failed"; }
go tool pprof -sample_index=samples -traces "$E2E_TMP/py.pb.gz" \
	>"$E2E_TMP/py.raw" 2>"$E2E_TMP/pprof.err" ||
	{ cat "$E2E_TMP/pprof.err" >&2; fail "go tool pprof -traces failed on python3's"; }
awk '/^-----------\+/ { if (n) print line; n = 0; next }
     /^ *[0-9]+ / && !n { line = $1; sub(/^ *[0-9]+ +/, ""); n = 1 }
     n { sub(/^ +/, ""); line = line "\t" $0 }
     END { if (n) print line }' "$E2E_TMP/py.raw" >"$E2E_TMP/py.traces"
sort -t"$(printf '\t')" -k1,1nr "$E2E_TMP/py.traces" | awk 'NR <= 3'
read -r all through < <(awk -F'\t' '{
		all += $1; r = 0; m = 0
		for (i = 2; i <= NF; i++) {
			if ($i == "Py_RunMain") r = 1
			if ($i == "__libc_start_call_main") m = 1
		}
		if (r && m) through += $1
	} END { print all + 0, through + 0 }' "$E2E_TMP/py.traces")
check "$all >= 500" "$all samples of python3 (>= 500 needed)"
check "$through >= 0.9 * $all" "$through of python3's $all samples reach main through Py_RunMain (>= 90 %)"

# cgleaf (frame pointers): the same callers by DWARF unwinding
cg_block "$E2E_TMP/report" cg_leaf callers >"$E2E_TMP/leaf.callers"
echo "cg_leaf's callers:"; cat "$E2E_TMP/leaf.callers"
a=$(awk '$3 == "cg_via_a" { n += $1 } END { print n + 0 }' "$E2E_TMP/leaf.callers")
b=$(awk '$3 == "cg_via_b" { n += $1 } END { print n + 0 }' "$E2E_TMP/leaf.callers")
check "$a + $b >= 2000" "$a + $b samples of cg_leaf through its callers (>= 2000 needed)"
pair_judge "$a" "$b" "$E2E_TMP/cgleaf.out" via_a via_b "cg_via_a's share of cg_leaf, DWARF-unwound: opreport -c"
