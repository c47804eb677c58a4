#!/usr/bin/env bash
# opreport names kernel samples from the session's saved copy of the
# sampled kernel symbols (samples/current/stats/kallsyms, written by the
# daemon when collection stops) when it names every sampled kernel
# address; a --kallsyms file overrides it; a sample outside every saved
# symbol (taken since the last stop) sends the report back to
# /proc/kallsyms. The saved names here exist in no real kernel, so the
# output shows which was read.
. "$top_srcdir/tests/pp/lib.sh"

"$MKS" "$S" <<EOF2
header 4 1000
file f:$T f:$T TIMER 100000 0 all all all
sym $T func_a50 0 50
file k:/proc/kallsyms k:/proc/kallsyms TIMER 100000 0 all all all
ksym $KALLSYMS pid_task 0x10 7
ksym $KALLSYMS schedule 0x20 3
EOF2
# fixture offsets: pid_task 0x2000, tty_audit_exit 0x2100, schedule 0x2200
mkdir -p "$S/samples/current/stats"
cat >"$S/samples/current/stats/kallsyms" <<EOF2
# kernel symbols sampled in this session
ffffffff80000000 T _text
ffffffff80002000 t saved_pid_task
ffffffff80002100 - -
ffffffff80002200 T saved_schedule
ffffffff80002300 - -
ffffffff80003000 T _etext
EOF2

report() { "$OPREPORT" --session-dir="$S" -l "$@" >"$OUT" 2>"$E2E_TMP/err" ||
	{ cat "$E2E_TMP/err" >&2; fail "opreport -l $*"; }; }
line_of() { awk -v s="$1" '$NF == s { print $1 }' "$OUT"; }

report
[ "$(line_of saved_pid_task)" = 7 ] || { cat "$OUT" >&2; fail "saved_pid_task not 7 samples"; }
[ "$(line_of saved_schedule)" = 3 ] || { cat "$OUT" >&2; fail "saved_schedule not 3 samples"; }

report --kallsyms="$KALLSYMS"
[ "$(line_of pid_task)" = 7 ] || { cat "$OUT" >&2; fail "--kallsyms not preferred"; }
grep -q saved_ "$OUT" && fail "saved copy read despite --kallsyms"

# a sample in tty_audit_exit, outside every saved symbol
"$MKS" "$S" <<EOF2
file k:/proc/kallsyms k:/proc/kallsyms TIMER 100000 0 all all all
ksym $KALLSYMS tty_audit_exit 0 1
EOF2
report
grep -q saved_ "$OUT" && { cat "$OUT" >&2; fail "saved copy used with an address it does not name"; }
# the fallback read this machine's kernel: no sample is lost
total=$(awk '$1 ~ /^[0-9]+$/ { n += $1 } END { print n }' "$OUT")
[ "$total" = 61 ] || { cat "$OUT" >&2; fail "total $total, want 61"; }
exit 0
