#!/usr/bin/env bash
# bench_flight.sh: the flight recorder (opcontrol --flight-recorder) against
# our normal mode and perf record --overwrite, in one run.
#  - the profiler's own CPU while recording: burn on every CPU for
#    BENCH_FLIGHT_SECONDS (30) at 1 kHz and 10 kHz per CPU; the daemon's
#    (or perf's) user+sys over that time, and ours in flight mode as a
#    fraction of the other two (the target: at most 1/10 of each):
#      BENCH flight_cpu_<rate>_{flight,normal,perf_overwrite} s
#      BENCH flight_cpu_<rate>_flight_over_{normal,perf} ratio
#  - snapshot time: a 10 s window at 10 kHz on every CPU, full; the wall
#    time of opcontrol --snapshot, which returns when the session is on
#    disk (target < 0.5 s):
#      BENCH flight_snapshot_10s_10khz_wall s
#  - attribution of short-lived processes: tests/workloads/forker's 1,500
#    children, all exited, then a snapshot; the share of the forker's
#    user-mode samples (calib_burn, the parent's, left out) in child_burn,
#    ours and perf record --overwrite --switch-output=signal's:
#      BENCH flight_shortlived_{op,perf} %
#    and how long our snapshot of that window paused the rings, with the
#    samples they lost meanwhile (from the daemon's log):
#      BENCH flight_snapshot_burst_paused ms
#      BENCH flight_snapshot_burst_lost_meanwhile samples
. "$(dirname "$0")/benchlib.sh"

SECS=${BENCH_FLIGHT_SECONDS:-30}
FORKER=$(realpath "$WORKLOADS/forker")
bench_have_op || bench_die "opcontrol/opreport not built"

# op_flight_start PERIOD WINDOW: a fresh session, started; 0: normal mode
op_flight_start() {
	if [ -S "$SESSION_DIR/opd_ctl" ]; then
		op --shutdown >/dev/null 2>&1 || op_kill_daemon
	fi
	rm -rf "$SESSION_DIR"
	op --setup --no-vmlinux --event="cpu-clock:$1" --separate=lib,kernel \
		--flight-recorder="$2" >/dev/null || bench_die "opcontrol --setup failed"
	op --start >/dev/null || bench_die "opcontrol --start failed"
}

# perf_overwrite_start PERIOD OUT [ARGS]: perf record --overwrite in the
# background; PERF_PID is perf itself
perf_overwrite_start() {
	local period=$1 out=$2 i
	shift 2
	rm -f "$out"*
	perf record -q -B --overwrite "$@" -a -e cpu-clock -c "$period" -o "$out" \
		2>"$BENCH_TMP/perf.err" &
	PERF_PID=$!
	for i in $(seq 50); do
		[ -s "$out" ] && break
		sleep 0.1
	done
	sleep 1
}

perf_stop() {
	kill -INT "$PERF_PID" 2>/dev/null || true
	wait "$PERF_PID" 2>/dev/null || true
}

for rate in 1000 10000; do
	period=$((1000000000 / rate))
	r=${rate}hz
	# each profiler settles for a second after its start (perf_overwrite_start
	# waits for its file): start-up is not the cost of recording
	op_flight_start "$period" 10
	sleep 1
	pid=$(cat "$SESSION_DIR/lock")
	c0=$(cpu_of_pid "$pid")
	"$BURN" -t "$SECS" >/dev/null
	flight=$(calc "$(cpu_of_pid "$pid") - $c0")
	op_flight_start "$period" 0
	sleep 1
	pid=$(cat "$SESSION_DIR/lock")
	c0=$(cpu_of_pid "$pid")
	"$BURN" -t "$SECS" >/dev/null
	normal=$(calc "$(cpu_of_pid "$pid") - $c0")
	op --shutdown >/dev/null 2>&1 || op_kill_daemon
	perf_overwrite_start "$period" "$BENCH_TMP/ow.data"
	c0=$(cpu_of_pid "$PERF_PID")
	"$BURN" -t "$SECS" >/dev/null
	perf=$(calc "$(cpu_of_pid "$PERF_PID") - $c0")
	perf_stop
	bench_line "flight_cpu_${r}_flight" "$flight" s
	bench_line "flight_cpu_${r}_normal" "$normal" s
	bench_line "flight_cpu_${r}_perf_overwrite" "$perf" s
	bench_line "flight_cpu_${r}_flight_over_normal" "$(calc "$flight / $normal")" ratio
	bench_line "flight_cpu_${r}_flight_over_perf" "$(calc "$flight / $perf")" ratio
