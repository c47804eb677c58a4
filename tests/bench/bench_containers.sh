#!/usr/bin/env bash
# bench_containers.sh: what a container costs the profiler. The same burn
# (one thread, BENCH_SECONDS, default 5 s) profiled system-wide at 10 kHz
# per CPU, on the host and in a container (unshare --mount --pid --fork,
# chroot into a root holding burn and its libraries): the container's
# mappings are opened through its root and its binaries copied into the
# session's kept/ (kop_root.c, kop_keep.c), its process's cgroup read.
# That work is done once per mapping, not per sample, so the daemon's CPU
# per sample should be the host run's (goal: at most 10 % more). The
# samples' cgroup ids (PERF_SAMPLE_CGROUP: 8 bytes more a record, a
# compare a sample) are measured apart: the host run again with them off
# (OPSAMPLER_SAMPLE_CGROUP=0), against the host run with them.
#   BENCH container_cpu_per_sample_host us
#   BENCH container_cpu_per_sample_ct us
#   BENCH container_over_host ratio          (goal <= 1.10)
#   BENCH container_cpu_per_sample_noids us  the host run without the ids
#   BENCH container_ids_over_noids ratio     (goal <= 1.10)
#   BENCH container_kept_bytes bytes         the kept/ store after a run
#   BENCH container_keep_ms ms               the keeper's time copying
# Medians of BENCH_RUNS; the ratio is taken within a run.
. "$(dirname "$0")/benchlib.sh"
bench_have_op || bench_die "opcontrol/opreport not built"

secs=${BENCH_SECONDS:-5}
root=$BENCH_TMP/root
mkdir -p "$root/app"
cp "$BURN" "$root/app/burn"
for lib in $(ldd "$BURN" | grep -o '/[^ ]*'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
bench_note "burn -t $secs 1, at 10 kHz per CPU, $BENCH_RUNS runs; the container: unshare --mount --pid --fork chroot"

host=() ct=() ratio=() kept=() keepms=() noids=() idratio=()
# host_run [noids]: the host run (noids: without the samples' cgroup
# ids), its figure in h, its samples in hs
host_run() {
	if [ "${1:-}" = noids ]; then
		OPSAMPLER_SAMPLE_CGROUP=0 bench_op_run 100000 "$BURN" -t "$secs" 1
	else
		bench_op_run 100000 "$BURN" -t "$secs" 1
	fi
	[ -z "$OP_FAILED" ] || bench_die "$OP_FAILED"
	h=$(calc "1e6 * $OP_CPU_RUN / $OP_SAMPLES")
	hs=$OP_SAMPLES
}
for run in $(seq "$BENCH_RUNS"); do
	# the two host runs change places from run to run: the first after
	# a session's files are removed pays the file system's part more
	if [ $((run % 2)) = 0 ]; then
		host_run noids
		n=$h ns=$hs
		grep -q "cgroup ids in samples turned off" "$SESSION_DIR/samples/oprofiled.log" ||
			bench_die "OPSAMPLER_SAMPLE_CGROUP=0 did not reach the daemon"
	fi
	host_run
	bench_op_run 100000 unshare --mount --pid --fork chroot "$root" /app/burn -t "$secs" 1
	[ -z "$OP_FAILED" ] || bench_die "$OP_FAILED"
	c=$(calc "1e6 * $OP_CPU_RUN / $OP_SAMPLES")
	k=$(du -sb "$SESSION_DIR/kept" 2>/dev/null | awk '{ print $1 }')
	ms=$(sed -n 's/.*keep: .* bytes copied in \([0-9]*\) ms.*/\1/p' "$SESSION_DIR/samples/oprofiled.log" | tail -1)
	cs=$OP_SAMPLES
	if [ $((run % 2)) = 1 ]; then
		hh=$h hhs=$hs
		host_run noids
		n=$h ns=$hs h=$hh hs=$hhs
		grep -q "cgroup ids in samples turned off" "$SESSION_DIR/samples/oprofiled.log" ||
			bench_die "OPSAMPLER_SAMPLE_CGROUP=0 did not reach the daemon"
	fi
	bench_note "run $run: host $hs samples, $h us each; container $cs samples, $c us each; kept ${k:-0} bytes in ${ms:-?} ms; host without cgroup ids $ns samples, $n us each"
	host+=("$h") ct+=("$c") ratio+=("$(calc "$c / $h")") kept+=("${k:-0}") keepms+=("${ms:-0}")
	noids+=("$n") idratio+=("$(calc "$h / $n")")
done
bench_line container_cpu_per_sample_host "$(median "${host[@]}")" us
bench_line container_cpu_per_sample_ct "$(median "${ct[@]}")" us
bench_line container_over_host "$(median "${ratio[@]}")" ratio
bench_line container_kept_bytes "$(median "${kept[@]}")" bytes
bench_line container_keep_ms "$(median "${keepms[@]}")" ms
bench_line container_cpu_per_sample_noids "$(median "${noids[@]}")" us
bench_line container_ids_over_noids "$(median "${idratio[@]}")" ratio
