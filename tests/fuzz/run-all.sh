#!/usr/bin/env bash
# run-all.sh CC SECONDS TOP_SRCDIR TARGET...: builds each fuzz target with
# clang's libFuzzer (+ASan/UBSan) and runs it for SECONDS on its seed corpus.
# TARGET is a source file under tests/; its first line names the extra
# sources it needs: "/* fuzz-sources: libop/odb.c libop/op_log.c */", and
# a second line may name libraries: "/* fuzz-libs: -ldw -lelf */".
set -euo pipefail
cc=$1 secs=$2 top=$3
shift 3
if [ $# -eq 0 ]; then echo "fuzz: no fuzz targets yet"; exit 0; fi
if [ -z "$cc" ]; then echo "fuzz: clang not found (apt-get install clang libclang-rt-dev)" >&2; exit 1; fi
mkdir -p fuzz
status=0
for t in "$@"; do
	name=$(basename "$t" .c)
	srcs=$(sed -n '1s/.*fuzz-sources:\(.*\)\*\/.*/\1/p' "$top/tests/$t")
	libs=$(sed -n '2s/.*fuzz-libs:\(.*\)\*\/.*/\1/p' "$top/tests/$t")
	bin=fuzz/$name
	extra=()
	for s in $srcs; do extra+=("$top/$s"); done
	"$cc" -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I. -I.. -I"$top/libop" -I"$top/kmod" -I"$top/pp/core" -I"$top/daemon" \
		"$top/tests/$t" "${extra[@]}" -o "$bin" $libs
	corpus=fuzz/corpus-$name
	mkdir -p "$corpus"
	[ -d "$top/tests/fuzz/seeds/$name" ] && cp -n "$top/tests/fuzz/seeds/$name"/* "$corpus"/ 2>/dev/null || true
	echo "fuzz: $name for ${secs}s"
	if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$corpus" >"fuzz/$name.out" 2>&1; then
		echo "fuzz: $name FAILED"; tail -40 "fuzz/$name.out"; status=1
	else
		grep -E 'stat::number_of_executed_units|Done' "fuzz/$name.out" | tail -2
	fi
done
exit $status
