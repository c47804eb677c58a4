# Sourced by the oparchive and opgprof tests: OProfile 1.4.0's tools when
# they can be had (built once per build tree, as the interop tests build
# them), for the checks that the other tool reads what ours writes. Sets
# PEER to its bin directory, or to nothing when it cannot be built (those
# checks are then skipped, and fail when OPSAMPLER_REQUIRE_PERF is set).
PEER_DIR=${OPSAMPLER_PEER_DIR:-$top_builddir/tests/peer-oprofile}
PEER=$PEER_DIR/prefix/bin
if [ ! -x "$PEER/opreport" ]; then
	script=$top_srcdir/../shared/peers/build-oprofile.sh
	if [ -f "$script" ]; then
		mkdir -p "$PEER_DIR"
		flock "$PEER_DIR.lock" bash "$script" "$PEER_DIR" >&2 || true
	fi
fi
if [ ! -x "$PEER/opreport" ]; then
	[ "${OPSAMPLER_REQUIRE_PERF:-0}" = 0 ] || fail "no OProfile 1.4.0 to check against"
	echo "note: no OProfile 1.4.0 built: its checks are skipped"
	PEER=
fi
