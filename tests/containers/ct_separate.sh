#!/usr/bin/env bash
# Reports split by container, and containers' own pids. Two containers
# (unshare --mount --pid --fork, chroot), each in a cgroup of the test's
# own: C1 runs ratio, C2 burn with two threads; the host runs burn too.
#   --separate=container: opreport's columns are containers, named with
#     their cgroups, ratio's functions in C1's column alone, burn's in
#     C2's and the host's; container:NAME selects one; the folded stacks
#     start at a container frame; OProfile 1.4's opreport reads the
#     session (one process a file).
#   --separate=thread: a process's and a thread's column say the pid
#     and tid they have in their own PID namespace, beside the host's.
. "$top_srcdir/tests/interop/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/containers/ctlib.sh"
ct_need
interop_need_peer

OPEXPORT=$top_builddir/pp/opexport
R=$E2E_TMP/roots
ct_cgroup "ct1-$$"
CG1=$CT_CG n1=ct1-$$
ct_cgroup "ct2-$$"
CG2=$CT_CG n2=ct2-$$
ct_root "$R/c1" "$WORKLOADS/ratio" /app/prog
ct_root "$R/c2" "$WORKLOADS/burn" /app/prog

# run_all: C1, C2 and the host, at once
run_all() {
	local p1 p2 p3
	ct_run_in "$CG1" "$R/c1" /app/prog 2 >"$E2E_TMP/ratio.out" & p1=$!
	ct_run_in "$CG2" "$R/c2" /app/prog -t 2 2 >/dev/null & p2=$!
	"$WORKLOADS/burn" -t 2 1 >/dev/null & p3=$!
	wait $p1 || fail "ratio in C1 failed"
	wait $p2 || fail "burn in C2 failed"
	wait $p3 || fail "burn on the host failed"
}

# col_of REPORT NAME: the column (from 0) of container NAME in a report
# split by container, from its "Samples in container" lines
col_of() {
	awk -v n="$2" '/^Samples in container / { if ($4 == n) { print i; exit } i++ }' "$1"
}
# count_in REPORT SYMBOL COL: SYMBOL's samples in column COL of opreport -l
count_in() {
	awk -v s="$2" -v c="$3" '$NF == s && $1 ~ /^[0-9]+$/ { n += $(2 * c + 1) }
		END { print n + 0 }' "$1"
}

acc_start container
run_all
acc_stop

CGF=$SESSION_DIR/samples/current/stats/cgroups
[ -n "$(find "$SESSION_DIR/samples/current" -name '*.all.all' ! -name '*.all.all.all' -print -quit)" ] ||
	fail "no sample file separated by process alone (TGID.all.all)"
acc_report "$E2E_TMP/sum"
acc_report "$E2E_TMP/sym" -l
grep "^Samples in container " "$E2E_TMP/sym"
grep -q "^Samples in container $n1 (cgroup /$n1)\$" "$E2E_TMP/sym" || fail "no column for C1"
grep -q "^Samples in container $n2 (cgroup /$n2)\$" "$E2E_TMP/sym" || fail "no column for C2"
grep -q "^Samples in container $n1 " "$E2E_TMP/sum" || fail "the summary has no column for C1"
c1=$(col_of "$E2E_TMP/sym" "$n1")
c2=$(col_of "$E2E_TMP/sym" "$n2")
a1=$(count_in "$E2E_TMP/sym" func_a50 "$c1")
a2=$(count_in "$E2E_TMP/sym" func_a50 "$c2")
b1=$(count_in "$E2E_TMP/sym" burn_loop "$c1")
b2=$(count_in "$E2E_TMP/sym" burn_loop "$c2")
echo "func_a50: $a1 in C1, $a2 in C2; burn_loop: $b1 in C1, $b2 in C2"
[ "$a1" -gt 0 ] && [ "$a2" -eq 0 ] || fail "ratio's func_a50 is not in C1's column alone"
[ "$b2" -gt 0 ] && [ "$b1" -eq 0 ] || fail "burn_loop is not in C2's column and out of C1's"
# the host's burn: in a column of its own, outside both containers
awk -v s=burn_loop '$NF == s && $1 ~ /^[0-9]+$/' "$E2E_TMP/sym" >"$E2E_TMP/burn-rows"
ncols=$(grep -c "^Samples in container " "$E2E_TMP/sym")
others=$(awk -v a="$c1" -v b="$c2" -v nc="$ncols" '{ for (c = 0; c < nc; c++)
	if (c != a && c != b) n += $(2 * c + 1) } END { print n + 0 }' "$E2E_TMP/burn-rows")
