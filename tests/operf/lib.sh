# Sourced by the operf tests after tests/e2e/lib.sh (and, for the accuracy
# ones, tests/accuracy/acclib.sh): operf's session is ./oprofile_data in
# the test's own directory, where opreport finds it without --session-dir.
OPERF=$top_builddir/daemon/operf
cd "$E2E_TMP"
SESSION_DIR=$E2E_TMP/oprofile_data

# operf_report OUT ARGS...: opreport ARGS from the test's directory, with
# no --session-dir (./oprofile_data is opreport's default when it exists)
operf_report() {
	local out=$1
	shift
	"$OPREPORT" "$@" >"$out" 2>"$out.err" || {
		cat "$out" "$out.err" >&2
		fail "opreport $* failed"
	}
}
