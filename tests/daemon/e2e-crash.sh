#!/usr/bin/env bash
# Crash safety and the lock: a daemonised oprofiled (the parent exits 0 only
# once the child is ready) is killed with SIGKILL at several moments of a
# busy run; every sample file left behind must open read-only, and a new
# daemon must take the stale lock over. A second daemon on a live session
# refuses, naming the running pid.
. "$top_srcdir/tests/e2e/lib.sh"
e2e_need_perf

CTL=$top_builddir/tests/daemon/ctl-client
SFCHECK=$top_builddir/tests/daemon/sfcheck
SPIN=$top_builddir/tests/daemon/spin
SOCK=$SESSION_DIR/opd_ctl
CUR=$SESSION_DIR/samples/current

start_daemon() {
	"$OPROFILED" --session-dir="$SESSION_DIR" --events=default --separate-thread=1 \
		2>"$E2E_TMP/start.err" || fail "daemon did not start: $(cat "$E2E_TMP/start.err")"
	[ -S "$SOCK" ] || fail "parent exited before the socket existed"
	DPID=$(cat "$SESSION_DIR/lock")
	kill -0 "$DPID" || fail "lock pid $DPID is not alive"
}

start_daemon
# a second daemon on the same directory refuses and names the first
if "$OPROFILED" --session-dir="$SESSION_DIR" --events=default 2>"$E2E_TMP/second.err"; then
	fail "a second daemon started on a live session"
fi
grep -q "already running on $SESSION_DIR (pid $DPID)" "$E2E_TMP/second.err" ||
	fail "second daemon's message: $(cat "$E2E_TMP/second.err")"
kill -0 "$DPID" || fail "the first daemon died when the second one was refused"

for round in 1 2 3 4; do
	"$CTL" "$SOCK" start >/dev/null || fail "start refused (round $round)"
	# many short processes: files are being created when the kill lands
	for _ in $(seq 8); do "$SPIN" 0.05 >/dev/null & done
	"$SPIN" 0.3 >/dev/null
	[ "$round" -gt 1 ] || "$CTL" "$SOCK" dump >/dev/null || fail "dump refused"
	sleep "0.$((round * 2))"
	kill -KILL "$DPID"
	wait 2>/dev/null || true
	# SIGKILL is asynchronous: wait until the process is gone or a zombie
	for _ in $(seq 50); do
		st=$(awk '{ print $3 }' "/proc/$DPID/stat" 2>/dev/null || echo gone)
		case $st in Z|X|gone) break ;; esac
		sleep 0.1
	done
	"$SFCHECK" "$CUR" > "$E2E_TMP/files" || fail "round $round: a sample file left by SIGKILL does not open"
	[ -s "$E2E_TMP/files" ] || fail "round $round: no sample files at all"
	[ -e "$SESSION_DIR/lock" ] || fail "the lock vanished with SIGKILL?"
	# --status of the dead daemon's session counts what its files hold,
	# not its last stats (older than the kill)
	want=$(awk '{ n += $1 } END { print n + 0 }' "$E2E_TMP/files")
	"$top_builddir/daemon/opcontrol" --session-dir="$SESSION_DIR" --status >"$E2E_TMP/status" 2>&1 || true
	grep -qx "Samples in current: $want" "$E2E_TMP/status" ||
		{ cat "$E2E_TMP/status" >&2; fail "round $round: --status does not count the files' $want samples"; }
	start_daemon	# takes the stale lock over
done
"$CTL" "$SOCK" start >/dev/null || fail "start after restart refused"
"$SPIN" 0.3 >/dev/null
"$CTL" "$SOCK" shutdown >/dev/null || fail "shutdown refused"
for _ in $(seq 50); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$DPID" 2>/dev/null && fail "daemon still alive 5 s after shutdown"
[ ! -e "$SESSION_DIR/lock" ] || fail "lock left after shutdown"
"$SFCHECK" "$CUR" > "$E2E_TMP/files" || fail "a sample file does not open after the final run"
echo "PASS: $(wc -l < "$E2E_TMP/files") sample files consistent after 4 SIGKILLs"
