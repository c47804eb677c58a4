#!/usr/bin/env bash
# The whole session lifecycle with the real kernel, on a temporary session
# directory: init, setup, start, workload, dump, status (with figures), stop,
# save, reset, shutdown, deinit, and the wrong orders in between.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
e2e_need_perf

cur=$SESSION_DIR/samples/current

expect 0 "" opc --init
[ -d "$SESSION_DIR/samples" ] || fail "--init made no samples directory"

expect 0 "" opc --setup --event=cpu-clock:200000 --separate=cpu
[ -f "$SESSION_DIR/daemonrc" ] || fail "--setup wrote no daemonrc"
expect 0 "Daemon not running" opc --status
grep -qF "Events: TIMER:200000:0:1:1 (timer mode" <<<"$OUT" || fail "status before start: $OUT"

# start: the daemon comes up, listening, holding its lock
expect 0 "profiler running" opc --start
pid=$(cat "$SESSION_DIR/lock")
alive "$pid" || fail "no live daemon behind the lock ($pid)"
[ -S "$SESSION_DIR/opd_ctl" ] || fail "no control socket"
[ "$(stat -c %a "$SESSION_DIR/opd_ctl")" = 600 ] || fail "control socket is not mode 0600"
expect 0 "profiler already running (oprofiled pid $pid)" opc --start
[ "$(cat "$SESSION_DIR/lock")" = "$pid" ] || fail "a second --start started another daemon"

"$DEMO_SPIN" 2 >/dev/null
expect 0 "" opc --dump
total=$(stat_of total_samples)
# 2 s on 2 CPUs at 5 kHz is ~20000 samples; ask for a fifth of it
[ "$total" -ge 4000 ] || fail "only $total samples after the workload"
files=$(find "$cur" -type f -name 'TIMER.200000.0.*' | wc -l)
[ "$files" -gt 0 ] || fail "no TIMER sample files in $cur"
cpus=$(find "$cur" -type f -name 'TIMER.200000.0.*' | sed 's/.*\.//' | sort -u | tr '\n' ' ')
case "$cpus" in
*all*) fail "--separate=cpu files without a cpu field: $cpus" ;;
esac
if [ "$(nproc)" -ge 2 ]; then
	[ "$(wc -w <<<"$cpus")" -ge 2 ] || fail "samples on one CPU only: $cpus"
fi
echo "after the workload: $total samples in $files files, cpus: $cpus"
# a running session's files change: no integrity record while it runs
[ ! -e "$cur/stats/sums" ] || fail "an integrity record while the session runs"

expect 0 "Daemon running: pid $pid" opc --status
for want in "Profiling: running" "Events: TIMER:200000:0:1:1" "(timer mode" "Hardware PMU: not in use" \
	"Separate: cpu" "Session dir: $SESSION_DIR"; do
	grep -qF -- "$want" <<<"$OUT" || fail "status lacks '$want': $OUT"
done
shown=$(sed -n 's/^Samples received: //p' <<<"$OUT")
[ -n "$shown" ] && [ "$shown" -ge "$total" ] || fail "status shows '$shown' samples, dump wrote $total"
if grep '^Lost:' <<<"$OUT" | grep -q ' 0$'; then
	fail "status shows a zero loss counter: $OUT"
fi

# stop: no more samples, the daemon stays
expect 0 "profiler stopped" opc --stop
expect 0 "Profiling: stopped" opc --status
expect 0 "" opc --dump
before=$(stat_of total_samples)
"$DEMO_SPIN" 1 >/dev/null
expect 0 "" opc --dump
after=$(stat_of total_samples)
[ "$after" = "$before" ] || fail "samples grew from $before to $after while stopped"
alive "$pid" || fail "--stop ended the daemon"
# stopped, the files stay as they are: the integrity record lists each one
# with the checksum opreport checks
[ -s "$cur/stats/sums" ] || fail "no integrity record after --stop"
nsf=$(find "$cur" -type f -name 'TIMER.*' | wc -l)
nsum=$(grep -vc '^#' "$cur/stats/sums")
[ "$nsum" = "$nsf" ] || fail "the integrity record lists $nsum files of $nsf"
"$OPREPORT" --session-dir="$SESSION_DIR" >/dev/null 2>"$E2E_TMP/rep.err" ||
	{ cat "$E2E_TMP/rep.err" >&2; fail "opreport refused the stopped session"; }
grep -q "integrity" "$E2E_TMP/rep.err" && fail "opreport: $(cat "$E2E_TMP/rep.err")"

# save: current moves to samples/NAME, a fresh current takes its place; the
# daemon is restarted in the state it was in (stopped) so it writes no more
# into the moved files
expect 0 "session saved as $SESSION_DIR/samples/run1" opc --save=run1
[ "$(cat "$SESSION_DIR/samples/run1/stats/total_samples")" = "$after" ] ||
	fail "the saved stats do not hold the dumped total $after"
