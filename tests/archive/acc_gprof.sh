#!/usr/bin/env bash
# opgprof against GNU gprof and OProfile's opgprof. A flat session of the
# ratio workload: gprof's flat profile of opgprof's gmon.out gives each
# function its share of the program's own clock within 2 points, and opgprof
# says once that there are no arcs. A --callgraph session of cgleaf: gprof's
# call graph has cg_leaf called from cg_via_a and cg_via_b in the program's
# proportions within 3 points. On both, OProfile's opgprof writes the same
# gmon.out, and gprof prints the same for both.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/archive/peer.sh"
e2e_need_perf
command -v gprof >/dev/null || { echo "SKIP: no gprof (binutils)" >&2; exit 77; }
OPGPROF=$top_builddir/pp/opgprof

# same_as_peer GMON BINARY SPEC...: OProfile's opgprof on the session gives
# the same gprof output as ours
same_as_peer() {
	local gmon=$1 bin=$2
	shift 2
	[ -n "$PEER" ] || return 0
	"$PEER/opgprof" --session-dir="$SESSION_DIR" -o "$gmon.peer" "$@" \
		>/dev/null 2>"$gmon.peer.err" || { cat "$gmon.peer.err" >&2; fail "OProfile's opgprof failed"; }
	gprof -b "$bin" "$gmon" >"$gmon.txt" 2>&1
	gprof -b "$bin" "$gmon.peer" >"$gmon.peer.txt" 2>&1
	diff -u "$gmon.peer.txt" "$gmon.txt" || fail "gprof reads OProfile's opgprof and ours differently"
	echo "ok: gprof prints the same for OProfile's gmon.out and ours"
}

# gprof_share FLAT NAME: a function's % time in gprof's flat profile
gprof_share() {
	awk -v s="$2" '$NF == s && $1 ~ /^[0-9.]+$/ { print $1; exit }' "$1"
}

# --- flat: ratio ---
acc_start none
"$WORKLOADS/ratio" 2 >"$E2E_TMP/ratio.out" || fail "ratio workload failed"
acc_stop
cat "$E2E_TMP/ratio.out"
G=$E2E_TMP/ratio.gmon
"$OPGPROF" --session-dir="$SESSION_DIR" -o "$G" "image:$WORKLOADS/ratio" 2>"$G.err" ||
	{ cat "$G.err" >&2; fail "opgprof failed"; }
cat "$G.err"
[ "$(grep -c 'no call-graph arcs' "$G.err")" = 1 ] || fail "opgprof did not say once that there are no arcs"
gprof -b -p "$WORKLOADS/ratio" "$G" >"$G.flat" || fail "gprof cannot read opgprof's gmon.out"
cat "$G.flat"
for f in func_a50 func_b30 func_c15 func_d05; do
	want=$(share_of "$E2E_TMP/ratio.out" "$f")
	got=$(gprof_share "$G.flat" "$f")
	[ -n "$got" ] || fail "gprof's flat profile does not name $f"
	check "$got - $want <= 2 && $want - $got <= 2" "$f: gprof $got %, program $want %"
done
same_as_peer "$G" "$WORKLOADS/ratio" "image:$WORKLOADS/ratio"

# --- call graph: cgleaf ---
rm -rf "$SESSION_DIR"
op --setup --no-vmlinux --event="cpu-clock:$ACC_PERIOD" --callgraph=16 ||
	fail "opcontrol --setup --callgraph=16 failed"
op --start || fail "opcontrol --start failed"
"$WORKLOADS/cgleaf" 2 >"$E2E_TMP/cgleaf.out" || fail "cgleaf workload failed"
acc_stop
cat "$E2E_TMP/cgleaf.out"
G=$E2E_TMP/cgleaf.gmon
"$OPGPROF" --session-dir="$SESSION_DIR" -o "$G" "image:$WORKLOADS/cgleaf" 2>"$G.err" ||
	{ cat "$G.err" >&2; fail "opgprof failed"; }
! grep -q 'no call-graph arcs' "$G.err" || fail "opgprof found no arcs in a --callgraph session"
gprof -b -q "$WORKLOADS/cgleaf" "$G" >"$G.cg" || fail "gprof cannot read opgprof's gmon.out"
# cg_leaf's entry: its callers are the lines above its [N] line
awk '/^-+$/ { n = 0; next } /^\[[0-9]+\]/ { if ($NF ~ /^\[/ && $(NF-1) == "cg_leaf") { for (i = 0; i < n; i++) print l[i]; exit } n = 0; next }
	{ l[n++] = $0 }' "$G.cg" >"$G.callers"
echo "cg_leaf's callers in gprof:"; cat "$G.callers"
# "self children called/total name [N]": the called count before the slash
calls() { awk -v s="$1" '$(NF-1) == s { split($(NF-2), c, "/"); print c[1] + 0 }' "$G.callers"; }
a=$(calls cg_via_a)
b=$(calls cg_via_b)
[ -n "$a" ] && [ -n "$b" ] || fail "gprof's call graph lacks cg_via_a or cg_via_b as a caller of cg_leaf"
want_a=$(share_of "$E2E_TMP/cgleaf.out" via_a)
want_b=$(share_of "$E2E_TMP/cgleaf.out" via_b)
got=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", 100 * a / (a + b) }')
want=$(awk -v a="$want_a" -v b="$want_b" 'BEGIN { printf "%.3f", 100 * a / (a + b) }')
check "$got - $want <= 3 && $want - $got <= 3" "cg_via_a's share of cg_leaf's calls: gprof $got %, program $want %"
same_as_peer "$G" "$WORKLOADS/cgleaf" "image:$WORKLOADS/cgleaf"

# --- refusals ---
"$OPGPROF" --session-dir="$SESSION_DIR" -o "$E2E_TMP/x" >"$E2E_TMP/out" 2>&1 && fail "two binaries accepted"
grep -q "give exactly one" "$E2E_TMP/out" || { cat "$E2E_TMP/out"; fail "no message for several binaries"; }
rc=0
"$OPGPROF" --session-dir="$SESSION_DIR" -o "$E2E_TMP/x" image:/nonexistent >"$E2E_TMP/out" 2>&1 || rc=$?
[ "${rc:-0}" = 4 ] || fail "a spec selecting nothing did not exit 4"
"$OPGPROF" --bogus >"$E2E_TMP/out" 2>&1 && fail "an unknown option accepted"
grep -q "bogus: unknown option" "$E2E_TMP/out" || fail "no message for an unknown option"
[ ! -e "$E2E_TMP/x" ] || fail "a refusal wrote a gmon.out"
echo "PASS: opgprof"
