#!/usr/bin/env bash
# oprofiled end to end with the real kernel: start in the foreground on a
# fresh session directory, "start" over the control socket, run a known
# program, "dump", and check its samples are in the sample file named after
# it (and per thread and CPU with --separate-thread/--separate-cpu), the
# stats files and the log; then "shutdown" removes the socket and the lock.
. "$top_srcdir/tests/e2e/lib.sh"
e2e_need_perf

CTL=$top_builddir/tests/daemon/ctl-client
SFCHECK=$top_builddir/tests/daemon/sfcheck
SPIN=$top_builddir/tests/daemon/spin
SOCK=$SESSION_DIR/opd_ctl
CUR=$SESSION_DIR/samples/current

run_session() {	# $1: extra oprofiled options
	rm -rf "$SESSION_DIR"
	# shellcheck disable=SC2086
	"$OPROFILED" --foreground --session-dir="$SESSION_DIR" --events=default $1 \
		2>"$E2E_TMP/daemon.err" &
	DPID=$!
	for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.1; done
	[ -S "$SOCK" ] || fail "no control socket after 10 s: $(cat "$E2E_TMP/daemon.err")"
	[ "$(stat -c %a "$SOCK")" = 600 ] || fail "socket mode is $(stat -c %a "$SOCK"), not 600"
	[ "$(cat "$SESSION_DIR/lock")" = "$DPID" ] || fail "lock does not hold the daemon's pid"

	"$CTL" "$SOCK" status | grep -qx "state stopped" || fail "collection enabled before start"
	"$CTL" "$SOCK" start >/dev/null || fail "start refused"
	"$CTL" "$SOCK" start >/dev/null || fail "a second start is not idempotent"
	SPIN_PID=$("$SPIN" 1.5)
	"$CTL" "$SOCK" dump >/dev/null || fail "dump refused"
	"$CTL" "$SOCK" status > "$E2E_TMP/status" || fail "status refused"
	grep -qx "state running" "$E2E_TMP/status" || fail "status: not running"
	"$SFCHECK" "$CUR" > "$E2E_TMP/files" || fail "a sample file does not open"
}

# Each mode the machine has (the hardware event and the timer where a PMU
# is usable): the files are named after the event the session resolved
# "default" to, which the test asks for instead of assuming.
for mode in $(e2e_event_modes); do
	e2e_set_mode "$mode"
	ev=$(e2e_default_event)
	# plain: one file for the program, the whole run in it
	run_session ""
	spin_abs=$(readlink -f "$SPIN")
	line=$(grep -F "{root}$spin_abs/{dep}/{root}$spin_abs/$ev." "$E2E_TMP/files" || true)
	[ -n "$line" ] || { cat "$E2E_TMP/files" >&2; fail "no sample file for $spin_abs"; }
	count=${line%% *}
	# the header says the event as OProfile's tables number it: its
	# opreport names the event from these two fields, not the file name
	read -r cpu_type ctr_event < <(od -An -tu4 -j8 -N8 "$CUR/${line#* }")
	case $mode/$cpu_type/$ctr_event in
	timer/4/0 | hw/69/118 | hw/41/60) ;;
	*) fail "$mode: header cpu_type $cpu_type event $ctr_event (OProfile: timer 4/0, AMD64 generic 69/0x76, arch_perfmon 41/0x3c)" ;;
	esac
	# 1.5 s of one CPU: about 1500 samples at the timer's default 1 ms
	# period, tens of thousands at 100000 cycles
	[ "$count" -ge 700 ] || fail "only $count samples for the 1.5 s spin"
	echo "$line" | grep -q '\.all\.all\.all$' || fail "unseparated file not named .all.all.all: $line"
	grep -qF '{root}/proc/kallsyms/' "$E2E_TMP/files" || fail "no kernel sample file"
	total=$(cat "$CUR/stats/total_samples")
	[ "$total" -ge "$count" ] || fail "stats total_samples $total < $count"
	for f in event_lost_overflow lost_no_task lost_no_mapping lost_samplefile lost_records_by_kernel bad_escape \
		 anon_samples kernel_samples cpu0/sample_received cpu0/sample_lost_overflow; do
		[ -f "$CUR/stats/$f" ] || fail "missing stats/$f"
	done
	# OProfile's opreport warns whenever stats/throttled/ exists: it must exist
	# exactly when the daemon saw an event throttled
	if grep -q "throttled events:" "$SESSION_DIR/samples/oprofiled.log"; then
		[ -d "$CUR/stats/throttled" ] || fail "events throttled but no stats/throttled/"
	else
		[ ! -e "$CUR/stats/throttled" ] || fail "stats/throttled/ exists though nothing was throttled"
	fi
	[ "$(cat "$CUR/stats/bad_escape")" = 0 ] || fail "bad escapes in a real stream"
	grep -q "starting: pid $DPID" "$SESSION_DIR/samples/oprofiled.log" || fail "log lacks start parameters"
	grep -q "stats (dump): total_samples=" "$SESSION_DIR/samples/oprofiled.log" || fail "log lacks dump stats"
	"$CTL" "$SOCK" stop >/dev/null || fail "stop refused"
	"$CTL" "$SOCK" status | grep -qx "state stopped" || fail "not stopped after stop"
	"$CTL" "$SOCK" bogus >/dev/null && fail "unknown command accepted"
	"$CTL" "$SOCK" shutdown >/dev/null || fail "shutdown refused"
	wait "$DPID" || fail "daemon exited $? after shutdown"
	[ ! -e "$SOCK" ] || fail "socket left after shutdown"
	[ ! -e "$SESSION_DIR/lock" ] || fail "lock left after shutdown"
	grep -q "stats (exit)" "$SESSION_DIR/samples/oprofiled.log" || fail "log lacks exit stats"

	# per thread and CPU: the program's file carries its own tgid and tid
	run_session "--separate-thread=1 --separate-cpu=1"
	grep -E "^[0-9]+ \{root\}$spin_abs/\{dep\}/\{root\}$spin_abs/$ev\.[0-9]+\.[0-9]+\.$SPIN_PID\.$SPIN_PID\.[0-9]+$" \
		"$E2E_TMP/files" > "$E2E_TMP/spin-files" || { cat "$E2E_TMP/files" >&2; fail "no per-thread, per-CPU file for pid $SPIN_PID"; }
	sum=$(awk '{ s += $1 } END { print s }' "$E2E_TMP/spin-files")
	[ "$sum" -ge 700 ] || fail "only $sum samples for the spin across its per-CPU files"
	# SIGTERM is a shutdown too
	kill -TERM "$DPID"
	wait "$DPID" || fail "daemon exited $? after SIGTERM"
	[ ! -e "$SESSION_DIR/lock" ] || fail "lock left after SIGTERM"
	echo "PASS ($mode, $ev): $count samples in the spin's file, $sum per thread/CPU"
done
