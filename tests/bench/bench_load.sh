#!/usr/bin/env bash
# bench_load.sh: samples kept and lost on a loaded machine, ours against
# perf record -a in the same conditions, one after the other. Loads: "hogs"
# (one shell busy loop per CPU) and "build" (one loop per CPU running the
# compiler on a generated file, fork- and exec-heavy like a build); under
# each, burn -t BENCH_SECONDS (default 10) runs at cpu-clock periods of
# 10 us (the kernel's limit) and 100 us. cpu-clock fires on every CPU, busy
# or idle, so a run offers NCPU x window / period samples: what a tool
# recorded plus what it says it lost should come close to that, and never
# above it.
#   BENCH load_<load>_<period>_<tool>_recorded samples
#   BENCH load_<load>_<period>_<tool>_said_lost samples
#   BENCH load_<load>_<period>_<tool>_accounted ratio  (recorded + said lost) / offered
#   BENCH load_<load>_<period>_<tool>_lost_share %     said lost / (recorded + said lost)
#   BENCH load_<load>_<period>_op_over_perf ratio      recorded per second sampled
# perf's said-lost: LOST_SAMPLES of its cpu-clock (perf report --stats);
# ours: lost_records_by_kernel + event_lost_overflow (each loss once). A
# tool that records less without saying so was throttled by the kernel
# (perf report --stats shows THROTTLE records) or never offered them.
. "$(dirname "$0")/benchlib.sh"

bench_have_op || bench_die "opcontrol/opreport not built"
secs=${BENCH_SECONDS:-10}
command -v gcc >/dev/null || bench_die "gcc not found (the build load runs it)"

LOAD_PIDS=()
load_stop() {
	local p
	for p in "${LOAD_PIDS[@]}"; do
		kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true
	done
	for p in "${LOAD_PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	LOAD_PIDS=()
}
trap 'load_stop; bench_cleanup' EXIT

# a file that takes the compiler a fraction of a second
src=$BENCH_TMP/unit.c
for i in $(seq 200); do
	echo "int f$i(int x) { int s = 0; for (int i = 0; i < x; i++) s += (i * $i) ^ (s >> 3); return s; }"
done >"$src"

load_start() {
	local i
	for i in $(seq "$NCPU"); do
		case $1 in
		hogs) setsid sh -c 'while :; do :; done' & ;;
		build) setsid sh -c "while :; do gcc -O2 -c '$src' -o '$BENCH_TMP/unit$i.o'; done" & ;;
		esac
		LOAD_PIDS+=($!)
	done
	sleep 1
}

one() {	# one LOAD PERIOD_NS TOOL
	local load=$1 period=$2 tool=$3 rec lost span offered name
	name=load_${load}_$((period / 1000))us_$tool
	if [ "$tool" = perf ]; then
		bench_perf_run "$period" "$BENCH_TMP/perf.data" "$BURN" -t "$secs"
		rec=$PERF_SAMPLES lost=$PERF_LOST_SAMPLES span=$PERF_SPAN
		rm -f "$BENCH_TMP/perf.data"
	else
		bench_op_run "$period" "$BURN" -t "$secs"
		[ -z "$OP_FAILED" ] || { bench_line "${name}_recorded" failed -; return 0; }
		rec=$OP_SAMPLES lost=$OP_LOST span=$OP_SPAN
	fi
	# each tool samples from some time after its launch to its stop
	offered=$(calc "$NCPU * $span * 1e9 / $period")
	bench_line "${name}_recorded" "$rec" samples
	bench_line "${name}_said_lost" "$lost" samples
	bench_line "${name}_accounted" "$(calc "($rec + $lost) / $offered")" ratio
	bench_line "${name}_lost_share" "$(calc "($rec + $lost) > 0 ? 100 * $lost / ($rec + $lost) : 0")" %
	RATE[$tool]=$(calc "$rec / $span")
}

declare -A RATE
for load in hogs build; do
	load_start "$load"
	bench_note "load $load: $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min load average)"
	for period in 10000 100000; do
		one "$load" "$period" perf
		one "$load" "$period" op
		bench_line "load_${load}_$((period / 1000))us_op_over_perf" \
			"$(calc "${RATE[op]} / ${RATE[perf]}")" ratio
	done
	load_stop
done