[ "$others" -gt 0 ] || fail "the host's burn_loop is in no column of its own (rows: $(cat "$E2E_TMP/burn-rows"))"
echo "ok: --separate=container: C1's, C2's and the host's samples in their own columns"

acc_report "$E2E_TMP/sel" -l "container:$n1"
grep -q "^Container: $n1 (cgroup /$n1)\$" "$E2E_TMP/sel" || fail "container:$n1 does not name it"
[ "$(sym_count "$E2E_TMP/sel" func_a50)" -gt 0 ] || fail "container:$n1: no func_a50"
[ "$(sym_count "$E2E_TMP/sel" burn_loop)" -eq 0 ] || fail "container:$n1: burn's samples selected"
acc_report "$E2E_TMP/merged" -l --merge=container
grep -q "^Samples in container" "$E2E_TMP/merged" && fail "--merge=container still splits by container"
echo "ok: container:NAME selects one container, --merge=container none"

"$OPEXPORT" --session-dir="$SESSION_DIR" --format=folded -o "$E2E_TMP/folded" ||
	fail "opexport --format=folded failed"
grep -q "^container:$n1;.*func_a50 [0-9]*\$" "$E2E_TMP/folded" ||
	{ grep func_a50 "$E2E_TMP/folded" >&2; fail "ratio's folded stacks do not start at container:$n1"; }
grep -q "^container:$n2;.*burn_loop [0-9]*\$" "$E2E_TMP/folded" ||
	fail "C2's folded stacks do not start at container:$n2"
grep "func_a50" "$E2E_TMP/folded" | grep -v "^container:$n1;" && fail "a func_a50 stack outside container:$n1"
echo "ok: folded stacks start at their container"

"$PEER/opreport" --session-dir="$SESSION_DIR" -l >"$E2E_TMP/peer" 2>"$E2E_TMP/peer.err" ||
	{ cat "$E2E_TMP/peer.err" >&2; fail "OProfile's opreport failed on a session separated by container"; }
grep -q " func_a50\$" "$E2E_TMP/peer" || fail "OProfile's opreport -l has no func_a50"
echo "ok: OProfile 1.4's opreport reads it (one process a file)"

# --separate=thread: pids in their own namespaces
op --save=bycontainer || fail "opcontrol --save failed"
acc_start thread
run_all
acc_stop
p1=$(awk '$2 == 1 && $3 == "/'"$n1"'" { p = $1 } END { print p }' "$CGF")
p2=$(awk '$2 == 1 && $3 == "/'"$n2"'" { p = $1 } END { print p }' "$CGF")
[ -n "$p1" ] && [ -n "$p2" ] || { cat "$CGF" >&2; fail "no process of C1 or C2 in stats/cgroups"; }
grep -q "^ns $p1 1\$" "$CGF" || { grep "^ns" "$CGF" >&2; fail "ratio's pid 1 in C1 is not recorded for $p1"; }
acc_report "$E2E_TMP/procs" -l --merge=tid "tgid:$p1,$p2"
grep "^Processes with" "$E2E_TMP/procs"
grep -q "^Processes with a thread group ID of $p1 (pid 1 in container $n1)\$" "$E2E_TMP/procs" ||
	fail "ratio's process is not shown with its pid 1 in $n1"
grep -q "^Processes with a thread group ID of $p2 (pid [0-9]* in container $n2)\$" "$E2E_TMP/procs" ||
	fail "C2's burn is not shown with its pid in $n2"
acc_report "$E2E_TMP/threads" -l "tgid:$p2"
grep "^Processes with" "$E2E_TMP/threads"
awk '/^Processes with a thread ID of [0-9]+ \(tid [0-9]+ in container / {
	if ($7 != $9) ok++ } END { exit !ok }' \
	"$E2E_TMP/threads" || fail "burn's threads in C2 are not shown with their own tids"
echo "ok: --separate=thread: pids and tids in the containers beside the host's"
echo "nspid_unread: $(stats_value nspid_unread) (threads gone before the sync learnt of them)"
