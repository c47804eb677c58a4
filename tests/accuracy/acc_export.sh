#!/usr/bin/env bash
# opexport read by the tools it writes for. Two real sessions:
#  - ratio, flat (no call graph): go tool pprof -top and -traces on our
#    pprof give each of the four functions its share of their samples
#    within 1 percentage point of what the program measured itself;
#  - cgleaf with --callgraph=32: -traces shows cg_leaf under cg_via_a and
#    under cg_via_b, and cg_syscalls' read(2) in the kernel under it, with
#    the program's shares within 1 point; the folded stacks say the same;
#    the flame graph is well-formed XML (xmllint) and renders
#    (rsvg-convert).
# At 10 kHz for 4 s a 50 % share has a standard error of about 0.3 points.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"

OPEXPORT=$top_builddir/pp/opexport

# The readers are installed by scripts/install-deps.sh; a missing one is a
# skip only where perf tests may skip.
for tool in go rsvg-convert xmllint; do
	command -v "$tool" >/dev/null && continue
	if [ "${OPSAMPLER_REQUIRE_PERF:-0}" != 0 ]; then
		echo "FAIL: $tool is missing (scripts/install-deps.sh installs it)" >&2
		exit 1
	fi
	echo "SKIP: $tool is missing (scripts/install-deps.sh installs it)" >&2
	exit 77
done
e2e_need_perf

pprof() { go tool pprof -sample_index=samples "$@" 2>"$E2E_TMP/pprof.err" ||
	{ cat "$E2E_TMP/pprof.err" >&2; fail "go tool pprof $* failed"; }; }

# top_count FILE NAME: the flat samples of NAME in pprof -top output.
top_count() {
	awk -v s="$2" '$NF == s && $1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$1"
}

# traces FILE: pprof -traces output as "COUNT frame<TAB>frame..." lines,
# innermost frame first.
traces() {
	awk '/^-----------\+/ { if (n) print line; n = 0; next }
	     /^ *[0-9]+ / && !n { line = $1; sub(/^ *[0-9]+ +/, ""); n = 1 }
	     n { sub(/^ +/, ""); line = line "\t" $0 }
	     END { if (n) print line }' "$1"
}

# share_ok GOT WANT NAME: within 1 point.
share_ok() {
	check "$1 - $2 <= 1 && $2 - $1 <= 1" "$3: pprof $1 %, program $2 %"
}

# ---- flat: ratio ----
acc_start none
"$WORKLOADS/ratio" 4 >"$E2E_TMP/ratio.out" || fail "ratio workload failed"
acc_stop
cat "$E2E_TMP/ratio.out"
"$OPEXPORT" --session-dir="$SESSION_DIR" -o "$E2E_TMP/ratio.pb.gz" \
	"image:$WORKLOADS/ratio" 2>"$E2E_TMP/export.err" ||
	{ cat "$E2E_TMP/export.err" >&2; fail "opexport of the flat session failed"; }
grep -q "no call chains" "$E2E_TMP/export.err" ||
	fail "opexport did not say the flat session has no call chains"
[ "$(grep -c "no call chains" "$E2E_TMP/export.err")" = 1 ] ||
	fail "opexport said more than once that there are no call chains"
pprof -top -nodecount=50 "$E2E_TMP/ratio.pb.gz" >"$E2E_TMP/top"
cat "$E2E_TMP/top"
pprof -traces "$E2E_TMP/ratio.pb.gz" >"$E2E_TMP/traces.raw"
traces "$E2E_TMP/traces.raw" >"$E2E_TMP/traces"
total=0
for f in func_a50 func_b30 func_c15 func_d05; do
	total=$((total + $(top_count "$E2E_TMP/top" $f)))
done
check "$total >= 5000" "$total samples in the four functions"
for f in func_a50 func_b30 func_c15 func_d05; do
	want=$(share_of "$E2E_TMP/ratio.out" $f)
	n=$(top_count "$E2E_TMP/top" $f)
	share_ok "$(awk -v n="$n" -v t="$total" 'BEGIN { printf "%.3f", 100 * n / t }')" \
		"$want" "$f (-top)"
	n=$(awk -F'\t' -v s="$f" '$2 == s { n += $1 } END { print n + 0 }' "$E2E_TMP/traces")
	share_ok "$(awk -v n="$n" -v t="$total" 'BEGIN { printf "%.3f", 100 * n / t }')" \
		"$want" "$f (-traces)"
done

