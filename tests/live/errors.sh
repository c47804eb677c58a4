#!/usr/bin/env bash
# optop's refusals: an unknown option or a bad value is refused with the
# usual message and status 1 (--callers outside --batch too); the terminal view without a terminal asks
# for --batch; a session directory where nothing runs, and no session
# anywhere with no right to profile the system (an unprivileged user),
# give a clear message and status 3. No profiling: no lock needed.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
OPTOP=$top_builddir/pp/optop

expect 1 "optop: --bogus: unknown option" "$OPTOP" --bogus
expect 1 "optop: --delay=0: not a number of seconds" "$OPTOP" --batch -d 0
expect 1 "optop: --delay=x: not a number of seconds" "$OPTOP" --batch --delay=x
expect 1 "optop: --iterations takes a number" "$OPTOP" --batch -n -1
expect 1 "optop: --separate=tid: optop separates by cpu or none" "$OPTOP" --batch --separate=tid
expect 1 "optop: --sort=size: sort by samples or name" "$OPTOP" --batch --sort=size
expect 1 "optop: --callers takes a number of rows from 0 up" "$OPTOP" --batch --callers=-2
expect 1 "optop: --callers=x: invalid numeric value" "$OPTOP" --batch --callers=x
expect 1 "optop: --callers is for --batch" "$OPTOP" --callers=3
expect 1 "optop: unexpected argument 'image:/bin/ls'" "$OPTOP" --batch image:/bin/ls
expect 1 "optop: the terminal view needs a terminal" "$OPTOP" </dev/null
expect 0 "Usage: optop" "$OPTOP" --help
expect 0 "opsampler" "$OPTOP" --version

mkdir -p "$SESSION_DIR"
expect 3 "optop: no profiler is running in $SESSION_DIR" "$OPTOP" --batch -n 1 --session-dir="$SESSION_DIR"

# no session anywhere and no right to start one: as nobody, in an empty
# directory (./oprofile_data absent), with perf_event_paranoid above -1.
# A profiler that some other user runs on /var/lib/oprofile would be
# found instead: then that is what is checked.
if [ "$(id -u)" -eq 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 0 ]; then
	mkdir -p "$E2E_TMP/empty"
	chmod 755 "$E2E_TMP" "$E2E_TMP/empty"
	lockpid=$(cat /var/lib/oprofile/lock 2>/dev/null || true)
	if [ -n "$lockpid" ] && kill -0 "$lockpid" 2>/dev/null; then
		echo "note: a profiler runs on /var/lib/oprofile: optop as nobody finds it"
		cd "$E2E_TMP/empty"
		expect 0 "optop: 1:" setpriv --reuid=65534 --regid=65534 \
			--clear-groups "$OPTOP" --batch -n 1 -d 0.2
	else
		cd "$E2E_TMP/empty"
		expect 3 "needs root, or kernel.perf_event_paranoid at -1" \
			setpriv --reuid=65534 --regid=65534 --clear-groups "$OPTOP" --batch -n 1
		grep -q "no profiler is running (looked in ./oprofile_data and /var/lib/oprofile)" <<<"$OUT" ||
			fail "the message does not say where optop looked: $OUT"
	fi
elif [ "${OPSAMPLER_REQUIRE_PERF:-0}" != 0 ]; then
	fail "the no-right case needs root and perf_event_paranoid >= 0"
fi
echo "ok: optop's refusals"
