#!/usr/bin/env bash
# opcontrol --pid and --cpu restrict system-wide collection as perf's -p and
# -C do: stored in daemonrc, passed to oprofiled, shown by --status, and
# only the chosen process (its TGID in every sample file's name, with
# --separate=thread) or the chosen CPU (the CPU field, with --separate=cpu)
# is sampled, while another process burns beside it. Wrong values are
# usage errors.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
e2e_need_perf

others=()
restrict_cleanup() {
	local status=$?
	for p in "${others[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -S "$SESSION_DIR/opd_ctl" ] && opc --shutdown >/dev/null 2>&1
	e2e_cleanup "$status"
}
trap restrict_cleanup EXIT

# fields FIELD: that field (4 TGID, 6 CPU) of every sample file's name, one
# per line (EVENT.COUNT.UNITMASK.TGID.TID.CPU; arcs and stats left out)
fields() {
	find "$SESSION_DIR/samples/current" -type f -name '*.*.*.*.*.*' \
		! -path '*/stats/*' ! -path '*{cg}*' -printf '%f\n' |
		awk -F. -v f="$1" '{ print $f }' | sort | uniq -c
}

# ---- usage errors ----
expect 2 "no such process" opc --pid=999999999
expect 2 "not a CPU list" opc --cpu=1-x
expect 2 "does not exist" opc --cpu=4096
expect 2 "does not exist" opc --cpu=0,999
expect 2 "not a number" opc --pid=abc

# ---- --pid ----
"$WORKLOADS/longrun" 30 >"$E2E_TMP/longrun.out" &
target=$!
others+=("$target")
"$WORKLOADS/burn" -t 30 1 >/dev/null &
others+=("$!")
expect 0 "" opc --setup --no-vmlinux --event=cpu-clock:100000 --separate=thread --pid="$target"
grep -qx "PROFILE_PID=$target" "$SESSION_DIR/daemonrc" || fail "--pid is not in daemonrc"
expect 0 "Process: $target" opc --status
expect 0 "" opc --start
expect 0 "Process: $target and its children" opc --status
sleep 1.5
expect 0 "" opc --dump
expect 0 "" opc --shutdown
fields 4 >"$E2E_TMP/tgids"
cat "$E2E_TMP/tgids"
[ -s "$E2E_TMP/tgids" ] || fail "--pid: no sample files"
awk -v p="$target" '$2 != p { bad = 1 } END { exit bad }' "$E2E_TMP/tgids" ||
	fail "--pid=$target: sample files of other processes"
echo "ok: --pid=$target: every sample file is the process's"

# ---- --cpu ----
[ "$(nproc)" -ge 2 ] || { echo "SKIP: --cpu needs two CPUs" >&2; exit 77; }
expect 0 "" opc --reset
expect 0 "" opc --setup --pid=all --cpu=1 --separate=cpu
grep -qx "PROFILE_CPUS=1" "$SESSION_DIR/daemonrc" || fail "--cpu is not in daemonrc"
grep -qx "PROFILE_PID=0" "$SESSION_DIR/daemonrc" || fail "--pid=all did not clear the pid"
expect 0 "" opc --start
expect 0 "CPUs: 1" opc --status
# a burner pinned to each CPU (the first one runs on, wherever it is)
taskset -c 0 "$WORKLOADS/burn" -t 2 1 >/dev/null &
others+=("$!")
taskset -c 1 "$WORKLOADS/burn" -t 2 1 >/dev/null || fail "burn on cpu 1 failed"
expect 0 "" opc --dump
expect 0 "" opc --shutdown
fields 6 >"$E2E_TMP/cpus"
cat "$E2E_TMP/cpus"
[ -s "$E2E_TMP/cpus" ] || fail "--cpu: no sample files"
awk '$2 != 1 { bad = 1 } END { exit bad }' "$E2E_TMP/cpus" ||
	fail "--cpu=1: sample files of another CPU"
echo "ok: --cpu=1: every sample file is CPU 1's"
expect 0 "" opc --setup --cpu=all
grep -qx "PROFILE_CPUS=" "$SESSION_DIR/daemonrc" || fail "--cpu=all did not clear the list"
