#!/usr/bin/env bash
# bench_disk_report.sh: disk and report time against the number of samples.
# Each tool profiles a CPU-bound run (burn on every CPU) at a 10 us
# cpu-clock period for about 10^5, 10^6 and 7x10^6 samples (0.5, 5 and 35 s
# on two CPUs); then
#   disk: bytes the session takes (samples/current vs perf.data), per
#         million samples;   BENCH disk_<n>_<tool> bytes/Msample,
#         BENCH disk_<n>_perf_over_op ratio (goal >= 1000 at 7e6), and
#         BENCH disk_<n>_perf_over_oprofile_files: the same ratio for
#         OProfile's layout alone (sample and arc files, the directories
#         naming them), which bounds the first
#   report: wall time of opreport -l vs perf report --stdio --sort dso,sym,
#         median of BENCH_RUNS;   BENCH report_<n>_<tool> s,
#         BENCH report_<n>_speedup ratio (goal >= 40 at 7e6, flat),
#         BENCH report_<n>_op_peak_rss KB (goal < 10 MB)
# BENCH_SIZES overrides the sizes ("1e5 1e6 7e6"), BENCH_PERIOD the period (ns).
. "$(dirname "$0")/benchlib.sh"

bench_have_op || bench_note "opcontrol/opreport not built: perf side only"
period=${BENCH_PERIOD:-10000}
for n in ${BENCH_SIZES:-1e5 1e6 7e6}; do
	secs=$(calc "$n * $period / 1e9 / $NCPU")
	work="-t $secs"
	bench_perf_run $period "$BENCH_TMP/perf.data" "$BURN" $work
	bench_note "$n: perf wrote $PERF_SAMPLES samples, $PERF_BYTES bytes"
	pb=$(calc "$PERF_BYTES * 1e6 / $PERF_SAMPLES")
	bench_line "disk_${n}_perf" "$pb" bytes/Msample
	t=()
	for run in $(seq "$BENCH_RUNS"); do
		t+=("$(bench_perf_report "$BENCH_TMP/perf.data")")
	done
	pt=$(median "${t[@]}")
	bench_line "report_${n}_perf" "$pt" s
	rm -f "$BENCH_TMP/perf.data"
	bench_have_op || continue

	bench_op_run $period "$BURN" $work
	if [ -n "$OP_FAILED" ]; then
		bench_line "disk_${n}_op" failed -
		continue
	fi
	bench_note "$n: opsampler took $OP_SAMPLES samples, $OP_BYTES bytes ($OP_DISK allocated)"
	ob=$(calc "$OP_BYTES * 1e6 / $OP_SAMPLES")
	bench_line "disk_${n}_op" "$ob" bytes/Msample
	bench_line "disk_${n}_perf_over_op" "$(calc "$pb / $ob")" ratio
	# what the files OProfile's tools read take alone: a bound on the
	# ratio whatever our own files (stats, the chain store) take
	bench_note "$n: $OP_BYTES_OPROFILE of the bytes in OProfile's sample and arc files and their directories"
	bench_line "disk_${n}_perf_over_oprofile_files" \
		"$(calc "$pb / ($OP_BYTES_OPROFILE * 1e6 / $OP_SAMPLES)")" ratio
	t=()
	for run in $(seq "$BENCH_RUNS"); do
		t+=("$(bench_op_report)")
	done
	ot=$(median "${t[@]}")
	bench_line "report_${n}_op" "$ot" s
	view=-l
	[ "$BENCH_CALLGRAPH" = 0 ] || view=-c
	rss=$(/usr/bin/time -f '%M' "$OPREPORT" --session-dir="$SESSION_DIR" $view 2>&1 >/dev/null | tail -1)
	bench_line "report_${n}_op_peak_rss" "$rss" KB
	if [ "$pt" = nan ]; then
		bench_line "report_${n}_speedup" nan ratio
	else
		bench_line "report_${n}_speedup" "$(calc "$pt / $ot")" ratio
	fi
done
