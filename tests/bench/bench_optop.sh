#!/usr/bin/env bash
# bench_optop.sh: what watching costs. A 10 kHz system-wide opcontrol
# session (cpu-clock every 100 us on every CPU, separated by CPU) runs
# while burn keeps every CPU busy; optop watches it in a terminal (tmux),
# refreshing every 2 s, and perf top -F 10000 -d 2 runs beside it with its
# own sampling, over the same BENCH_LIVE_SECONDS (60) after a 5 s warm-up
# (both load the kernel's symbols first). BENCH_RUNS (3) runs, each with a
# session, optop and perf top of its own. CPU time of each process, all
# its threads, medians of the runs:
#   BENCH optop_watch_cpu_<s>s s        optop's own
#   BENCH perftop_cpu_<s>s s            perf top's (its sampling's reading
#                                       and aggregation included)
#   BENCH optop_over_perftop ratio      goal (issue 32): at most 1/3
#                                       (the median of the runs' ratios)
#   BENCH oprofiled_cpu_<s>s s          the daemon optop watches, for
#                                       reference (it runs with or
#                                       without optop)
#   BENCH optop_plus_daemon_over_perftop ratio
# Also, per run, a "#" line with the figures, the samples each tool's
# last screen shows for its last interval, and the kernel's
# perf_event_max_sample_rate after the run (it lowers it when sampling
# interrupts run long, which would make the runs unequal).
. "$(dirname "$0")/benchlib.sh"

OPTOP=$top_builddir/pp/optop
secs=${BENCH_LIVE_SECONDS:-60}
command -v tmux >/dev/null || bench_die "tmux not found (scripts/install-deps.sh installs it)"
[ -x "$OPTOP" ] || bench_die "$OPTOP not built"
bench_have_op || bench_die "opcontrol not built"

SOCK=$BENCH_TMP/tmux.sock
T() { tmux -S "$SOCK" -f /dev/null "$@"; }
burn=
live_cleanup() {
	T kill-server 2>/dev/null || true
	[ -n "$burn" ] && kill "$burn" 2>/dev/null
	bench_cleanup
}
trap live_cleanup EXIT

# one_run: sets OCPU, PCPU, DCPU (seconds over the window)
one_run() {
	local optop perftop daemon o0 p0 d0 o1 p1 d1 work osamples psamples
	rm -rf "$SESSION_DIR"
	op --setup --no-vmlinux --event=cpu-clock:100000 --separate=cpu >/dev/null ||
		bench_die "opcontrol --setup failed"
	op --start >/dev/null || bench_die "opcontrol --start failed"
	daemon=$(cat "$SESSION_DIR/lock")

	work=$(burn_args $((secs + 15)))
	"$BURN" "$work" >/dev/null &
	burn=$!
	T new-session -d -s optop -x 200 -y 50 "exec '$OPTOP' --session-dir='$SESSION_DIR' -d 2 2>'$BENCH_TMP/optop.err'"
	T new-session -d -s perftop -x 200 -y 50 "exec perf top -F 10000 -e cpu-clock -d 2 2>'$BENCH_TMP/perftop.err'"
	sleep 5
	optop=$(T display -p -t optop '#{pane_pid}')
	perftop=$(T display -p -t perftop '#{pane_pid}')
	grep -q optop "/proc/$optop/comm" || bench_die "optop is not running: $(cat "$BENCH_TMP/optop.err")"
	grep -q perf "/proc/$perftop/comm" || bench_die "perf top is not running: $(cat "$BENCH_TMP/perftop.err")"
	o0=$(cpu_of_pid "$optop") p0=$(cpu_of_pid "$perftop") d0=$(cpu_of_pid "$daemon")
	sleep "$secs"
	o1=$(cpu_of_pid "$optop") p1=$(cpu_of_pid "$perftop") d1=$(cpu_of_pid "$daemon")
	T capture-pane -p -t optop >"$BENCH_TMP/optop.screen"
	T capture-pane -p -t perftop >"$BENCH_TMP/perftop.screen"
	T kill-server 2>/dev/null || true
	kill "$burn" 2>/dev/null
	wait "$burn" 2>/dev/null || true
	burn=
	op --shutdown >/dev/null 2>&1 || { bench_note "opcontrol --shutdown failed"; op_kill_daemon; }
	OCPU=$(calc "$o1 - $o0") PCPU=$(calc "$p1 - $p0") DCPU=$(calc "$d1 - $d0")
	osamples=$(awk 'NR == 1 { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^samples/) { print $i; exit } }' \
		"$BENCH_TMP/optop.screen")
	psamples=$(awk 'NR == 1 && $1 == "Samples:" { print $2; exit }' "$BENCH_TMP/perftop.screen")
	bench_note "run $1: optop $OCPU s, perf top $PCPU s, oprofiled $DCPU s;" \
		"optop's last interval ${osamples:-?} samples, perf top ${psamples:-?} in all;" \
		"perf_event_max_sample_rate now $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
}

ocpus=() pcpus=() dcpus=() ratios=() pratios=()
for r in $(seq "$BENCH_RUNS"); do
	one_run "$r"
	ocpus+=("$OCPU") pcpus+=("$PCPU") dcpus+=("$DCPU")
	ratios+=("$(calc "$OCPU / $PCPU")")
	pratios+=("$(calc "($OCPU + $DCPU) / $PCPU")")
done
bench_note "the last screens:"
head -n 8 "$BENCH_TMP/optop.screen" | sed 's/^/#   /'
head -n 8 "$BENCH_TMP/perftop.screen" | sed 's/^/#   /'
bench_line "optop_watch_cpu_${secs}s" "$(median "${ocpus[@]}")" s
bench_line "perftop_cpu_${secs}s" "$(median "${pcpus[@]}")" s
bench_line optop_over_perftop "$(median "${ratios[@]}")" ratio
bench_line "oprofiled_cpu_${secs}s" "$(median "${dcpus[@]}")" s
bench_line optop_plus_daemon_over_perftop "$(median "${pratios[@]}")" ratio
