#!/usr/bin/env bash
# bench_loss.sh: samples lost at the kernel's fastest cpu-clock period here
# (10 us), system-wide, every CPU busy (burn), ~30 s (BENCH_SECONDS). For
# each tool: samples recorded, samples recorded per CPU-second of the
# recording window (the kernel offers both tools the same samples, so the
# one that loses fewer records more), and what the tool itself says it lost
# (perf: the cpu-clock LOST_SAMPLES of perf report --stats and perf report's
# warning; opsampler: the sum of its stats loss counters and whether
# opreport's header mentions loss).
#   BENCH loss_<tool>_recorded samples | _per_cpu_s samples/s
#   BENCH loss_<tool>_said_lost samples
#   BENCH loss_op_over_perf_rate ratio   (1.0: records as many as perf)
. "$(dirname "$0")/benchlib.sh"

period=10000
work="-t ${BENCH_SECONDS:-30}"
bench_have_op || bench_note "opcontrol/opreport not built: perf side only"

bench_perf_run $period "$BENCH_TMP/perf.data" "$BURN" $work
perf_samples_of burn "$BENCH_TMP/perf.data"
perf_rate=$(calc "$PERF_SAMPLES / ($NCPU * $PERF_WINDOW)")
bench_line loss_perf_recorded "$PERF_SAMPLES" samples
bench_line loss_perf_per_cpu_s "$perf_rate" samples/s
bench_line loss_perf_said_lost "$PERF_LOST_SAMPLES" samples
bench_note "perf: $PERF_LOST LOST records, $PERF_OF samples under comm burn; perf report says: $PERF_SAID_LOST"
rm -f "$BENCH_TMP/perf.data"

if bench_have_op; then
	bench_op_run $period "$BURN" $work
	if [ -n "$OP_FAILED" ]; then
		bench_line loss_op_recorded failed -
		exit 0
	fi
	op_rate=$(calc "$OP_SAMPLES / ($NCPU * $OP_WINDOW)")
	bench_line loss_op_recorded "$OP_SAMPLES" samples
	bench_line loss_op_per_cpu_s "$op_rate" samples/s
	bench_line loss_op_said_lost "$OP_LOST" samples
	bench_line loss_op_over_perf_rate "$(calc "$op_rate / $perf_rate")" ratio
	bench_note "opsampler: $(op_samples_of burn) samples in image burn"
	"$OPREPORT" --session-dir="$SESSION_DIR" >"$BENCH_TMP/op.report" 2>&1 || true
	if grep -qi 'lost' "$BENCH_TMP/op.report"; then
		bench_note "opreport header mentions loss:"
		grep -i 'lost' "$BENCH_TMP/op.report" | head -5 | sed 's/^/#   /'
	else
		bench_note "opreport header does not mention loss"
	fi
fi
