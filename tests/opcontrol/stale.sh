#!/usr/bin/env bash
# A daemon that died without cleaning up (SIGKILL) leaves its lock and
# socket: opcontrol must see it as not running and start a new one; and two
# --start at once must start one daemon, not two.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
e2e_need_perf

expect 0 "" opc --setup --event=cpu-clock:1000000

# two --start at once: both succeed, one daemon
opc --start > "$E2E_TMP/a.out" 2>&1 & a=$!
opc --start > "$E2E_TMP/b.out" 2>&1 & b=$!
wait "$a" || { cat "$E2E_TMP/a.out" >&2; fail "first concurrent --start failed"; }
wait "$b" || { cat "$E2E_TMP/b.out" >&2; fail "second concurrent --start failed"; }
cat "$E2E_TMP/a.out" "$E2E_TMP/b.out"
grep -qF "profiler already running" "$E2E_TMP/a.out" "$E2E_TMP/b.out" ||
	fail "neither --start saw the other's daemon"
pid=$(cat "$SESSION_DIR/lock")
n=$(pgrep -f -- "oprofiled --session-dir=$SESSION_DIR" | wc -l)
[ "$n" = 1 ] || fail "$n daemons on one session"

# SIGKILL: lock and socket stay behind
kill -KILL "$pid"
for _ in $(seq 100); do alive "$pid" || break; sleep 0.05; done
! alive "$pid" || fail "daemon $pid survived SIGKILL"
[ -e "$SESSION_DIR/lock" ] || fail "test premise: the killed daemon removed its lock"
expect 0 "Daemon not running" opc --status
expect 1 "oprofiled is not running on $SESSION_DIR" opc --dump
expect 0 "profiler running" opc --start
pid2=$(cat "$SESSION_DIR/lock")
[ "$pid2" != "$pid" ] && alive "$pid2" || fail "no new daemon after the stale one ($pid -> $pid2)"
expect 0 "Profiling: running" opc --status
expect 0 "oprofiled (pid $pid2) shut down" opc --shutdown
echo "stale: passed"
