# Sourced by the end-to-end shell tests. Gives them the built programs, a
# fresh session directory removed on exit, and the skip/fail rule for tests
# that need the kernel's perf_event_open.
set -euo pipefail

: "${top_builddir:?run through make check}"
: "${top_srcdir:?run through make check}"
OPCONTROL=$top_builddir/daemon/opcontrol
OPROFILED=$top_builddir/daemon/oprofiled
OPHELP=$top_builddir/daemon/ophelp
OPREPORT=$top_builddir/pp/opreport
WORKLOADS=$top_builddir/tests/workloads
export PATH="$top_builddir/daemon:$top_builddir/pp:$PATH"

# A test that needs root and perf_event_open calls this first. Exit 77 is
# automake's "skipped"; under OPSAMPLER_REQUIRE_PERF=1 a skip is a failure.
e2e_need_perf() {
	local why=
	[ "$(id -u)" -eq 0 ] || why="not root"
	if [ -z "$why" ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)" -gt 2 ]; then
		why="perf_event_paranoid > 2"
	fi
	[ -z "$why" ] && return 0
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
