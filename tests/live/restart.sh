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
# the program's. Afterwards opreport must read each session whole: every
# sample the daemon's stats say it wrote (CPU by CPU), and the samples of
# ratio optop showed, short of them only by what a loaded machine may
# leave out (written before optop's baseline or after its last table).
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/live/lib.sh"
e2e_need_perf

# "SYMBOL SAMPLES" of ratio's four functions in opreport -l of SESSION,
# summed over every CPU's column: separated by CPU, opreport shows a
# "samples %" pair per CPU that has samples (one alone when ratio ran on
# one CPU only), so the first column alone is one CPU's part; the image
# column comes only when more than one image matched (ratio's [vdso])
op_funcs() {
	acc_report "$E2E_TMP/funcs.$1" -l "$1" "image:$WORKLOADS/ratio"
	awk '$NF ~ /^func_/ { for (i = 1; i + 1 < NF && $i ~ /^[0-9]+$/ && $(i + 1) ~ /^[0-9.]+$/; i += 2) n[$NF] += $i }
		END { for (f in n) print f, n[f] }' "$E2E_TMP/funcs.$1" | sort
}
# "cpu N SAMPLES" for each CPU column of opreport's image summary of
# SESSION (its applications' lines: the dependent images indented under
# them would count twice), then "all SAMPLES"
op_cpus() {
	acc_report "$E2E_TMP/summary.$1" "$1"
	awk '/^Samples on CPU [0-9]+$/ { cpu[k++] = $4; next }
		/^[^\t]/ && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ {
			for (i = 1; i + 1 < NF && $i ~ /^[0-9]+$/ && $(i + 1) ~ /^[0-9.]+$/; i += 2) {
				n[(i - 1) / 2] += $i; all += $i } }
		END { for (c in n) if (c in cpu) print "cpu", cpu[c], n[c]; print "all", all + 0 }' \
		"$E2E_TMP/summary.$1"
}
# "SYMBOL SAMPLES" of the four functions over optop's tables whose status
# line names PID
optop_funcs() {
	awk -v p="oprofiled $1[: ]" '/^optop: [0-9]+: / { on = $0 ~ p; next }
		on && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ && $NF ~ /^func_/ { n[$NF] += $1 }
		END { for (f in n) print f, n[f] }' "$E2E_TMP/optop.out" | sort
}

# optop_wait AFTER: waits (30 s at most) until a table of optop's that
# began after table AFTER was printed (so not before AFTER + 2) has come
# out whole without a row of ratio's: what ratio's end left to write is
# in the sample files and in optop's tables. AFTER 0: the first table
# (the baseline taken, anything sampled from then on is in the tables).
optop_wait() {
	local i
	for i in $(seq 300); do
		awk -v after="$1" '/^optop: [0-9]+: / { t = $2 + 0; rows[t] = 0; next }
			/^$/ { whole[t] = 1; next }
			$1 ~ /^[0-9]+$/ && $NF ~ /^func_/ { rows[t]++ }
			END { for (k in whole) if (k + 0 >= (after ? after + 2 : 1) && (!after || !rows[k])) exit 0
				exit 1 }' "$E2E_TMP/optop.out" && return 0
		sleep 0.1
	done
	fail "optop printed no table of the kind awaited after table $1"
}
optop_tables() { grep -c "^optop: [0-9]*: " "$E2E_TMP/optop.out" || true; }

acc_start cpu
old=$(cat "$SESSION_DIR/lock")
sleep 0.5
"$OPTOP" --batch -d 1 --session-dir="$SESSION_DIR" --filter=ratio -l 0 \
	>"$E2E_TMP/optop.out" 2>"$E2E_TMP/optop.err" &
optop=$!
optop_wait 0	# the baseline, taken before ratio runs
"$WORKLOADS/ratio" 2 >"$E2E_TMP/ratio1.out" || fail "ratio workload failed"
optop_wait "$(optop_tables)"	# the daemon's last sync, and optop's reading of it
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
optop_wait "$(optop_tables)"
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

# opreport reads each session whole: each CPU's column of its image
# summary holds what that CPU's buffer received (stats/cpuN/sample_received)
# but for what the daemon lost after receiving it (total_samples less
# samples_written: no mapping, no sample file), and all of them together
# what the daemon wrote. A sample file left out, one CPU's file not
# merged, one overwritten by the second daemon would each show here.
acc_stop
for s in first current; do
	st=$SESSION_DIR/samples/$s/stats
	written=$(cat "$st/samples_written") || fail "no samples_written in session $s's stats"
	received=$(cat "$st/total_samples") || fail "no total_samples in session $s's stats"
	op_cpus "session:$s" >"$E2E_TMP/$s.cpus"
	echo "session:$s: opreport by CPU: $(tr '\n' ' ' <"$E2E_TMP/$s.cpus")| the daemon received $received, wrote $written"
	all=$(awk '$1 == "all" { print $2 }' "$E2E_TMP/$s.cpus")
	check "$all == $written" "session:$s: opreport reads $(awk -v a="$all" -v w="$written" 'BEGIN { printf "%.3f", w ? 100 * a / w : 0 }') % of the $written samples the daemon wrote"
	for cpu in $(awk '$1 == "cpu" { print $2 }' "$E2E_TMP/$s.cpus"); do
		n=$(awk -v c="$cpu" '$1 == "cpu" && $2 == c { print $3 }' "$E2E_TMP/$s.cpus")
		got=$(cat "$st/cpu$cpu/sample_received") || fail "no stats/cpu$cpu in session $s"
		check "$n <= $got && $got - $n <= $received - $written" "session:$s: CPU $cpu: opreport $n samples, its buffer received $got"
	done
done
# and every sample of ratio's that optop showed: opreport reads the files
# optop watched, grown since, so at least as much; at most 1 % more
# (sampled before optop's baseline or written after its last table)
op_funcs session:first >"$E2E_TMP/first.op"
op_funcs session:current >"$E2E_TMP/second.op"
echo "before the stop (opreport session:first | optop):"; paste "$E2E_TMP/first.op" "$E2E_TMP/first.optop"
echo "after the restart (opreport session:current | optop):"; paste "$E2E_TMP/second.op" "$E2E_TMP/second.optop"
for run in first second; do
	a=$(awk '{ n += $2 } END { print n + 0 }' "$E2E_TMP/$run.op")
	b=$(awk '{ n += $2 } END { print n + 0 }' "$E2E_TMP/$run.optop")
	check "$b <= $a && $a - $b <= 0.01 * $a" "$run run: opreport reads $a samples in ratio's four functions, optop showed $b"
done
echo "ok: optop across a stop, a shutdown and a restart"
