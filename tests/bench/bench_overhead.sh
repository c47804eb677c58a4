#!/usr/bin/env bash
# bench_overhead.sh: what profiling costs the profiled program. The same
# fixed amount of CPU-bound work (burn, one thread per CPU, ~3 s) runs
# unprofiled, under opcontrol and under perf record -a, at the same
# cpu-clock rate (1 kHz and 10 kHz per CPU), runs interleaved; medians of
# wall and CPU time and each profiler's slowdown in percent.
#   BENCH overhead_<rate>_<tool>_wall s | _cpu s | _slowdown_wall % | _slowdown_cpu %
#   BENCH overhead_<rate>_op_over_perf ratio  (our wall slowdown / perf's)
# On this VM every cpu-clock sample costs the sampled task 12-18 us in the
# kernel whichever tool reads the ring: that part is the floor for both.
. "$(dirname "$0")/benchlib.sh"

work=$(burn_args "${BENCH_SECONDS:-3}")
bench_note "burn $work million iterations on $NCPU threads, $BENCH_RUNS runs"
bench_have_op || bench_note "opcontrol/opreport not built: perf side only"

field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$2"; }

for rate in 1000 10000; do
	period=$((1000000000 / rate))
	bw=() bc=() pw=() pc=() ow=() oc=()
	for run in $(seq "$BENCH_RUNS"); do
		"$BURN" "$work" >"$BENCH_TMP/base.out"
		bw+=("$(field wall_s "$BENCH_TMP/base.out")")
		bc+=("$(field cpu_s "$BENCH_TMP/base.out")")
		bench_perf_run "$period" "$BENCH_TMP/perf.data" "$BURN" "$work"
		pw+=("$(field wall_s "$BENCH_TMP/cmd.out")")
		pc+=("$(field cpu_s "$BENCH_TMP/cmd.out")")
		if bench_have_op; then
			bench_op_run "$period" "$BURN" "$work"
			[ -n "$OP_FAILED" ] && continue
			ow+=("$(field wall_s "$BENCH_TMP/cmd.out")")
			oc+=("$(field cpu_s "$BENCH_TMP/cmd.out")")
		fi
	done
	r=${rate}hz
	base_w=$(median "${bw[@]}") base_c=$(median "${bc[@]}")
	perf_w=$(median "${pw[@]}") perf_c=$(median "${pc[@]}")
	bench_line "overhead_${r}_none_wall" "$base_w" s
	bench_line "overhead_${r}_none_cpu" "$base_c" s
	bench_line "overhead_${r}_perf_wall" "$perf_w" s
	bench_line "overhead_${r}_perf_cpu" "$perf_c" s
	perf_sw=$(calc "100 * ($perf_w / $base_w - 1)")
	bench_line "overhead_${r}_perf_slowdown_wall" "$perf_sw" %
	bench_line "overhead_${r}_perf_slowdown_cpu" "$(calc "100 * ($perf_c / $base_c - 1)")" %
	if bench_have_op && [ ${#ow[@]} -gt 0 ]; then
		op_w=$(median "${ow[@]}") op_c=$(median "${oc[@]}")
		bench_line "overhead_${r}_op_wall" "$op_w" s
		bench_line "overhead_${r}_op_cpu" "$op_c" s
		op_sw=$(calc "100 * ($op_w / $base_w - 1)")
		bench_line "overhead_${r}_op_slowdown_wall" "$op_sw" %
		bench_line "overhead_${r}_op_slowdown_cpu" "$(calc "100 * ($op_c / $base_c - 1)")" %
		bench_line "overhead_${r}_op_over_perf" "$(calc "$op_sw / $perf_sw")" ratio
	fi
done
