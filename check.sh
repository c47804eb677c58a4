#!/usr/bin/env bash
# ./check.sh: install what is missing, build, and run every test:
#   1. the whole suite (unit, end-to-end with the real kernel) under
#      AddressSanitizer and UndefinedBehaviorSanitizer;
#   2. the concurrency stress tests under ThreadSanitizer;
#   3. a short run of every fuzz target;
#   4. the plain GNU build in the source tree (./configure && make), in a
#      copy of it, with the report tests whose paths an in-tree build
#      changes.
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")"
top=$(pwd)

scripts/install-deps.sh

status=0
summary() {
	# the harness summary of a build directory's test-suite.log files
	find "$1" -name test-suite.log -path '*/tests/*' -exec sed -n '1,12p' {} \; 2>/dev/null || true
}
show_failures() {
	# show_failures DIR N [FIND-ARGS...]: the tails of up to N failed tests' logs under DIR
	local dir=$1 n=$2
	shift 2
	find "$dir" -name '*.log' ! -name test-suite.log "$@" \
		-exec grep -l -E '^(FAIL|ERROR)' {} \; 2>/dev/null | head -"$n" | while read -r f; do
		echo "---- $f"; tail -40 "$f"; done
}

echo "== build (ASan+UBSan) and make check"
scripts/build.sh build-asan --enable-sanitizers
if ! make -C build-asan check -j"$(nproc)"; then
	status=1
	show_failures build-asan/tests 20 -newer build-asan/Makefile
fi

echo "== build (TSan) and the stress tests"
scripts/build.sh build-tsan --enable-tsan
make -C build-tsan/tests check-tsan || status=1

echo "== fuzz (${FUZZ_SECONDS:-20} s per target)"
make -C build-asan fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-20}" || status=1

echo "== the plain build in a copy of the source tree"
intree=$(mktemp -d "${TMPDIR:-/tmp}/opsampler-intree.XXXXXX")
trap 'rm -rf "$intree"' EXIT
tar -C "$top" --exclude='./build-asan' --exclude='./build-tsan' --exclude='./autom4te.cache' --exclude='./.git' \
	-cf - . | tar -C "$intree" -xf -
if ! (cd "$intree" && ./configure -q && make -s -j"$(nproc)" &&
      make -s -C tests check TESTS="pp/golden.sh pp/options.sh pp/errors.sh"); then
	status=1
	show_failures "$intree/tests" 5
fi

echo "== test-suite summaries"
summary build-asan
summary build-tsan
[ $status -eq 0 ] && echo "check.sh: all passed" || echo "check.sh: FAILED"
exit $status
