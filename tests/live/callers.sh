#!/usr/bin/env bash
# optop --batch --callers on a live call-graph session (opcontrol
# --callgraph=32, 10 kHz, system-wide) while tests/workloads/cgleaf runs:
# cg_leaf, reached through cg_via_a and cg_via_b (about 70 : 30 of its
# time), heads cgleaf's rows; with --callers=1 the first row of each table,
# and no other, has its callers under it; over the tables, cg_via_a's
# share of cg_leaf's callers is within 2 points of the program's own
# figure; each caller line's share is its samples over the callers'.
# In the terminal view (tmux), Enter on cg_leaf shows the same callers.
# Without call chains, --callers says there are none.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/live/lib.sh"
e2e_need_perf
live_tmux

op --setup --no-vmlinux --event="cpu-clock:$ACC_PERIOD" --separate=none \
	--callgraph=32 || fail "opcontrol --setup --callgraph=32 failed"
op --start || fail "opcontrol --start failed"
sleep 0.5
live_batch cgleaf 4 2.5 -d 1 --filter=cgleaf -l 5 --callers=1
! grep -q "no call chains" "$E2E_TMP/optop.out" || fail "optop found no call chains in a --callgraph session"

# "TABLE ROW SAMPLES SHARE SYMBOL" for the rows (ROW counting from 1) and
# "TABLE ROW <- SAMPLES SHARE SYMBOL" for the callers under row ROW
awk '/^optop: [0-9]+: / { t = $2 + 0; r = 0; next }
	t && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ && NF >= 4 { r++; print t, r, $1, $2, $NF; next }
	t && $1 == "<-" && $2 ~ /^[0-9]+$/ { print t, r, "<-", $2, $3, $NF }' \
	"$E2E_TMP/optop.out" >"$E2E_TMP/lines"
grep -q " <- " "$E2E_TMP/lines" || fail "no caller lines"
# --callers=1: callers under the first row only
awk '$3 == "<-" && $2 != 1 { print "callers under row " $2 " of table " $1; bad = 1 } END { exit bad }' \
	"$E2E_TMP/lines" || fail "--callers=1 printed callers under another row than the first"
# cg_leaf heads cgleaf's rows in every table where cgleaf's functions
# have a few hundred samples
awk '$3 != "<-" && $2 == 1 && $3 >= 500 && $5 != "cg_leaf" { print "table " $1 ": " $5 " first"; bad = 1 }
	END { exit bad }' "$E2E_TMP/lines" || fail "cg_leaf is not the heaviest of cgleaf's functions"
# each caller line's share is of the callers' samples: per table, they
# add up to 100 (cg_leaf has fewer callers than a row prints)
awk '$3 == "<-" { s[$1] += $5 } END { for (t in s) if (s[t] < 99.9 || s[t] > 100.1) { print "table " t ": " s[t]; bad = 1 }
	exit bad }' "$E2E_TMP/lines" || fail "callers' shares do not add up to 100 %"

a=$(awk '$3 == "<-" && $6 == "cg_via_a" { n += $4 } END { print n + 0 }' "$E2E_TMP/lines")
b=$(awk '$3 == "<-" && $6 == "cg_via_b" { n += $4 } END { print n + 0 }' "$E2E_TMP/lines")
all=$(awk '$3 == "<-" { n += $4 } END { print n + 0 }' "$E2E_TMP/lines")
echo "cg_leaf's callers over the tables: cg_via_a $a, cg_via_b $b, all $all"
check "$a + $b >= 5000" "$a + $b samples of cg_leaf through its two callers (>= 5000 for a 2-point test)"
check "$a + $b >= 0.95 * $all" "cg_via_a and cg_via_b are $((a + b)) of cg_leaf's $all caller samples (>= 95 %)"
pair_judge "$a" "$b" "$E2E_TMP/cgleaf.out" via_a via_b "cg_via_a's share of cg_leaf's callers: optop"
# the largest caller is printed first
awk '$3 == "<-" { if (!($1 in first)) first[$1] = $6; n[$1] += $4 }
	END { for (t in first) if (n[t] >= 1000 && first[t] != "cg_via_a") { print "table " t ": " first[t]; bad = 1 }
	exit bad }' "$E2E_TMP/lines" || fail "cg_via_a is not the first caller"

# the terminal view: Enter on cg_leaf (the first row) shows the same
# callers under it, cg_via_a first
T new-session -d -s optop -x 160 -y 40 \
	"exec '$OPTOP' --session-dir='$SESSION_DIR' -d 1 --filter=cgleaf -t 2>'$E2E_TMP/tui.err'"
wait_for "samples +%" 10
"$WORKLOADS/cgleaf" 2 >"$E2E_TMP/cgleaf2.out" || fail "cgleaf workload failed"
wait_for "^ +[0-9]+ +[0-9.]+ +cgleaf +cg_leaf" 5
screen | sed -n 4p | grep -qE " cg_leaf *$" || { screen; fail "cg_leaf is not the first row"; }
T send-keys -t optop Home Enter
wait_for "<- +[0-9]+ +[0-9.]+ +cgleaf +cg_via_a" 5
screen
screen | awk '/ cg_leaf *$/ { getline; exit !($0 ~ /<- .* cg_via_a *$/) }' ||
	fail "cg_via_a is not the first caller under cg_leaf"
screen | grep -qE "<- +[0-9]+ +[0-9.]+ +cgleaf +cg_via_b" || fail "cg_via_b is not among cg_leaf's callers"
T send-keys -t optop q
for ((i = 0; i < 50; i++)); do T has-session -t optop 2>/dev/null || break; sleep 0.1; done
! T has-session -t optop 2>/dev/null || fail "optop did not quit on q"
[ ! -s "$E2E_TMP/tui.err" ] || { cat "$E2E_TMP/tui.err"; fail "optop wrote to stderr"; }
acc_stop

# a session without call chains: --callers says so
rm -rf "$SESSION_DIR"
acc_start none
"$OPTOP" --batch -n 1 -d 0.5 --session-dir="$SESSION_DIR" --callers \
	>"$E2E_TMP/flat.out" 2>&1 || { cat "$E2E_TMP/flat.out"; fail "optop --callers failed"; }
grep -q "^optop: no call chains in the session" "$E2E_TMP/flat.out" ||
	{ cat "$E2E_TMP/flat.out"; fail "--callers on a session without chains does not say so"; }
! grep -q " <- " "$E2E_TMP/flat.out" || fail "caller lines without call chains"
acc_stop
echo "ok: optop --callers"
