#!/usr/bin/env bash
# bench_cpu_per_sample.sh: the profiler's own CPU time per sample. Each tool
# profiles the same CPU-bound run (burn on every CPU, ~5 s) at a low rate
# (1 kHz per CPU) and a high one (BENCH_HIGH_PERIOD ns, default 50 us); its
# own user+sys time (oprofiled with its collection threads, read after the
# final dump; perf record -B alone) goes up by
# "extra" while its samples go up by "more": extra / more is what one sample
# costs it, free of fixed start-up costs. Medians of BENCH_RUNS pairs.
#   BENCH cpu_per_sample_<tool> us
#   BENCH cpu_per_sample_op_over_perf ratio   (goal <= 0.5)
. "$(dirname "$0")/benchlib.sh"

work="-t ${BENCH_SECONDS:-5}"
bench_note "burn $work (seconds) on $NCPU threads, $BENCH_RUNS runs"
bench_have_op || bench_note "opcontrol/opreport not built: perf side only"

high=${BENCH_HIGH_PERIOD:-50000}
per=() oper=()
for run in $(seq "$BENCH_RUNS"); do
	bench_perf_run 1000000 "$BENCH_TMP/perf.data" "$BURN" $work
	c0=$PERF_CPU s0=$PERF_SAMPLES
	bench_perf_run "$high" "$BENCH_TMP/perf.data" "$BURN" $work
	bench_note "perf: $s0 samples in $c0 s, $PERF_SAMPLES samples in $PERF_CPU s"
	per+=("$(calc "1e6 * ($PERF_CPU - $c0) / ($PERF_SAMPLES - $s0)")")
	if bench_have_op; then
		bench_op_run 1000000 "$BURN" $work
		[ -n "$OP_FAILED" ] && continue
		c0=$OP_CPU s0=$OP_SAMPLES
		bench_op_run "$high" "$BURN" $work
		[ -n "$OP_FAILED" ] && continue
		bench_note "opsampler: $s0 samples in $c0 s, $OP_SAMPLES samples in $OP_CPU s"
		oper+=("$(calc "1e6 * ($OP_CPU - $c0) / ($OP_SAMPLES - $s0)")")
	fi
done
p=$(median "${per[@]}")
bench_line cpu_per_sample_perf "$p" us
if bench_have_op && [ ${#oper[@]} -gt 0 ]; then
	o=$(median "${oper[@]}")
	bench_line cpu_per_sample_op "$o" us
	bench_line cpu_per_sample_op_over_perf "$(calc "$o / $p")" ratio
fi
