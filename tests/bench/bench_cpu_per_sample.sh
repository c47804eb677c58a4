#!/usr/bin/env bash
# bench_cpu_per_sample.sh: the profiler's own CPU time per sample. Each tool
# profiles the same CPU-bound run (burn on every CPU, BENCH_SECONDS, default
# 10 s) at a low rate (1 kHz per CPU) and a high one (BENCH_HIGH_PERIOD ns,
# default 50 us). Its own user+sys time from the workload's start until its
# samples are on disk (oprofiled with its collection threads, up to the end
# of the final --dump; perf record up to its exit, which includes writing
# the file) goes up by "extra" while its samples go up by "more": extra /
# more is what one sample costs it, free of start-up costs. Medians of
# BENCH_RUNS triples.
#
# perf record is measured twice: as users run it, with the build-id pass it
# makes at exit (it reads every sample again to find the binaries that were
# hit: perf's counterpart of our dcookies), and with -B, which leaves that
# pass out and only copies records to the file.
#   BENCH cpu_per_sample_perf us          perf record (default)
#   BENCH cpu_per_sample_perf_B us        perf record -B
#   BENCH cpu_per_sample_op us
#   BENCH cpu_per_sample_op_over_perf ratio     (goal <= 0.5)
#   BENCH cpu_per_sample_op_over_perf_B ratio
# each with _min and _max beside the median, and every run's figures in a
# note: a median of three alone hid a spread of 0.17 to 0.27 us here. The
# ratios are taken within a run, then their median.
#
# Not all of ours' extra is per sample: the high rate also samples more of
# the short-lived processes around the workload (a shell, the dump's own
# opcontrol), and each image sampled costs the daemon a sample file, its
# directories in OProfile's layout and the file's msync at the dump,
# whatever the rate. The note gives each run's files and directories,
# and a least-squares split of ours' extra into the two costs.
. "$(dirname "$0")/benchlib.sh"

work="-t ${BENCH_SECONDS:-10}"
bench_note "burn $work (seconds) on $NCPU threads, $BENCH_RUNS runs"
bench_have_op || bench_note "opcontrol/opreport not built: perf side only"

high=${BENCH_HIGH_PERIOD:-50000}

# perf_pair BUILDID: sets PAIR to perf's extra CPU per extra sample (us), low vs high
# rate; a run that leaves no samples (perf 6.1 now and then dies in its
# build-id code here) is run again once.
perf_pair() {
	local c0 s0 try
	for try in 1 2; do
		PERF_BUILDID=$1 bench_perf_run 1000000 "$BENCH_TMP/perf.data" "$BURN" $work
		c0=$PERF_CPU_RUN s0=$PERF_SAMPLES
		PERF_BUILDID=$1 bench_perf_run "$high" "$BENCH_TMP/perf.data" "$BURN" $work
		[ "$s0" -gt 0 ] && [ "$PERF_SAMPLES" -gt "$s0" ] && break
		bench_note "perf (build-id pass $1) left no samples; again"
	done
	bench_note "perf$([ "$1" = 1 ] || echo " -B"): $s0 samples in $c0 s, $PERF_SAMPLES samples in $PERF_CPU_RUN s"
	PAIR=$(calc "1e6 * ($PERF_CPU_RUN - $c0) / ($PERF_SAMPLES - $s0)")
}

per=() perb=() oper=() r=() rb=() fit=()
for run in $(seq "$BENCH_RUNS"); do
	perf_pair 1
	per+=("$PAIR")
	perf_pair 0
	perb+=("$PAIR")
	if bench_have_op; then
		bench_op_run 1000000 "$BURN" $work
		[ -n "$OP_FAILED" ] && continue
		c0=$OP_CPU_RUN s0=$OP_SAMPLES f0="$OP_FILES files, $OP_DIRS directories"
		bench_op_run "$high" "$BURN" $work
		[ -n "$OP_FAILED" ] && continue
		bench_note "opsampler: $s0 samples in $c0 s ($f0), $OP_SAMPLES samples in $OP_CPU_RUN s ($OP_FILES files, $OP_DIRS directories)"
		o=$(calc "1e6 * ($OP_CPU_RUN - $c0) / ($OP_SAMPLES - $s0)")
		oper+=("$o")
		fit+=("$((OP_SAMPLES - s0)) $((OP_FILES - ${f0%% *})) $(calc "$OP_CPU_RUN - $c0")")
		r+=("$(calc "$o / ${per[-1]}")")
		rb+=("$(calc "$o / ${perb[-1]}")")
	fi
done
# spread: the runs themselves, their extremes beside the median, and the
# ratio of ours to perf's within each run (the two ran minutes apart, not
# hours: a busy or quiet spell of the shared machine moves both)
spread() {	# spread NAME VALUE...: NAME's median, min and max
	local name=$1
	shift
	bench_line "$name" "$(median "$@")" "$UNIT"
	bench_line "${name}_min" "$(printf '%s\n' "$@" | sort -g | head -1)" "$UNIT"
	bench_line "${name}_max" "$(printf '%s\n' "$@" | sort -g | tail -1)" "$UNIT"
}
bench_note "runs: perf ${per[*]}; perf -B ${perb[*]}; ours ${oper[*]:-none} (us a sample)"
UNIT=us
spread cpu_per_sample_perf "${per[@]}"
spread cpu_per_sample_perf_B "${perb[@]}"
if bench_have_op && [ ${#oper[@]} -gt 0 ]; then
	spread cpu_per_sample_op "${oper[@]}"
	UNIT=ratio
	spread cpu_per_sample_op_over_perf "${r[@]}"
	spread cpu_per_sample_op_over_perf_B "${rb[@]}"
	# ours' extra CPU as a cost per sample plus a cost per sample file,
	# least squares over the runs (they differ in files by chance): a
	# note, not a figure, for it is as good as that spread of files
	bench_note "$(printf '%s\n' "${fit[@]}" | awk '
		{ xx += $1 * $1; xy += $1 * $2; yy += $2 * $2; xz += $1 * $3; yz += $2 * $3 }
		END {
			d = xx * yy - xy * xy
			if (NR < 3 || d <= 0) { print "no fit: the runs differ too little in files"; exit }
			printf "least squares over %d runs: %.1f ns a sample + %.2f ms a sample file\n",
				NR, 1e9 * (xz * yy - yz * xy) / d, 1e3 * (xx * yz - xy * xz) / d
		}')"
fi
