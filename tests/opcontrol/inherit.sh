#!/usr/bin/env bash
# The daemon closes what it inherits: started by opcontrol from a shell
# that holds a flock'd file open on a descriptor (as this harness holds
# its machine-wide lock), oprofiled must not hold that file, or the lock
# stays taken for as long as an orphaned daemon lives. What --keep-fd
# names it keeps.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
e2e_need_perf

HELD=$E2E_TMP/held.lock

# the files the daemon PID holds open, one a line. The daemon opens and
# closes files as it works: a descriptor gone between find's listing and
# its readlink makes find fail, which under set -e ended the test with no
# word (CI, 2026-11-26); what could be read is the answer.
fds_of() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 -printf '%l\n' 2>/dev/null || true; }

expect 0 "" opc --setup --event=cpu-clock:1000000
exec 7>"$HELD"
flock 7 || fail "cannot lock $HELD"
expect 0 "" opc --start
pid=$(cat "$SESSION_DIR/lock")
alive "$pid" || fail "no daemon after --start"
held=$(fds_of "$pid")
[ -n "$held" ] || fail "cannot read /proc/$pid/fd"
if grep -qxF "$HELD" <<<"$held"; then
	echo "$held" >&2
	fail "oprofiled $pid holds $HELD, which it inherited"
fi
if grep -qxF "$E2E_LOCK" <<<"$held"; then
	echo "$held" >&2
	fail "oprofiled $pid holds the harness's lock $E2E_LOCK"
fi
expect 0 "" opc --shutdown
exec 7>&-
# the lock is free once the shell lets go of it: nobody else holds it
flock -n "$HELD" true || fail "$HELD is still locked after the shell closed it"

# --keep-fd: kept, the rest closed
exec 7>"$HELD" 8>"$HELD.other"
"$OPROFILED" --session-dir="$SESSION_DIR" --events=cpu-clock:1000000 --keep-fd=8 ||
	fail "oprofiled --keep-fd=8 did not start"
pid=$(cat "$SESSION_DIR/lock")
held=$(fds_of "$pid")
[ "$(readlink "/proc/$pid/fd/8")" = "$HELD.other" ] ||
	{ echo "$held" >&2; fail "oprofiled --keep-fd=8 did not keep descriptor 8"; }
! grep -qxF "$HELD" <<<"$held" ||
	{ echo "$held" >&2; fail "oprofiled --keep-fd=8 kept descriptor 7 too"; }
exec 7>&- 8>&-
expect 0 "" opc --shutdown
expect 1 "--keep-fd=2: not a list" "$OPROFILED" --session-dir="$SESSION_DIR" --keep-fd=2
echo "inherit: passed"
