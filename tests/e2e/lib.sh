# Sourced by the end-to-end shell tests. Gives them the built programs, a
# fresh session directory removed on exit, and the skip/fail rule for tests
# that need the kernel's perf_event_open, which also take turns.
set -euo pipefail
# A command that fails outside a check ends the test under set -e; say which
# (an inherit.sh run in CI ended with no word of why), in a function too
# (set -E). Under set +e it ends nothing and says nothing.
set -E
trap 'e2e_rc=$?; [[ $- != *e* ]] || echo "FAIL: line $LINENO of ${BASH_SOURCE[0]##*/}: \"$BASH_COMMAND\" exited $e2e_rc" >&2' ERR

: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
OPCONTROL=$top_builddir/daemon/opcontrol
OPROFILED=$top_builddir/daemon/oprofiled
OPHELP=$top_builddir/daemon/ophelp
OPREPORT=$top_builddir/pp/opreport
WORKLOADS=$top_builddir/tests/workloads
export PATH="$top_builddir/daemon:$top_builddir/pp:$PATH"

# Tests that profile the whole system take turns: two at once would each
# record the other's workload, and slow it (make check -j runs tests side
# by side, and other build trees may run theirs). The lock is machine-wide
# and held until the test exits; a daemon the test starts does not hold it
# (oprofiled closes what it inherits), and e2e_cleanup never leaves one
# behind.
E2E_LOCK=${TMPDIR:-/tmp}/opsampler-system-wide.lock
e2e_lock_system_wide() {
	exec {E2E_LOCK_FD}>>"$E2E_LOCK"
	flock -w "${E2E_LOCK_WAIT:-1200}" "$E2E_LOCK_FD" ||
		fail "waited ${E2E_LOCK_WAIT:-1200} s for $E2E_LOCK (another test profiling the system?)"
}
# e2e_unlock_system_wide: for a test whose recording is over while it
# still has work to do (its daemons must have exited: they record still)
e2e_unlock_system_wide() {
	flock -u "$E2E_LOCK_FD"
	exec {E2E_LOCK_FD}>&-
}

# The event "default" resolves to here, by name (ophelp -d):
# CPU_CLK_UNHALTED where a hardware PMU is usable, TIMER otherwise or
# under OPSAMPLER_PMU=off (the PMU probe's hook that picks the timer path).
e2e_default_event() { "$OPHELP" -d | cut -d: -f1; }
# The modes a test of the default event runs in: "hw timer" where a PMU is
# usable, so that one machine covers both paths, "timer" where none is.
e2e_event_modes() {
	if [ "$(OPSAMPLER_PMU='' "$OPHELP" -d | cut -d: -f1)" = TIMER ]; then
		echo timer
	else
		echo hw timer
	fi
}
# e2e_set_mode MODE: what e2e_event_modes gave, for the commands to come
e2e_set_mode() {
	case $1 in
	timer) export OPSAMPLER_PMU=off ;;
	hw) unset OPSAMPLER_PMU ;;
	*) fail "e2e_set_mode: no mode $1" ;;
	esac
	echo "mode $1: the default event is $(e2e_default_event)"
}

# A test that needs root and perf_event_open calls this first. Exit 77 is
# automake's "skipped"; under OPSAMPLER_REQUIRE_PERF=1 a skip is a failure.
e2e_need_perf() {
	local why=
	[ "$(id -u)" -eq 0 ] || why="not root"
	if [ -z "$why" ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)" -gt 2 ]; then
		why="perf_event_paranoid > 2"
	fi
	if [ -z "$why" ]; then
		e2e_lock_system_wide
		return 0
	fi
	if [ "${OPSAMPLER_REQUIRE_PERF:-0}" != 0 ]; then
		echo "FAIL: needs perf_event_open ($why) and OPSAMPLER_REQUIRE_PERF is set" >&2
		exit 1
	fi
	echo "SKIP: $why" >&2
	exit 77
}

E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/opsampler-e2e.XXXXXX")
SESSION_DIR=$E2E_TMP/session
e2e_cleanup() {
	local status=${1:-$?}
	# a failed test shows the end of its daemon's log (a daemon that died
	# says why there: its stderr goes to the log)
	if [ "$status" -ne 0 ] && [ -f "$SESSION_DIR/samples/oprofiled.log" ]; then
		echo "--- the last lines of $SESSION_DIR/samples/oprofiled.log:" >&2
		tail -n 40 "$SESSION_DIR/samples/oprofiled.log" >&2
	fi
	# never leave a daemon behind
	if [ -f "$SESSION_DIR/lock" ]; then
		local pid
		pid=$(cat "$SESSION_DIR/lock" 2>/dev/null || true)
		[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && sleep 0.5 && kill -KILL "$pid" 2>/dev/null
	fi
	rm -rf "$E2E_TMP"
}
trap e2e_cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
