#!/usr/bin/env bash
# optop --batch across a daemon's life: it watches a live opcontrol
# session (10 kHz, separated by CPU) while tests/workloads/ratio runs;
# the session is stopped (--stop), the daemon ended (--shutdown), the
# session saved away (--save: its files go), and a new daemon started
# (--start), under which ratio runs again. optop keeps going throughout:
# its status line says stopped, gone, then restarted with the new pid;
# its tables show nothing while nothing is sampled; and, interval
# arithmetic checked whole, the samples of ratio's four functions its
# tables add up to, before the stop and after the restart, are each
# run's 2 s of CPU at 10 kHz, with each run's shares within 2 points of
# the program's.
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
# with the daemon gone (a stopped one may still be writing what it took
# before the stop, on a loaded machine for a second or more; the first
# interval after it ended, what it wrote at its end)
awk '/^optop: [0-9]+: / { was = gone; gone = /oprofiled gone/; quiet = gone || / \(stopped\)/
		if (gone && was && $6 != 0) { print "samples while gone: " $0; bad = 1 }; next }
	quiet && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ { print "row while nothing samples: " $0; bad = 1 }
	END { exit bad }' "$E2E_TMP/optop.out" || fail "samples shown while nothing was sampled"

# the interval arithmetic whole, against the program: ratio 2 runs 2 s
# of CPU time, 20,000 samples at 10 kHz, nearly all in its four
# functions; a file counted twice (or forgotten) would show. Each run's
# four shares within 2 points of the program's own.
optop_funcs "$old" >"$E2E_TMP/first.optop"
optop_funcs "$new" >"$E2E_TMP/second.optop"
for run in first second; do
	n=$(awk '{ n += $2 } END { print n + 0 }' "$E2E_TMP/$run.optop")
	check "$n >= 18000 && $n <= 20500" "$run run: $n samples in ratio's four functions (2 s of CPU at 10 kHz: 20,000)"
done
live_judge "$E2E_TMP/first.optop" "$E2E_TMP/ratio1.out" 2
live_judge "$E2E_TMP/second.optop" "$E2E_TMP/ratio2.out" 2
# for the log: what opreport reads of the two sessions afterwards
acc_stop
op_funcs session:first >"$E2E_TMP/first.op"
op_funcs session:current >"$E2E_TMP/second.op"
echo "before the stop (opreport session:first | optop):"; paste "$E2E_TMP/first.op" "$E2E_TMP/first.optop"
echo "after the restart (opreport session:current | optop):"; paste "$E2E_TMP/second.op" "$E2E_TMP/second.optop"
echo "ok: optop across a stop, a shutdown and a restart"
