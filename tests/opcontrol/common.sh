# Sourced by the opcontrol end-to-end tests, after tests/e2e/lib.sh.

DEMO_SPIN=$WORKLOADS/demo_spin

# expect RC TEXT CMD...: run CMD, check its exit status is RC and that its
# output (stdout and stderr together) contains TEXT (a fixed string; empty
# TEXT checks only the status). The output is kept in $OUT.
expect() {
	local want_rc=$1 text=$2 rc=0
	shift 2
	OUT=$("$@" 2>&1) || rc=$?
	if [ "$rc" != "$want_rc" ]; then
		printf '%s\n' "$OUT" >&2
		fail "'$*' exited $rc, expected $want_rc"
	fi
	if [ -n "$text" ] && ! grep -qF -- "$text" <<<"$OUT"; then
		printf '%s\n' "$OUT" >&2
		fail "'$*' did not say: $text"
	fi
	return 0
}

# opc ARGS...: opcontrol on the test's session directory
opc() {
	"$OPCONTROL" --session-dir="$SESSION_DIR" "$@"
}

# A stat of the current session (0 when absent).
stat_of() {
	cat "$SESSION_DIR/samples/current/stats/$1" 2>/dev/null || echo 0
}

# alive PID: the process exists and is not a zombie (the daemon's parent has
# exited, and whoever inherits it may reap it late)
alive() {
	local st
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# On failure, show the end of the daemon's log: most failures here are the
# daemon's story.
fail() {
	echo "FAIL: $*" >&2
	if [ -f "$SESSION_DIR/samples/oprofiled.log" ]; then
		echo "--- last lines of $SESSION_DIR/samples/oprofiled.log:" >&2
		tail -n 25 "$SESSION_DIR/samples/oprofiled.log" >&2
	fi
	if [ -f "$SESSION_DIR/lock" ]; then
		local p
		p=$(cat "$SESSION_DIR/lock")
		alive "$p" && echo "--- oprofiled $p is alive" >&2 || echo "--- oprofiled $p is dead" >&2
	fi
	exit 1
}
