#!/usr/bin/env bash
# operf COMMAND: the command's exit status is operf's (128 + N for signal
# N); -g writes arcs; the session before moves to samples/previous, or stays with
# --append; a session in use is refused; opreport finds ./oprofile_data.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
. "$top_srcdir/tests/operf/lib.sh"
e2e_need_perf

expect 3 "sh exited with status 3" "$OPERF" sh -c 'exit 3'
grep -qx "Profiling done." <<<"$OUT" || fail "no Profiling done. after a failing command"
expect 0 "Profiling done." "$OPERF" true
expect $((128 + 15)) "killed by signal 15" "$OPERF" sh -c 'kill -TERM $$'
# arguments go to the command, options after it are its own
expect 0 "" "$OPERF" -e cpu-clock:100000 "$WORKLOADS/burn" -t 0.5 1
grep -q "^burn: wall_s" <<<"$OUT" || fail "burn's own -t did not reach it"

# --callgraph: arcs in {cg} files, chains counted
expect 0 "" "$OPERF" -g -d "$E2E_TMP/cg" -e cpu-clock:100000 "$WORKLOADS/cgleaf" 1
[ -n "$(find "$E2E_TMP/cg/samples/current" -path '*{cg}*' -type f | head -1)" ] ||
	fail "operf -g wrote no {cg} arc file"
[ "$(cat "$E2E_TMP/cg/samples/current/stats/callgraph_chains")" -gt 0 ] ||
	fail "operf -g counted no call chains"

# previous/ and --append
operf_report "$E2E_TMP/first" --merge all
first=$(cat "$SESSION_DIR/samples/current/stats/total_samples")
[ -d "$SESSION_DIR/samples/previous" ] || fail "no samples/previous after a second run"
expect 0 "" "$OPERF" --append -e cpu-clock:100000 "$WORKLOADS/burn" -t 0.5 1
after=$(cat "$SESSION_DIR/samples/current/stats/total_samples")
echo "burn: $first samples, then $after with --append"
burn1=$(awk '$NF == "burn" && $1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$E2E_TMP/first")
operf_report "$E2E_TMP/second" --merge all
burn2=$(awk '$NF == "burn" && $1 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$E2E_TMP/second")
[ "$burn1" -gt 1000 ] && [ "$burn2" -gt $((burn1 + burn1 / 2)) ] ||
	fail "--append: burn had $burn1 samples, then $burn2 (about twice expected)"

# one profiler per session directory
"$WORKLOADS/longrun" 10 >/dev/null &
lr=$!
"$OPERF" --pid "$lr" >/dev/null 2>"$E2E_TMP/holder.err" &
holder=$!
for _ in $(seq 200); do grep -q "Profiler started" "$E2E_TMP/holder.err" && break; sleep 0.05; done
expect 1 "in use by another profiler (pid $holder)" "$OPERF" true
kill -INT "$holder"
wait "$holder" || fail "operf --pid failed"
kill "$lr"
wait "$lr" 2>/dev/null || true

# the session OProfile's way: opreport with no --session-dir
operf_report "$E2E_TMP/default"
grep -q "oprofile_data" "$E2E_TMP/default.err" || fail "opreport did not say it uses ./oprofile_data"
