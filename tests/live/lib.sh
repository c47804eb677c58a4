# Sourced by optop's end-to-end tests after tests/e2e/lib.sh and
# tests/accuracy/acclib.sh: the program, how to run it in batch mode and in
# a terminal (tmux), and how to read its tables.
OPTOP=$top_builddir/pp/optop

# live_tables OUT: optop --batch's output OUT as "TABLE SAMPLES IMAGE SYMBOL"
# lines, TABLE counting the tables from 1.
live_tables() {
	awk '/^optop: [0-9]+: / { t = $2 + 0; next }
		t && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ && NF >= 4 { print t, $1, $(NF - 1), $NF }' "$1"
}

# live_judge COUNTS OUT TOLERANCE: COUNTS holds "SYMBOL SAMPLES" lines for
# ratio's four functions; each one's share of the four must be within
# TOLERANCE points of the share the program printed (OUT), with enough
# samples for that tolerance (acclib.sh's ratio_judge, on optop's figures).
live_judge() {
	local counts=$1 out=$2 tol=$3 total f n want got
	total=$(awk '{ n += $2 } END { print n + 0 }' "$counts")
	check "$total >= 5000" "$total samples in the four functions (>= 5000 needed for the $tol-point test)"
	for f in func_a50 func_b30 func_c15 func_d05; do
		n=$(awk -v f="$f" '$1 == f { n += $2 } END { print n + 0 }' "$counts")
		want=$(share_of "$out" $f)
		got=$(awk -v n="$n" -v t="$total" 'BEGIN { printf "%.3f", 100 * n / t }')
		check "$got - $want <= $tol && $want - $got <= $tol" "$f: optop $got %, program $want %"
	done
}

# live_batch WORKLOAD SECONDS SETTLE ARGS...: optop --batch ARGS on the
# session ($E2E_TMP/optop.out, its stderr optop.err) while
# tests/workloads/WORKLOAD runs for SECONDS ($E2E_TMP/WORKLOAD.out);
# SETTLE seconds later (the daemon's last sync, and two refreshes after
# it) SIGINT ends it, which it must take as its exit 0. Both outputs are
# shown for the log.
live_batch() {
	local workload=$1 seconds=$2 settle=$3 optop
	shift 3
	"$OPTOP" --batch --session-dir="$SESSION_DIR" "$@" \
		>"$E2E_TMP/optop.out" 2>"$E2E_TMP/optop.err" &
	optop=$!
	sleep 0.5	# its first refresh, the baseline
	"$WORKLOADS/$workload" "$seconds" >"$E2E_TMP/$workload.out" || fail "$workload workload failed"
	sleep "$settle"
	kill -INT $optop
	wait $optop || fail "optop --batch exited $? after SIGINT"
	cat "$E2E_TMP/$workload.out" "$E2E_TMP/optop.err"
	head -n 40 "$E2E_TMP/optop.out"
}

# The terminal view's tests run optop in a pane named optop of a tmux
# server of their own (socket under $E2E_TMP, no configuration read).
# live_tmux: needs tmux, and on exit shows the pane and optop's stderr
# ($E2E_TMP/tui.err) when the test failed, ends the server, then the
# session (acc_cleanup) whatever failed.
live_tmux() {
	command -v tmux >/dev/null || fail "tmux is not installed (scripts/install-deps.sh installs it)"
	LIVE_SOCK=$E2E_TMP/tmux.sock
	trap live_tmux_cleanup EXIT
}
T() { tmux -S "$LIVE_SOCK" -f /dev/null "$@"; }
screen() { T capture-pane -p -t optop; }
live_status_is() { return "$1"; }
live_tmux_cleanup() {
	local status=$?
	set +e	# the daemon must be shut down whatever fails here
	if [ -S "$LIVE_SOCK" ]; then
		if [ "$status" -ne 0 ]; then
			echo "--- the pane:" >&2
			screen >&2
			cat "$E2E_TMP/tui.err" >&2 2>/dev/null
		fi
		T kill-server 2>/dev/null
	fi
	live_status_is "$status"
	acc_cleanup
}

# wait_for TEXT SECONDS: until the pane shows TEXT (a grep -E pattern);
# fails the test, the pane shown, when it does not within SECONDS.
wait_for() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		screen | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	screen
	fail "the pane did not show '$1' within $2 s"
}
