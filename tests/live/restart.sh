#!/usr/bin/env bash
# optop --batch across a daemon's life: it watches a live opcontrol
# session (10 kHz, separated by CPU) while tests/workloads/ratio runs;
# the session is stopped (--stop), the daemon ended (--shutdown), the
# session saved away (--save: its files go), and a new daemon started
# (--start), under which ratio runs again. optop keeps going throughout:
# its status line says stopped, gone, then restarted with the new pid;
# its tables show nothing while nothing is sampled; and, interval
# arithmetic checked whole, the samples of ratio's four functions its
# tables add up to are, before the stop, those of the saved session and,
# after the restart, those of the new one, as opreport counts them, to
# the sample; the second run's shares within 2 points of the program's.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/live/lib.sh"
e2e_need_perf

# "SYMBOL SAMPLES" of ratio's four functions in opreport -l of SESSION
op_funcs() {
	"$OPREPORT" --session-dir="$SESSION_DIR" -l "$1" "image:$WORKLOADS/ratio" 2>/dev/null |
		awk '$NF ~ /^func_/ { n[$NF] += $1 } END { for (f in n) print f, n[f] }' | sort
}
# "SYMBOL SAMPLES" of the four functions over optop's tables whose status
# line names PID
optop_funcs() {
	awk -v p="oprofiled $1[: ]" '/^optop: [0-9]+: / { on = $0 ~ p; next }
		on && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ && $NF ~ /^func_/ { n[$NF] += $1 }
		END { for (f in n) print f, n[f] }' "$E2E_TMP/optop.out" | sort
}

acc_start cpu
old=$(cat "$SESSION_DIR/lock")
sleep 0.5
"$OPTOP" --batch -d 1 --session-dir="$SESSION_DIR" --filter=ratio -l 0 \
	>"$E2E_TMP/optop.out" 2>"$E2E_TMP/optop.err" &
optop=$!
sleep 0.5	# the baseline
"$WORKLOADS/ratio" 2 >"$E2E_TMP/ratio1.out" || fail "ratio workload failed"
sleep 2.5	# the daemon's last sync, and two refreshes after it
op --stop || fail "opcontrol --stop failed"
sleep 2.5
op --shutdown || fail "opcontrol --shutdown failed"
sleep 2.5
op --save=first || fail "opcontrol --save=first failed"
sleep 1.5
op --start || fail "opcontrol --start failed"
new=$(cat "$SESSION_DIR/lock")
[ "$new" != "$old" ] || fail "the new daemon has the old one's pid"
sleep 0.5
"$WORKLOADS/ratio" 2 >"$E2E_TMP/ratio2.out" || fail "ratio workload failed"
sleep 2.5
kill -INT $optop
wait $optop || fail "optop --batch exited $? after SIGINT"
cat "$E2E_TMP/ratio1.out" "$E2E_TMP/ratio2.out" "$E2E_TMP/optop.err"
grep "^optop: " "$E2E_TMP/optop.out"
[ ! -s "$E2E_TMP/optop.err" ] || fail "optop wrote to stderr"

# the status line through the daemon's life
grep -q "oprofiled $old (stopped)" "$E2E_TMP/optop.out" || fail "no status line says the daemon stopped"
grep -q "oprofiled gone" "$E2E_TMP/optop.out" || fail "no status line says the daemon is gone"
[ "$(grep -c "oprofiled $new (restarted)" "$E2E_TMP/optop.out")" = 1 ] ||
	fail "not one status line says the daemon restarted as $new"
# nothing sampled, nothing shown: no row of ratio's while stopped or gone
# (it ended before), and no samples at all in an interval that began
# stopped or gone (the first may hold the last sync before the stop)
awk '/^optop: [0-9]+: / { was = quiet; quiet = / \(stopped\)|oprofiled gone/
		if (quiet && was && $6 != 0) { print "samples while quiet: " $0; bad = 1 }; next }
	quiet && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ { print "row while nothing samples: " $0; bad = 1 }
	END { exit bad }' "$E2E_TMP/optop.out" || fail "samples shown while nothing was sampled"

# the interval arithmetic whole: what the tables add up to is what the
# sessions hold
op_funcs session:first >"$E2E_TMP/first.op"
optop_funcs "$old" >"$E2E_TMP/first.optop"
echo "before the stop (opreport | optop):"; paste "$E2E_TMP/first.op" "$E2E_TMP/first.optop"
[ "$(wc -l <"$E2E_TMP/first.op")" = 4 ] || fail "opreport does not show ratio's four functions in session:first"
cmp -s "$E2E_TMP/first.op" "$E2E_TMP/first.optop" ||
	fail "optop's tables before the stop do not add up to the saved session"
acc_stop
op_funcs session:current >"$E2E_TMP/second.op"
optop_funcs "$new" >"$E2E_TMP/second.optop"
echo "after the restart (opreport | optop):"; paste "$E2E_TMP/second.op" "$E2E_TMP/second.optop"
[ "$(wc -l <"$E2E_TMP/second.op")" = 4 ] || fail "opreport does not show ratio's four functions in the new session"
cmp -s "$E2E_TMP/second.op" "$E2E_TMP/second.optop" ||
	fail "optop's tables after the restart do not add up to the new session"
live_judge "$E2E_TMP/second.optop" "$E2E_TMP/ratio2.out" 2
echo "ok: optop across a stop, a shutdown and a restart"
