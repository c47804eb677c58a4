#!/usr/bin/env bash
# Cgroups from the samples (PERF_SAMPLE_CGROUP, PERF_RECORD_CGROUP):
#   - a process already running in cgroup A when the session starts (it
#     never execs in the session) is named by its samples' cgroup, and
#     when moved to B during the session it is named by B, the move
#     counted (cgroup_moved) and said by opreport and --status;
#   - a process started in a cgroup made after the start is named by it,
#     and the daemon learnt the cgroup from the kernel's record;
#   - with the ids turned off (OPSAMPLER_SAMPLE_CGROUP=0, the way of
#     kernels before 5.7), cgroups are read at exec: the exec'd process is
#     named, the one running since before the start is not (as documented).
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/containers/ctlib.sh"
ct_need
ct_cgroup "opsampler-e2e-$$-a"
A=$CT_CG
ct_cgroup "opsampler-e2e-$$-b"
B=$CT_CG
C=${A%-a}-c
CT_CGROUPS+=("$C")
an=/${A##*/} bn=/${B##*/} cn=/${C##*/}
CGF=$SESSION_DIR/samples/current/stats/cgroups

# run_case ENV: burn in A since before the start, moved to B at half time;
# burn started in C (made after the start) meanwhile
run_case() {
	# long enough to outlive a slow --start; ended once sampled in B
	"$WORKLOADS/burn" -t 60 1 >/dev/null &
	pre=$!
	CT_PIDS+=("$pre")
	echo "$pre" >"$A/cgroup.procs" || fail "cannot move $pre into $A"
	sleep 0.3
	env "$@" "$OPCONTROL" --session-dir="$SESSION_DIR" --setup --no-vmlinux \
		--event="cpu-clock:$ACC_PERIOD" --separate=thread ||
		fail "opcontrol --setup failed"
	env "$@" "$OPCONTROL" --session-dir="$SESSION_DIR" --start || fail "opcontrol --start failed"
	mkdir "$C" || fail "cannot make the cgroup $C"
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -t 2 1' sh "$C" "$WORKLOADS/burn" >/dev/null &
	post=$!
	CT_PIDS+=("$post")
	sleep 1.5
	echo "$pre" >"$B/cgroup.procs" || fail "cannot move $pre into $B"
	wait $post || fail "burn in $C failed"
	sleep 1
	kill "$pre" || fail "burn in $A then $B ended before it was stopped"
	rc=0
	wait "$pre" || rc=$?
	[ $rc -eq 143 ] || fail "burn in $A then $B exited $rc"
	op --status >"$E2E_TMP/status" 2>&1 || true
	acc_stop
	[ -s "$CGF" ] || fail "no stats/cgroups"
	echo "--- stats/cgroups lines of the test's processes:"
	grep -E "^($pre|$post) " "$CGF" || true
}

# last cgroup a line names for PID in stats/cgroups (the reports' answer)
cgroup_of() {
	awk -v p="$1" '$1 == p { c = $3 } END { print c }' "$CGF"
}

run_case
log=$SESSION_DIR/samples/oprofiled.log
grep "cgroups: samples named by their cgroup ids" "$log" ||
	fail "the daemon did not name samples by their cgroup ids (see $log)"
[ "$(cgroup_of "$pre")" = "$bn" ] ||
	fail "the process running since before the start is named '$(cgroup_of "$pre")', not $bn"
grep -q "^$pre 0 $an\$" "$CGF" || fail "its samples in $an before the move are not recorded"
echo "ok: a process running before the start is named by its samples: $an, then $bn"
[ "$(cgroup_of "$post")" = "$cn" ] || fail "the process in $cn is named '$(cgroup_of "$post")'"
made=$(sed -n 's/.* \([0-9]*\) made since.*/\1/p' "$log" | tail -1)
[ "${made:-0}" -ge 1 ] || fail "the cgroup made after the start was not learnt from the kernel's record"
fromproc=$(sed -n 's/.* \([0-9]*\) ids met before either named them.*/\1/p' "$log" | tail -1)
[ "$fromproc" = 0 ] || fail "$fromproc samples' cgroup ids were named through /proc, not by the scan or the kernel's records"
echo "ok: the cgroup made after the start ($made made since, by the kernel's records; none named through /proc)"

moved=$(cat "$SESSION_DIR/samples/current/stats/cgroup_moved" 2>/dev/null || echo missing)
[ "$moved" != missing ] && [ "$moved" -ge 1 ] || fail "cgroup_moved is $moved"
grep -q "Processes moved to another cgroup while sampled (each named by its last): [1-9]" "$E2E_TMP/status" ||
	{ cat "$E2E_TMP/status" >&2; fail "--status does not say a process moved"; }
acc_report "$E2E_TMP/sel" -l "container:${bn#/}" --merge=tid
grep -q "cgroup_moved" "$E2E_TMP/sel.err" ||
	{ cat "$E2E_TMP/sel.err" >&2; fail "opreport does not say a process moved (cgroup_moved)"; }
[ "$(sym_count "$E2E_TMP/sel" burn_loop)" -gt 0 ] || { cat "$E2E_TMP/sel" >&2; fail "container:${bn#/} selects no burn_loop"; }
echo "ok: the move is counted ($moved), said by --status and opreport, and $bn selects the process"

# the other way: ids off, cgroups read at exec
rmdir "$C" 2>/dev/null || true
op --reset >/dev/null 2>&1 || true
run_case OPSAMPLER_SAMPLE_CGROUP=0
grep -q "cgroup ids in samples turned off (OPSAMPLER_SAMPLE_CGROUP=0)" "$log" ||
	fail "OPSAMPLER_SAMPLE_CGROUP=0 did not turn the ids off (see $log)"
[ "$(cgroup_of "$post")" = "$cn" ] || fail "ids off: the process exec'd in $cn is named '$(cgroup_of "$post")'"
[ -z "$(cgroup_of "$pre")" ] || fail "ids off: the process running since before the start is named '$(cgroup_of "$pre")' (it never exec'd)"
echo "ok: with the ids off, the exec'd process is named by /proc at its exec, the one running before is not"
