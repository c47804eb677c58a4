#!/usr/bin/env bash
# bench_unwind.sh: call chains through code without frame pointers, ours
# (--callgraph=64 --unwind=dwarf: the sync thread unwinds each sample's
# stack copy and keeps the chain) against perf's (perf record
# --call-graph=dwarf: every copy to disk, unwound by perf report -g), in the
# same run. The workload is tests/workloads/cgqsort, one on each CPU (no
# frame pointers; its leaf under libc's qsort), at BENCH_PERIOD ns of
# cpu-clock (default 1 ms: 1 kHz a CPU) for BENCH_SECONDS (10) of each
# one's CPU time. Figures (dw_ names):
#   cost_per_sample_{perf,op}: collection CPU (perf record's, the daemon's)
#       plus the call-graph report's (perf report -g, opreport -c), per
#       sample, us; cost_op_over_perf (goal <= 0.33, aiming at 0.1)
#   disk_per_sample_{perf,op} bytes; disk_perf_over_op ratio
#   report_{perf,op} s (wall, median of BENCH_RUNS); report_speedup;
#       report_op_peak_rss KB
#   unwind_us_per_sample, unwind_frames_per_sample, unwind_done_pct: the
#       unwinder's own figures (stats/unwind_*), all processes
#   lost_{perf,op}: samples each lost (perf's LOST_SAMPLES and LOST records
#       summed; ours lost_records_by_kernel + event buffer + no task)
#   share_sort_big_{program,op}: the workload's own split and opreport -c's
#       (qsort_r's callers), a check that the chains are right
. "$(dirname "$0")/benchlib.sh"

BENCH_CALLGRAPH=64
BENCH_UNWIND=${BENCH_STACK:-8192}
period=${BENCH_PERIOD:-1000000}
secs=${BENCH_SECONDS:-10}
QSORT=$WORKLOADS/cgqsort
[ -x "$QSORT" ] || bench_die "$QSORT not built (make first)"

# one cgqsort a CPU, each for secs of its CPU time
both() {
	local i pids=()
	for i in $(seq "$NCPU"); do
		"$QSORT" "$secs" >"$BENCH_TMP/qsort.$i.out" &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# cpu_wall_rss CMD...: "user+sys wall maxrss_kb" of CMD, its output
# dropped; "nan nan 0" when it fails (its stderr's tail goes to ours)
cpu_wall_rss() {
	if ! /usr/bin/time -f '%U %S %e %M' -o "$BENCH_TMP/time" "$@" \
		>"$BENCH_TMP/report.out" 2>"$BENCH_TMP/report.err"; then
		tail -3 "$BENCH_TMP/report.err" | sed "s|^|# $1 failed: |" >&2
		echo "nan nan 0"
		return 0
	fi
	bench_note "$1: $(wc -l <"$BENCH_TMP/report.out") lines of report" >&2
	tail -1 "$BENCH_TMP/time" | awk '{ printf "%.3f %.3f %d\n", $1 + $2, $3, $4 }'
}

bench_perf_run "$period" "$BENCH_TMP/perf.data" both
bench_note "perf: $PERF_SAMPLES samples, $PERF_BYTES bytes, record CPU ${PERF_CPU_RUN} s"
pw=() pc=0
for run in $(seq "$BENCH_RUNS"); do
	read -r c w _ < <(cpu_wall_rss perf report -i "$BENCH_TMP/perf.data" --stdio -g)
	pw+=("$w")
	pc=$c
done
prep=$(median "${pw[@]}")
perf_cost=$(calc "($PERF_CPU_RUN + $pc) * 1e6 / $PERF_SAMPLES")
perf_lost=$((PERF_LOST_SAMPLES + PERF_LOST))
bench_line cost_per_sample_perf "$perf_cost" us
bench_line disk_per_sample_perf "$(calc "$PERF_BYTES / $PERF_SAMPLES")" bytes
bench_line report_perf "$prep" s
bench_line lost_perf "$perf_lost" samples
rm -f "$BENCH_TMP/perf.data"
bench_have_op || exit 0

bench_op_run "$period" both
[ -z "$OP_FAILED" ] || bench_die "$OP_FAILED"
stats=$SESSION_DIR/samples/current/stats
bench_note "ours: $OP_SAMPLES samples, $OP_BYTES bytes, daemon CPU ${OP_CPU_RUN} s"
ow=() oc=0 rss=0
for run in $(seq "$BENCH_RUNS"); do
	read -r c w rss < <(cpu_wall_rss "$OPREPORT" --session-dir="$SESSION_DIR" -c)
	ow+=("$w")
	oc=$c
done
orep=$(median "${ow[@]}")
op_cost=$(calc "($OP_CPU_RUN + $oc) * 1e6 / $OP_SAMPLES")
bench_line cost_per_sample_op "$op_cost" us
bench_line cost_op_over_perf "$(calc "$op_cost / $perf_cost")" ratio
bench_line disk_per_sample_op "$(calc "$OP_BYTES / $OP_SAMPLES")" bytes
bench_line disk_perf_over_op "$(calc "($PERF_BYTES / $PERF_SAMPLES) / ($OP_BYTES / $OP_SAMPLES)")" ratio
bench_line report_op "$orep" s
bench_line report_speedup "$(calc "$prep / $orep")" ratio
bench_line report_op_peak_rss "$rss" KB
bench_line lost_op "$OP_LOST" samples
walks=$(cat "$stats/unwind_walks")
bench_line unwind_us_per_sample "$(calc "$(cat "$stats/unwind_ns") / 1000 / $walks")" us
bench_line unwind_frames_per_sample "$(calc "$(cat "$stats/unwind_pcs") / $walks")" frames
bench_line unwind_done_pct "$(calc "100 * $(cat "$stats/unwind_done") / $walks")" pct
bench_note "unwinder ends: no_cfi $(cat "$stats/unwind_no_cfi") short_stack $(cat "$stats/unwind_short_stack") bad_frame $(cat "$stats/unwind_bad_frame") no_mapping $(cat "$stats/lost_bt_no_mapping")"
# the chains are right: sort_big's share of qsort_r's callers
big=0 small=0
for i in $(seq "$NCPU"); do
	big=$(calc "$big + $(awk '$2 == "sort_big" { print $3 }' "$BENCH_TMP/qsort.$i.out")")
	small=$(calc "$small + $(awk '$2 == "sort_small" { print $3 }' "$BENCH_TMP/qsort.$i.out")")
done
bench_line share_sort_big_program "$(calc "100 * $big / ($big + $small)")" pct
"$OPREPORT" --session-dir="$SESSION_DIR" -c "image:$QSORT" 2>/dev/null >"$BENCH_TMP/op.c"
awk '/^-+$/ { n = 0; next } /^ / { l[n++] = $0; next }
	$NF == "qsort_r" { for (i = 0; i < n; i++) { split(l[i], f, " ");
		if (f[length(f)] == "sort_big") b += f[1]; if (f[length(f)] == "sort_small") s += f[1] } }
	{ n = 0 }
	END { if (b + s) printf "BENCH dw_share_sort_big_op %.3f pct\n", 100 * b / (b + s) }' "$BENCH_TMP/op.c"
