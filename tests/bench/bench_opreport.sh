#!/usr/bin/env bash
# bench_opreport.sh: opreport -l time against the number of samples.
# Sessions of 10^5, 10^6, 7x10^6 and 10^7 samples are written directly (by
# tests/pp/pp_mksession, through odb as the daemon writes them), spread over
# function addresses of a few real binaries (libc, libdw, bash, opreport):
# up to 5000 distinct addresses per binary, as a CPU-bound profile touches.
# opreport reads each file once and works on distinct addresses, so the
# time should be nearly flat in the number of samples.
#   BENCH opreport_l_<n> <s> s         best of BENCH_RUNS (default 3) runs
#   BENCH opreport_l_cpu_<n> <s> s     user+sys CPU time, mean of 10 runs
#   BENCH opreport_summary_<n> <s> s
#   BENCH opreport_peak_rss_<n> <KB> KB  (/usr/bin/time), for the largest n
# Goals: ~0.06 s at 7x10^6 samples, < 10 MB peak. The side-by-side run
# against perf report on real profiles is bench_disk_report.sh.
set -euo pipefail

if [ -z "${top_builddir:-}" ]; then
	# make bench runs us from the build's tests/ directory
	top_builddir=$(cd .. && pwd)
fi
OPREPORT=$top_builddir/pp/opreport
MKS=$top_builddir/tests/pp/pp_mksession
RUNS=${BENCH_RUNS:-3}
[ -x "$OPREPORT" ] || { echo "bench_opreport: $OPREPORT not built" >&2; exit 1; }
"$(dirname "$0")/../../scripts/install-deps.sh" --bench >&2 ||
	{ echo "bench_opreport: cannot install /usr/bin/time" >&2; exit 1; }
if [ ! -x "$MKS" ]; then
	make -s -C "$top_builddir/tests" pp/pp_mksession >&2
fi

TMP=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/opsampler-bench-pp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

bins=()
for b in /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libdw.so.1 \
	 /usr/bin/bash "$OPREPORT"; do
	[ -r "$b" ] && bins+=("$b")
done
[ ${#bins[@]} -gt 0 ] || { echo "bench_opreport: no binaries to sample" >&2; exit 1; }

# best-of-RUNS wall time of opreport ARGS (bash's own clock: no fork)
time_report() {
	local best= t TIMEFORMAT=%4R
	for _ in $(seq "$RUNS"); do
		t=$( { time "$OPREPORT" "$@" >/dev/null 2>&1; } 2>&1 )
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then
			best=$t
		fi
	done
	echo "$best"
}

# CPU time (user + sys) of one opreport ARGS, averaged over 10 runs: on a
# shared machine the wall time also counts waiting for a CPU
cpu_report() {
	local ut
	ut=$(/usr/bin/time -f '%U %S' bash -c \
		'for i in 1 2 3 4 5 6 7 8 9 10; do "$0" "$@" >/dev/null 2>&1; done' \
		"$OPREPORT" "$@" 2>&1 >/dev/null | tail -1)
	echo "$ut" | awk '{ printf "%.4f", ($1 + $2) / 10 }'
}

for n in ${BENCH_SIZES:-1e5 1e6 7e6 1e7}; do
	samples=$(printf '%.0f' "$n")
	per_bin=$((samples / ${#bins[@]}))
	keys=$((per_bin / 50))
	[ $keys -gt 5000 ] && keys=5000
	[ $keys -lt 1 ] && keys=1
	dir=$TMP/s$n
	{
		echo "header 4 2000"
		i=0
		for b in "${bins[@]}"; do
			# the library samples separated under bash, the rest alone
			dep=$b
			case $b in *.so*) dep=/usr/bin/bash ;; esac
			echo "file f:$b f:$dep TIMER 100000 0 all all all"
			echo "spread $b $keys $per_bin $((i + 7))"
			i=$((i + 1))
		done
	} | "$MKS" "$dir"
	echo "BENCH opreport_l_$n $(time_report --session-dir="$dir" -l) s"
	echo "BENCH opreport_l_cpu_$n $(cpu_report --session-dir="$dir" -l) s"
	echo "BENCH opreport_summary_$n $(time_report --session-dir="$dir") s"
	last=$dir
	last_n=$n
done
rss=$(/usr/bin/time -f '%M' "$OPREPORT" --session-dir="$last" -l 2>&1 >/dev/null | tail -1)
echo "BENCH opreport_peak_rss_$last_n $rss KB"
