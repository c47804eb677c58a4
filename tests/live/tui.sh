#!/usr/bin/env bash
# optop's terminal view in a real terminal: tmux runs it on a live
# opcontrol session (10 kHz, separated by CPU) while tests/workloads/ratio
# runs. Through `tmux capture-pane`: after '/' ratio, func_a50 heads the
# table within two intervals of ratio's start; the running totals ('t')
# give the four functions' shares within 2 points of the program's own;
# 'c' shows one column per CPU; 's' sorts by name; unknown keys change
# nothing; a resize is survived; 'q' leaves the shell's terminal as it
# was (modes, main screen, cursor).
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/live/lib.sh"
e2e_need_perf
live_tmux

# first_row: the symbol of the table's first row (the pane's 4th line)
first_row() { screen | sed -n 4p | awk '{ print $NF }'; }
optop_pid() { pgrep -f -- "$OPTOP --session-dir=$SESSION_DIR" | head -n 1; }

acc_start cpu
T new-session -d -s optop -x 160 -y 45 "bash --norc --noprofile"
T send-keys -t optop "stty -g >'$E2E_TMP/stty.before'; clear" Enter
T send-keys -t optop "'$OPTOP' --session-dir='$SESSION_DIR' -d 1 2>'$E2E_TMP/tui.err'; echo optop-exit=\$?; stty -g >'$E2E_TMP/stty.after'" Enter
wait_for "samples +%" 10
pid=$(optop_pid)
[ -n "$pid" ] || fail "optop is not running"
[ "$(T display -p -t optop '#{alternate_on}')" = 1 ] || fail "optop did not take the alternate screen"

# the filter: '/', the text, Enter
T send-keys -t optop /
wait_for "^filter" 5
T send-keys -t optop -l ratio
T send-keys -t optop Enter
wait_for "filter ratio" 5

"$WORKLOADS/ratio" 4 >"$E2E_TMP/ratio.out" &
ratio=$!
start=$(date +%s.%N)
seen=
while kill -0 $ratio 2>/dev/null; do
	if [ "$(first_row)" = func_a50 ]; then
		seen=$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.2f", n - s }')
		break
	fi
	sleep 0.1
done
screen
wait $ratio || fail "ratio workload failed"
cat "$E2E_TMP/ratio.out"
[ -n "$seen" ] || fail "func_a50 never headed the table while ratio ran"
# two intervals of 1 s, and the daemon's sync (250 ms) before the first
check "$seen <= 2.5" "func_a50 headed the table $seen s after ratio started (two intervals: 2 s)"

# the running totals, once the daemon's last sync is in
sleep 2.5
T send-keys -t optop t
wait_for "\\[t\\] totals" 5
screen | awk 'NR > 3 && $1 ~ /^[0-9]+$/ && $NF ~ /^func_/ { print $NF, $1 }' >"$E2E_TMP/counts"
screen
live_judge "$E2E_TMP/counts" "$E2E_TMP/ratio.out" 2

# 'c': one column per CPU, and back
T send-keys -t optop c
wait_for "per-CPU on" 5
ncpu=$(nproc)
cols=$(screen | sed -n 3p | grep -oE 'cpu[0-9]+' | sort -u | wc -l)
check "$cols == $ncpu" "'c' shows $cols CPU columns ($ncpu CPUs)"
T send-keys -t optop c
wait_for "per-CPU off" 5

# 's': by name (strcmp's order), and back
T send-keys -t optop s
wait_for "\\[s\\] by name" 5
# the rows named by a plain identifier, in the order shown (image names
# may hold spaces, "(no symbols)" does: a sorted list's part is sorted)
screen | awk 'NR > 3 && $1 ~ /^[0-9]+$/ && $NF ~ /^[A-Za-z_][A-Za-z0-9_.]*$/ { print $NF }' \
	>"$E2E_TMP/by_name"
cat "$E2E_TMP/by_name"
[ "$(wc -l <"$E2E_TMP/by_name")" -ge 4 ] || fail "'s' left fewer than ratio's four functions"
LC_ALL=C sort -c "$E2E_TMP/by_name" || fail "'s' did not sort the rows by name"
T send-keys -t optop s
wait_for "\\[s\\] by samples" 5

# 'u' hides user space (ratio's functions), 'k' the kernel; Enter on a
# session without call chains says so
T send-keys -t optop u
wait_for "user hidden" 5
! screen | grep -q func_a50 || fail "'u' left ratio's functions shown"
T send-keys -t optop u k
wait_for "kernel hidden" 5
wait_for "func_a50" 5
T send-keys -t optop k Enter
wait_for "no call chains" 5
T send-keys -t optop Enter
sleep 0.5
! screen | grep -q "no call chains" || fail "Enter did not fold the callers away"

# unknown keys: ignored
before=$(screen | sed -n 2p)
T send-keys -t optop x Z 9 F5 '#'
sleep 1.5
[ "$(optop_pid)" = "$pid" ] || fail "optop died on an unknown key"
[ "$(screen | sed -n 2p)" = "$before" ] || fail "an unknown key changed the display's choices"

# a resize, smaller then larger: redrawn, alive
T resize-window -t optop -x 70 -y 15
sleep 1.5
[ "$(optop_pid)" = "$pid" ] || fail "optop died on a resize"
screen | grep -qE "samples +%" || fail "no table after the resize"
w=$(screen | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }')
check "$w <= 70" "the redrawn screen fits the 70 columns ($w)"
T resize-window -t optop -x 200 -y 50
sleep 1.5
[ "$(optop_pid)" = "$pid" ] || fail "optop died on the second resize"
screen | grep -qE "samples +%" || fail "no table after the second resize"

# 'q': the shell gets its terminal back as it was
T send-keys -t optop q
wait_for "^optop-exit=[0-9]+" 10
screen | grep -q "^optop-exit=0" || fail "optop did not exit 0 on q"
for ((i = 0; i < 50; i++)); do [ -s "$E2E_TMP/stty.after" ] && break; sleep 0.1; done
cmp -s "$E2E_TMP/stty.before" "$E2E_TMP/stty.after" ||
	fail "terminal modes differ after q: $(cat "$E2E_TMP/stty.before") / $(cat "$E2E_TMP/stty.after")"
[ "$(T display -p -t optop '#{alternate_on}')" = 0 ] || fail "still on the alternate screen after q"
[ "$(T display -p -t optop '#{cursor_flag}')" = 1 ] || fail "the cursor is hidden after q"
! screen | grep -qE "samples +%" || fail "optop's table is still on the main screen"
[ ! -s "$E2E_TMP/tui.err" ] || { cat "$E2E_TMP/tui.err"; fail "optop wrote to stderr"; }
echo "ok: q left a clean terminal"
acc_stop
