#!/usr/bin/env bash
# Two opcontrol on one session: the second waits for the first (bounded) and
# refuses clearly when the wait runs out.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
e2e_need_perf

expect 0 "" opc --init
lock=$SESSION_DIR/opcontrol.lock

# held for longer than the wait: refused, exit 1
flock "$lock" sleep 3 &
holder=$!
sleep 0.3
start=$(date +%s%N)
OPCONTROL_LOCK_WAIT_MS=500 expect 1 "another opcontrol is working on $SESSION_DIR; gave up after 500 ms" \
	opc --status
elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$elapsed" -ge 450 ] || fail "gave up after ${elapsed} ms, before the wait ran out"
wait "$holder"

# held briefly: the second one waits, then runs
flock "$lock" sleep 0.7 &
holder=$!
sleep 0.2
OPCONTROL_LOCK_WAIT_MS=5000 expect 0 "Daemon not running" opc --status
wait "$holder"

# many at once: each completes or refuses, the settings file stays whole
pids=()
for i in 1 2 3 4 5 6; do
	opc --setup --event=cpu-clock:$((100000 * i)) >/dev/null 2>&1 &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" || fail "a concurrent --setup failed"
done
expect 0 "Events: TIMER:" opc --status
grep -qE "Events: TIMER:[1-6]00000:0:1:1 " <<<"$OUT" || fail "daemonrc torn: $OUT"
echo "concurrency: passed"
