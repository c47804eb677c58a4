#!/usr/bin/env bash
# bench_optop.sh: what watching costs. A 10 kHz system-wide opcontrol
# session (cpu-clock every 100 us on every CPU, separated by CPU) runs
# while burn keeps every CPU busy; optop watches it in a terminal (tmux),
# refreshing every 2 s, and perf top -F 10000 -d 2 runs beside it with its
# own sampling, over the same BENCH_LIVE_SECONDS (60) after a 5 s warm-up
# (both load the kernel's symbols first). CPU time of each process, all
# its threads:
#   BENCH optop_watch_cpu_<s>s s        optop's own
#   BENCH perftop_cpu_<s>s s            perf top's (its sampling's reading
#                                       and aggregation included)
#   BENCH optop_over_perftop ratio      goal (issue 32): at most 1/3
#   BENCH oprofiled_cpu_<s>s s          the daemon optop watches, for
#                                       reference (it runs with or
#                                       without optop)
#   BENCH optop_plus_daemon_over_perftop ratio
. "$(dirname "$0")/benchlib.sh"

OPTOP=$top_builddir/pp/optop
secs=${BENCH_LIVE_SECONDS:-60}
command -v tmux >/dev/null || bench_die "tmux not found (scripts/install-deps.sh installs it)"
[ -x "$OPTOP" ] || bench_die "$OPTOP not built"
bench_have_op || bench_die "opcontrol not built"

SOCK=$BENCH_TMP/tmux.sock
T() { tmux -S "$SOCK" -f /dev/null "$@"; }
live_cleanup() {
	T kill-server 2>/dev/null || true
	[ -n "${burn:-}" ] && kill "$burn" 2>/dev/null
	bench_cleanup
}
trap live_cleanup EXIT

op() { "$OPCONTROL" --session-dir="$SESSION_DIR" "$@"; }
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
bench_note "the last screens:"
T capture-pane -p -t optop | head -n 8 | sed 's/^/#   /'
T capture-pane -p -t perftop | head -n 8 | sed 's/^/#   /'
ocpu=$(calc "$o1 - $o0") pcpu=$(calc "$p1 - $p0") dcpu=$(calc "$d1 - $d0")
bench_line "optop_watch_cpu_${secs}s" "$ocpu" s
bench_line "perftop_cpu_${secs}s" "$pcpu" s
bench_line optop_over_perftop "$(calc "$ocpu / $pcpu")" ratio
bench_line "oprofiled_cpu_${secs}s" "$dcpu" s
bench_line optop_plus_daemon_over_perftop "$(calc "($ocpu + $dcpu) / $pcpu")" ratio