done

# snapshot time: a full 10 s window at 10 kHz on every CPU
op_flight_start 100000 10
"$BURN" -t 11 >/dev/null
t0=$(date +%s.%N)
op --snapshot=full >/dev/null || bench_die "opcontrol --snapshot failed"
bench_line flight_snapshot_10s_10khz_wall "$(calc "$(date +%s.%N) - $t0")" s
bench_note "$(cat "$SESSION_DIR/samples/full/stats/total_samples") samples in the snapshot"

# attribution of short-lived processes, ours then perf's
"$FORKER" 1500 2 >/dev/null || bench_die "forker failed"
op --snapshot=burst >/dev/null || bench_die "opcontrol --snapshot failed"
# how long that snapshot paused the rings, and what they lost meanwhile:
# it resolves the window's samples of 1,500 exited processes
line=$(grep "snapshot: .* in .*/burst," "$SESSION_DIR/samples/oprofiled.log" | tail -1)
bench_line flight_snapshot_burst_paused \
	"$(sed -n 's/.*output paused \([0-9.]*\) ms.*/\1/p' <<<"$line")" ms
bench_line flight_snapshot_burst_lost_meanwhile \
	"$(sed -n 's/.*, \([0-9]*\) samples lost meanwhile.*/\1/p' <<<"$line")" samples
"$OPREPORT" --session-dir="$SESSION_DIR" session:burst >"$BENCH_TMP/sum" 2>/dev/null
"$OPREPORT" --session-dir="$SESSION_DIR" session:burst -l "image:$FORKER" >"$BENCH_TMP/sym" 2>/dev/null
op --shutdown >/dev/null 2>&1 || op_kill_daemon
user=$(awk '/^[^\t]/ { in_app = ($1 ~ /^[0-9]+$/ && $NF == "forker"); next }
	in_app && $1 ~ /^[0-9]+$/ && $NF !~ /^(kallsyms|no-vmlinux|vmlinux.*)$/ { n += $1 }
	END { print n + 0 }' "$BENCH_TMP/sum")
burn=$(awk '$1 ~ /^[0-9]+$/ && $NF == "child_burn" { n += $1 } END { print n + 0 }' "$BENCH_TMP/sym")
calib=$(awk '$1 ~ /^[0-9]+$/ && $NF == "calib_burn" { n += $1 } END { print n + 0 }' "$BENCH_TMP/sym")
nomap=$(( $(cat "$SESSION_DIR/samples/burst/stats/lost_no_task") + $(cat "$SESSION_DIR/samples/burst/stats/lost_no_mapping") ))
bench_line flight_shortlived_op "$(calc "100 * $burn / ($user - $calib + $nomap)")" %
bench_note "ours: child_burn $burn of $user user-mode forker samples less $calib calib_burn, + $nomap lost for want of a mapping"

# perf's ring per CPU as large as ours (4 MiB: a 10 s window at 10 kHz)
perf_overwrite_start 100000 "$BENCH_TMP/sw.data" --switch-output=signal -m 1024
"$FORKER" 1500 2 >/dev/null || bench_die "forker failed"
kill -USR2 "$PERF_PID"
for _ in $(seq 100); do
	f=$(compgen -G "$BENCH_TMP/sw.data.*" | sort | head -1 || true)
	[ -n "$f" ] && [ -s "$f" ] && break
	sleep 0.1
done
sleep 1
perf_stop
f=$(compgen -G "$BENCH_TMP/sw.data.*" | sort | head -1 || true)
[ -n "$f" ] || bench_die "perf --switch-output=signal wrote nothing"
# the first file is the USR2's (the names hold the time; compgen's order
# is not theirs), the second the one perf writes when it stops
# the forker's user-mode samples ([.]) by symbol: those perf could not
# resolve (their process's mappings gone) show as addresses
perf report -i "$f" --stdio --sort comm,dso,sym --show-nr-samples \
	2>/dev/null >"$BENCH_TMP/perf.sym" || true
read -r pburn pcalib puser < <(awk '$0 !~ /^#/ && $1 ~ /%$/ && $3 == "forker" && $5 == "[.]" {
		u += $2; if ($NF == "child_burn") b += $2; if ($NF == "calib_burn") c += $2 }
	END { print b + 0, c + 0, u + 0 }' "$BENCH_TMP/perf.sym")
bench_line flight_shortlived_perf "$(calc "$puser > $pcalib ? 100 * $pburn / ($puser - $pcalib) : 0")" %
bench_note "perf: child_burn $pburn of $puser user-mode forker samples less $pcalib calib_burn"
