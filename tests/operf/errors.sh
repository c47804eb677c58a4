#!/usr/bin/env bash
# operf's refusals: each with a message and a non-zero exit, before any
# session is created. Nothing here profiles, so no root is needed.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
. "$top_srcdir/tests/operf/lib.sh"

expect 2 "give one of" "$OPERF"
expect 2 "unknown option" "$OPERF" --bogus true
expect 2 "give one of" "$OPERF" --pid 1 true
expect 2 "give one of" "$OPERF" --system-wide --pid 1
expect 2 "not a process id" "$OPERF" --pid abc
expect 2 "not a process id" "$OPERF" --pid -5
expect 1 "no such process" "$OPERF" --pid 999999999
expect 127 "cannot run no-such-command-here: not found in PATH" "$OPERF" no-such-command-here
expect 127 "No such file or directory" "$OPERF" ./not/there
touch "$E2E_TMP/not-executable"
expect 126 "Permission denied" "$OPERF" "$E2E_TMP/not-executable"
expect 2 "--vmlinux=/no/such/vmlinux" "$OPERF" --vmlinux=/no/such/vmlinux true
expect 2 "--unwind=dwarf,0: the stack size must be a number of bytes" "$OPERF" --unwind=dwarf,0 true
[ ! -e "$E2E_TMP/oprofile_data" ] || fail "a refused operf created ./oprofile_data"

expect 0 "--system-wide" "$OPERF" --help
for opt in --pid --system-wide --events --callgraph --unwind --separate-thread \
	--separate-cpu --session-dir --vmlinux --append --lazy-conversion \
	--verbose --version; do
	grep -qF -- "$opt" <<<"$OUT" || fail "--help does not list $opt"
done
expect 0 "$OPERF: opsampler " "$OPERF" --version
grep -qE '^[^ ]+: opsampler [0-9.]+ compiled on [A-Z][a-z]{2} [ 0-9]{2} [0-9]{4} [0-9:]{8}$' <<<"$OUT" ||
	fail "operf --version is not in OProfile's shape: $OUT"
echo "errors: all cases passed"