! alive "$pid" || fail "the daemon was not restarted across the save"
pid=$(cat "$SESSION_DIR/lock")
alive "$pid" || fail "no daemon after the save"
expect 0 "Profiling: stopped" opc --status
[ -n "$(find "$SESSION_DIR/samples/run1" -type f -name 'TIMER.*')" ] || fail "run1 has no sample files"
# the kernel symbols saved at the stop travel with the session
[ -s "$SESSION_DIR/samples/run1/stats/kallsyms" ] || fail "run1 has no saved kernel symbols"
[ -s "$SESSION_DIR/samples/run1/stats/sums" ] || fail "run1 has no integrity record"
[ -d "$cur" ] || fail "no current after save"
[ -z "$(find "$cur" -type f -name 'TIMER.*')" ] || fail "current still has sample files after save"
expect 1 "--save=run1: session $SESSION_DIR/samples/run1 already exists" opc --save=run1
expect 2 "a session name cannot contain '/' or '..'" opc --save=../escape
[ ! -e "$SESSION_DIR/escape" ] || fail "save escaped the samples directory"

# start again: the new samples go to the new current, not to run1
saved=$(find "$SESSION_DIR/samples/run1" -type f -name 'TIMER.*' -exec md5sum {} + | sort)
expect 0 "profiler running" opc --start
"$DEMO_SPIN" 1 >/dev/null
expect 0 "" opc --dump
[ -n "$(find "$cur" -type f -name 'TIMER.*')" ] || fail "no sample files in current after save and start"
[ "$(find "$SESSION_DIR/samples/run1" -type f -name 'TIMER.*' -exec md5sum {} + | sort)" = "$saved" ] ||
	fail "the saved session changed after the save"

# reset: current emptied while the daemon runs, and filled again after.
# The daemon keeps sampling the whole system, so other programs' files may
# reappear at once: the workload's, and a marker, must not. Only this
# test's own demo_spin counts (its sample files under its absolute path):
# another build tree's, running meanwhile, is sampled too.
spin_files=$cur/{root}$(realpath "$DEMO_SPIN")/*
touch "$cur/marker"
[ -n "$(find "$cur" -type f -path "$spin_files")" ] || fail "no demo_spin files before reset"
expect 0 "samples in $cur cleared" opc --reset
pid=$(cat "$SESSION_DIR/lock")
expect 0 "Profiling: running" opc --status
[ ! -e "$cur/marker" ] || fail "reset left current's contents"
[ -z "$(find "$cur" -type f -path "$spin_files")" ] || fail "demo_spin's sample files left after reset"
"$DEMO_SPIN" 1 >/dev/null
expect 0 "" opc --dump
[ -n "$(find "$cur" -type f -path "$spin_files" -name 'TIMER.*')" ] ||
	fail "no demo_spin sample files after reset and more work"

# the integrity record is written at each stop and gone at each start
expect 0 "profiler stopped" opc --stop
[ -s "$cur/stats/sums" ] || fail "no integrity record after the second --stop"
expect 0 "profiler running" opc --start
[ ! -e "$cur/stats/sums" ] || fail "the integrity record outlived --start"

# a daemon shut down and started again goes on counting into the same
# files: its stats count what they hold, the earlier daemon's samples too
# (samples_written against the files' counts, every sample file, each
# time collection has stopped: a running daemon's files keep growing)
expect 0 "profiler stopped" opc --stop
held() { "$top_builddir/tests/daemon/sfcheck" "$cur" | awk '{ n += $1 } END { print n + 0 }'; }
before=$(held)
[ "$(stat_of samples_written)" = "$before" ] ||
	fail "samples_written $(stat_of samples_written) while the files hold $before"
expect 0 "" opc --shutdown
expect 0 "profiler running" opc --start
pid=$(cat "$SESSION_DIR/lock")
"$DEMO_SPIN" 1 >/dev/null
expect 0 "profiler stopped" opc --stop
after=$(held)
[ "$after" -gt "$before" ] || fail "no samples after the restart ($after, $before before)"
[ "$(stat_of samples_written)" = "$after" ] ||
	fail "after a restart, samples_written $(stat_of samples_written) while the files hold $after"
expect 0 "profiler running" opc --start

# shutdown: the daemon exits, its lock and socket go
expect 0 "oprofiled (pid $pid) shut down" opc --shutdown
! alive "$pid" || fail "daemon $pid still alive after --shutdown"
[ ! -e "$SESSION_DIR/lock" ] || fail "lock left after --shutdown"
[ ! -e "$SESSION_DIR/opd_ctl" ] || fail "socket left after --shutdown"
expect 1 "oprofiled is not running on $SESSION_DIR" opc --stop
expect 1 "oprofiled is not running on $SESSION_DIR" opc --dump

# start-daemon: up but not collecting; deinit ends it
expect 0 "" opc --start-daemon
pid2=$(cat "$SESSION_DIR/lock")
expect 0 "Profiling: stopped" opc --status
expect 0 "oprofiled (pid $pid2) shut down" opc --deinit
! alive "$pid2" || fail "daemon $pid2 alive after --deinit"
expect 0 "oprofiled is not running" opc --deinit
expect 0 "Daemon not running" opc --status
echo "lifecycle: passed"
