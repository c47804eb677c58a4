#!/usr/bin/env bash
# opcontrol's wrong options and wrong orders: each with its exact exit status
# (0 ok, 1 runtime failure, 2 usage error) and message, and nothing left
# behind by a refused command.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
e2e_need_perf

# help and version need nothing
expect 0 "--save=NAME" "$OPCONTROL" --help
for opt in --init --setup --status --start-daemon --start --dump --stop \
	--shutdown --reset --save --deinit --session-dir --event --separate \
	--callgraph --unwind --image --vmlinux --no-vmlinux --buffer-size \
	--buffer-watershed --cpu-buffer-size --pid --cpu --verbose --list-events \
	--version; do
	grep -qF -- "$opt" <<<"$OUT" || fail "--help does not list $opt"
done
grep -qF "Exit status: 0 ok, 1 runtime failure" <<<"$OUT" || fail "--help has no exit status"
# OProfile's shape, on every command
for prog in "$OPCONTROL" "$OPROFILED" "$OPHELP"; do
	expect 0 "$prog: opsampler " "$prog" --version
	grep -qE '^[^ ]+: opsampler [0-9.]+ compiled on [A-Z][a-z]{2} [ 0-9]{2} [0-9]{4} [0-9:]{8}$' <<<"$OUT" ||
		fail "$prog --version is not in OProfile's shape: $OUT"
done

# usage errors: exit 2, and no session directory created
expect 2 "--bogus: unknown option" opc --bogus
expect 2 "nothing to do" opc
expect 2 'unexpected argument "extra"' opc --status extra
expect 2 "--session-dir must be an absolute path" "$OPCONTROL" --session-dir=relative/dir --status
expect 2 "unknown event NO_SUCH_EVENT" opc --setup --event=NO_SUCH_EVENT:100000
expect 2 "count 5000 for event TIMER (cpu-clock) is below the minimum 10000 ns" \
	opc --setup --event=cpu-clock:5000
expect 2 "bad event specification \"cpu-clock:abc\" at \"abc\"" opc --setup --event=cpu-clock:abc
expect 2 "bad event specification \"TIMER:100000:0:2\" at \"2\"" opc --setup --event=TIMER:100000:0:2
expect 2 "event TIMER is given twice" opc --setup --event=TIMER:100000 --event=cpu-clock:200000
expect 2 "at most 8 events" opc --setup $(for i in 1 2 3 4 5 6 7 8 9; do echo --event=cpu-clock; done)
expect 2 "--separate: unknown value" opc --setup --separate=bogus
expect 2 "--unwind=lbr: expected fp, dwarf or dwarf,STACK_BYTES" opc --setup --unwind=lbr
expect 2 "--unwind=dwarf,12k: the stack size must be a number of bytes, 8 to 65528" \
	opc --setup --unwind=dwarf,12k
expect 2 '--buffer-size: "12k" is not a number' opc --setup --buffer-size=12k
expect 2 "--buffer-watershed (200000) must be smaller than --buffer-size (131072)" \
	opc --setup --buffer-size=131072 --buffer-watershed=200000
expect 2 "--cpu-buffer-size=5000 must be a power of two" opc --setup --cpu-buffer-size=5000
expect 2 "--vmlinux and --no-vmlinux cannot be used together" opc --setup --vmlinux=/boot/x --no-vmlinux
expect 2 "--vmlinux needs an absolute path" opc --setup --vmlinux=vmlinux
expect 2 "--vmlinux=/nonexistent/vmlinux: No such file or directory" opc --setup --vmlinux=/nonexistent/vmlinux
expect 2 "--vmlinux=/: not a regular file" opc --setup --vmlinux=/
expect 2 "a session name cannot contain '/' or '..'" opc --save=a/b
expect 2 "a session name cannot contain '/' or '..'" opc --save=..
expect 2 "a session name cannot contain '/' or '..'" opc --save=x..y
expect 2 "--save needs a session name" opc --save=
expect 2 '"current" is the live session' opc --save=current
expect 2 "--list-events cannot be combined" opc --list-events --start
if ! "$OPHELP" cycles 2>/dev/null | grep -q 'unavailable here'; then
	echo "note: a hardware PMU is usable here; the no-PMU case is not exercised"
else
	expect 2 "no usable PMU here" opc --setup --event=CPU_CLK_UNHALTED:100000
	grep -qF -- "--event=cpu-clock:1000000" <<<"$OUT" || fail "no cpu-clock advice: $OUT"
	expect 2 "event cycles needs a hardware PMU" opc --start --event=cycles
fi
[ ! -e "$SESSION_DIR" ] || fail "a refused command created $SESSION_DIR"

# without root: refused before anything is done
OPCONTROL_TEST_AS_USER=1 expect 1 "system-wide profiling needs root" opc --start
grep -qF "perf_event_paranoid is" <<<"$OUT" || fail "no paranoid level in: $OUT"
[ ! -e "$SESSION_DIR" ] || fail "a refused --start created $SESSION_DIR"

# wrong order without a daemon: exit 1 (shutdown and deinit are no-ops)
expect 1 "oprofiled is not running on $SESSION_DIR" opc --stop
expect 1 "oprofiled is not running on $SESSION_DIR" opc --dump
expect 0 "oprofiled is not running" opc --shutdown
expect 0 "oprofiled is not running" opc --deinit
expect 0 "Daemon not running" opc --status
expect 1 "no current session" opc --save=nothing
expect 0 "nothing to reset" opc --reset

# save onto an existing session: refused, nothing moved
expect 0 "" opc --init
mkdir -p "$SESSION_DIR/samples/current/x" "$SESSION_DIR/samples/taken"
expect 1 "--save=taken: session $SESSION_DIR/samples/taken already exists" opc --save=taken
[ -d "$SESSION_DIR/samples/current/x" ] || fail "a refused save moved current"

# a refused --setup leaves the stored settings alone
expect 0 "" opc --setup --event=cpu-clock:200000 --separate=cpu
cp "$SESSION_DIR/daemonrc" "$E2E_TMP/daemonrc.before"
expect 2 "unknown event" opc --setup --event=NOPE --separate=lib
cmp -s "$SESSION_DIR/daemonrc" "$E2E_TMP/daemonrc.before" || fail "a refused --setup changed daemonrc"
expect 0 "Events: TIMER:200000:0:1:1 (timer mode" opc --status
grep -qF "Separate: cpu" <<<"$OUT" || fail "status lost the separation: $OUT"

# a daemon that cannot start: its reason reaches the user, exit 1
OPROFILED=/nonexistent/oprofiled expect 1 "oprofiled failed to start (exit 127): cannot run /nonexistent/oprofiled" opc --start
# a daemon that never says it is ready: opcontrol gives up, bounded
printf '#!/bin/sh\nexec sleep 30\n' > "$E2E_TMP/stuck-oprofiled"
chmod +x "$E2E_TMP/stuck-oprofiled"
OPROFILED=$E2E_TMP/stuck-oprofiled OPCONTROL_START_WAIT_MS=300 \
	expect 1 "oprofiled was not ready within 300 ms and was stopped" opc --start
# asking about (or stopping) a session that does not exist leaves no
# directory and no lock file behind
for action in --status --shutdown --stop --dump; do
	"$OPCONTROL" --session-dir="$E2E_TMP/none" $action >/dev/null 2>&1 || true
	[ ! -e "$E2E_TMP/none" ] || fail "opcontrol $action made $E2E_TMP/none"
done
echo "errors: all cases passed"