# ---- call chains: cgleaf ----
rm -rf "$SESSION_DIR"
op --setup --no-vmlinux --event="cpu-clock:$ACC_PERIOD" --separate=none \
	--callgraph=32 || fail "opcontrol --setup --callgraph=32 failed"
op --start || fail "opcontrol --start failed"
"$WORKLOADS/cgleaf" 4 >"$E2E_TMP/cgleaf.out" || fail "cgleaf workload failed"
acc_stop
cat "$E2E_TMP/cgleaf.out"
# the integrity record holds the chain store's two lists, which the
# export checks
for l in chains images; do
	grep -q " 0 [0-9]* callchains/$l\$" "$SESSION_DIR/samples/current/stats/sums" ||
		fail "the integrity record does not hold callchains/$l"
done
"$OPEXPORT" --session-dir="$SESSION_DIR" -o "$E2E_TMP/cg.pb.gz" \
	"image:$WORKLOADS/cgleaf" 2>"$E2E_TMP/export.err" ||
	{ cat "$E2E_TMP/export.err" >&2; fail "opexport of the call-graph session failed"; }
! grep -q "no call chains" "$E2E_TMP/export.err" ||
	fail "opexport found no call chains in a --callgraph session"
pprof -traces "$E2E_TMP/cg.pb.gz" >"$E2E_TMP/traces.raw"
traces "$E2E_TMP/traces.raw" >"$E2E_TMP/traces"
# for the log: the heaviest stacks, innermost frame first
sort -t"$(printf '\t')" -k1,1nr "$E2E_TMP/traces" | awk 'NR <= 8'
# the stacks as the program made them, innermost first
via_a=$(awk -F'\t' '$2 == "cg_leaf" && $3 == "cg_via_a" && $4 == "main" { n += $1 }
	END { print n + 0 }' "$E2E_TMP/traces")
via_b=$(awk -F'\t' '$2 == "cg_leaf" && $3 == "cg_via_b" && $4 == "main" { n += $1 }
	END { print n + 0 }' "$E2E_TMP/traces")
sys=$(awk -F'\t' '{ for (i = 2; i <= NF; i++) if ($i == "cg_syscalls") { n += $1; break } }
	END { print n + 0 }' "$E2E_TMP/traces")
kread=$(awk -F'\t' '{ k = 0; for (i = 2; i <= NF; i++) { if ($i == "read_zero" || $i == "vfs_read") k = 1;
	if ($i == "cg_syscalls" && k) { n += $1; break } } } END { print n + 0 }' "$E2E_TMP/traces")
total=$((via_a + via_b + sys))
echo "traces: via_a $via_a via_b $via_b syscalls $sys (kernel read under it: $kread)"
check "$total >= 5000" "$total samples in cgleaf's three parts"
check "$kread > 0" "read(2)'s kernel frames sit above cg_syscalls"
for part in via_a via_b syscalls; do
	case $part in via_a) n=$via_a ;; via_b) n=$via_b ;; syscalls) n=$sys ;; esac
	share_ok "$(awk -v n="$n" -v t="$total" 'BEGIN { printf "%.3f", 100 * n / t }')" \
		"$(share_of "$E2E_TMP/cgleaf.out" $part)" "$part (-traces)"
done

# folded: the same stacks, root first
"$OPEXPORT" --session-dir="$SESSION_DIR" --format=folded -o "$E2E_TMP/cg.folded" \
	"image:$WORKLOADS/cgleaf" 2>/dev/null || fail "opexport --format=folded failed"
n=$(awk '$1 ~ /(^|;)main;cg_via_a;cg_leaf$/ { n += $NF } END { print n + 0 }' "$E2E_TMP/cg.folded")
check "$n == $via_a" "folded main;cg_via_a;cg_leaf $n, pprof $via_a"

# flame graph: well-formed, renders
"$OPEXPORT" --session-dir="$SESSION_DIR" --format=flamegraph -o "$E2E_TMP/cg.svg" \
	2>/dev/null || fail "opexport --format=flamegraph failed"
xmllint --noout "$E2E_TMP/cg.svg" || fail "the flame graph is not well-formed XML"
rsvg-convert "$E2E_TMP/cg.svg" -o "$E2E_TMP/cg.png" || fail "rsvg-convert cannot render the flame graph"
grep -q "<title>cg_leaf (executable)" "$E2E_TMP/cg.svg" || fail "no cg_leaf frame in the flame graph"
grep -q "_\[k\]\|(kernel)" "$E2E_TMP/cg.svg" || fail "no kernel frame in the flame graph"
echo "ok: flame graph $(stat -c %s "$E2E_TMP/cg.svg") bytes, rendered"
