#!/usr/bin/env bash
# bench_opexport.sh: opexport --format=pprof on large synthetic sessions,
# flat and with call chains: wall time (best of BENCH_RUNS, default 3) and
# the profile's size.
#   flat: 10^7 samples written by tests/pp/pp_mksession over the function
#         addresses of libc, libdw, bash and opexport (5000 distinct
#         addresses per binary at most, as bench_opreport.sh)
#   chains: the same flat files plus a chain store of 10^5 distinct chains
#         of 16 frames and 10^6 samples, written by the daemon's writer
#         (bench/bench_mkchains)
#   BENCH opexport_pprof_flat_1e7 <s> s, opexport_pprof_flat_1e7_bytes <n> B
#   BENCH opexport_pprof_chains_1e5 <s> s, opexport_pprof_chains_1e5_bytes <n> B
#   BENCH opexport_folded_chains_1e5 <s> s
# The work follows distinct addresses and chains, never samples.
set -euo pipefail

if [ -z "${top_builddir:-}" ]; then
	top_builddir=$(cd .. && pwd)
fi
OPEXPORT=$top_builddir/pp/opexport
MKS=$top_builddir/tests/pp/pp_mksession
MKC=$top_builddir/tests/bench/bench_mkchains
RUNS=${BENCH_RUNS:-3}
NCHAINS=${BENCH_CHAINS:-100000}
[ -x "$OPEXPORT" ] || { echo "bench_opexport: $OPEXPORT not built" >&2; exit 1; }
for p in "$MKS" "$MKC"; do
	[ -x "$p" ] || make -s -C "$top_builddir/tests" "${p#$top_builddir/tests/}" >&2
done
if grep -q -- "-fsanitize" "$top_builddir/tests/Makefile" 2>/dev/null &&
   grep -q "^OP_SAN_CFLAGS = -f" "$top_builddir/tests/Makefile"; then
	echo "bench_opexport: a sanitizer build: these figures mean nothing" >&2
fi

TMP=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/opsampler-bench-export.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

bins=()
for b in /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libdw.so.1 \
	 /usr/bin/bash "$OPEXPORT"; do
	[ -r "$b" ] && bins+=("$b")
done

samples=10000000
per_bin=$((samples / ${#bins[@]}))
{
	echo "header 4 2000"
	i=0
	for b in "${bins[@]}"; do
		echo "file f:$b f:$b TIMER 100000 0 all all all"
		echo "spread $b 5000 $per_bin $((i + 7))"
		i=$((i + 1))
	done
} >"$TMP/script"
"$MKS" "$TMP/flat" <"$TMP/script"
cp -a "$TMP/flat" "$TMP/chains"
"$MKC" "$TMP/chains" "$NCHAINS" 16 1000000 11 "${bins[@]}"

# best-of-RUNS wall time of opexport ARGS
time_export() {
	local best= t TIMEFORMAT=%4R
	for _ in $(seq "$RUNS"); do
		t=$( { time "$OPEXPORT" "$@" 2>/dev/null; } 2>&1 )
		if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then
			best=$t
		fi
	done
	echo "$best"
}

t=$(time_export --session-dir="$TMP/flat" -o "$TMP/flat.pb.gz")
echo "BENCH opexport_pprof_flat_1e7 $t s"
echo "BENCH opexport_pprof_flat_1e7_bytes $(stat -c %s "$TMP/flat.pb.gz") B"
t=$(time_export --session-dir="$TMP/chains" -o "$TMP/chains.pb.gz")
echo "BENCH opexport_pprof_chains_$(printf '%.0e' "$NCHAINS" | sed 's/+0*//') $t s"
echo "BENCH opexport_pprof_chains_$(printf '%.0e' "$NCHAINS" | sed 's/+0*//')_bytes $(stat -c %s "$TMP/chains.pb.gz") B"
t=$(time_export --session-dir="$TMP/chains" --format=folded -o "$TMP/chains.folded")
echo "BENCH opexport_folded_chains_$(printf '%.0e' "$NCHAINS" | sed 's/+0*//') $t s"
