#!/usr/bin/env bash
# Naming the container: ratio runs in a cgroup of the test's own (under
# the cgroup v2 mount), burn outside it and in a container (unshare,
# chroot), in one session separated by thread.
#   - stats/cgroups has ratio's process in its cgroup, and the container's
#     process marked as seeing another root;
#   - opreport -l container:NAME (the cgroup's name, or its path) reads
#     ratio's samples and no other's, and says which container;
#   - a container no process was in selects nothing;
#   - opexport's pprof carries the container and cgroup labels, read back
#     by go tool pprof -tags.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/containers/ctlib.sh"
ct_need
command -v go >/dev/null || fail "no go (golang-go) for go tool pprof"
CG2=$(findmnt -n -t cgroup2 -o TARGET | head -1)
[ -n "$CG2" ] || fail "no cgroup v2 hierarchy mounted"
name=opsampler-e2e-$$
CG=$CG2/$name
mkdir "$CG" || fail "cannot make the cgroup $CG"
cg_cleanup() {
	local status=$?
	rmdir "$CG" 2>/dev/null
	(exit "$status")
	ct_cleanup
}
trap cg_cleanup EXIT

R=$E2E_TMP/root
ct_root "$R" "$WORKLOADS/burn" /app/burn

acc_start thread
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 2' sh "$CG" "$WORKLOADS/ratio" >"$E2E_TMP/ratio.out" &
r=$!
"$WORKLOADS/burn" -t 2 1 >/dev/null & b=$!
ct_run "$R" /app/burn -t 2 1 >/dev/null & c=$!
wait $r || fail "ratio in $CG failed"
wait $b || fail "burn failed"
wait $c || fail "burn in a container failed"
acc_stop

CGF=$SESSION_DIR/samples/current/stats/cgroups
[ -s "$CGF" ] || fail "no stats/cgroups"
rpid=$(awk '$1 == "ratio:" { print $3 }' "$E2E_TMP/ratio.out")
grep -q "^$rpid 0 /$name\$" "$CGF" || { grep -n "$name" "$CGF" >&2; fail "ratio's process $rpid is not in /$name in stats/cgroups"; }
awk '$2 == 1' "$CGF" | grep -q . || fail "no process seen in another root in stats/cgroups"
echo "ok: stats/cgroups names ratio's cgroup and the container's root"

for sel in "container:$name" "container:/$name"; do
	acc_report "$E2E_TMP/sel" -l "$sel"
	cat "$E2E_TMP/sel"
	grep -q "^Container: $name (cgroup /$name)\$" "$E2E_TMP/sel" || fail "$sel: the report does not name the container"
	[ "$(sym_count "$E2E_TMP/sel" func_a50)" -gt 0 ] || fail "$sel: no func_a50"
	[ "$(sym_count "$E2E_TMP/sel" burn_loop)" -eq 0 ] || fail "$sel: burn's samples (another process) selected"
done
echo "ok: container:NAME and container:PATH select ratio's samples alone"
rc=0
"$OPREPORT" --session-dir="$SESSION_DIR" -l container:no-such-container >"$E2E_TMP/none" 2>&1 || rc=$?
[ $rc -ne 0 ] || { cat "$E2E_TMP/none" >&2; fail "container:no-such-container selected something"; }
echo "ok: an unknown container selects nothing (exit $rc)"

"$top_builddir/pp/opexport" --session-dir="$SESSION_DIR" --format=pprof -o "$E2E_TMP/p.pb.gz" ||
	fail "opexport --format=pprof failed"
go tool pprof -tags "$E2E_TMP/p.pb.gz" >"$E2E_TMP/tags" 2>"$E2E_TMP/tags.err" ||
	{ cat "$E2E_TMP/tags.err" >&2; fail "go tool pprof -tags failed"; }
cat "$E2E_TMP/tags"
awk '/^ *container:/ { on = 1; next } /^ *[a-z]+:/ { on = 0 } on' "$E2E_TMP/tags" | grep -q "$name" ||
	fail "pprof has no container label $name"
awk '/^ *cgroup:/ { on = 1; next } /^ *[a-z]+:/ { on = 0 } on' "$E2E_TMP/tags" | grep -q "/$name" ||
	fail "pprof has no cgroup label /$name"
echo "ok: pprof's container and cgroup labels"
