#!/usr/bin/env bash
# opreport's refusals and warnings: every error has its own exit status and
# a message naming what is wrong; a corrupt sample file is named and the
# report goes on with the others; a missing or changed binary is warned
# about while its samples still count.
. "$top_srcdir/tests/pp/lib.sh"
ERR=$E2E_TMP/err

# expect STATUS ARGS...: run opreport on $S, check the exit status
expect() {
	local want=$1 rc=0
	shift
	"$OPREPORT" --session-dir="$S" --kallsyms="$KALLSYMS" "$@" >"$OUT" 2>"$ERR" || rc=$?
	if [ "$rc" -ne "$want" ]; then
		cat "$ERR" >&2
		fail "opreport $*: exit $rc, want $want"
	fi
}
err_has() { grep -q -- "$1" "$ERR" || { cat "$ERR" >&2; fail "stderr lacks '$1'"; }; }
out_has() { grep -q -- "$1" "$OUT" || { cat "$OUT" >&2; fail "stdout lacks '$1'"; }; }

# no session at all
expect 3
err_has "no session found"

"$MKS" "$S" <<EOF
header 4 1000
file f:$T f:$T TIMER 100000 0 all 10 0
sym $T func_a50 0 50
file f:$T f:$T TIMER 100000 0 all 11 1
sym $T func_b30 0 30
file f:/nonexistent/gone f:/nonexistent/gone TIMER 100000 0 all 10 0
off 1000 5
EOF

# options and specifications
expect 0 --help
out_has "Exit status"
expect 1 --bogus-option
expect 1 --merge=cpu,nonsense
err_has "nonsense"
expect 1 --sort=vma,colour
err_has "colour"
expect 1 --threshold=200
expect 2 cpu:x
err_has "'x'"
expect 2 foo:bar
err_has "unknown tag 'foo'"
expect 2 "{" cpu:0 "}"
err_has "two '{ }' groups"
expect 1 -X "{" "}" "{" "}"
err_has "differential profiles are incompatible with --xml"
expect 3 session:nosuchsession
expect 4 image:/no/such/program
err_has "no sample file matches image:/no/such/program"

# cpu and tid both vary: refused with the way out, in OProfile's words
expect 5
cat >"$E2E_TMP/want" <<EOF
opreport: Already displaying results for parameter tid with values:
tid:10,tid:11,
which conflicts with parameter cpu.
Suggestion: specify tid: or --merge tid
EOF
diff -u "$E2E_TMP/want" "$ERR" >&2 || fail "two axes: message differs"
expect 0 --merge=tid
out_has "Samples on CPU 1"
expect 0 --merge=cpu
out_has "tid:11"
expect 0 cpu:0
# the missing binary is named, its samples still count
err_has "/nonexistent/gone could not be found"
out_has " gone$"
expect 0 -l cpu:0
out_has " /nonexistent/gone$"

# a binary that changed since profiling
rm -rf "$S"
"$MKS" "$S" <<EOF
header 4 1000
mtime 12345
file f:$T f:$T TIMER 100000 0 all all all
sym $T func_a50 0 50
EOF
expect 0 -l
err_has "last modified time of $T does not match"
out_has "func_a50"

# a corrupt sample file: named with the reason, the others reported, exit 6
bad="$S/samples/current/{root}/bin/bad/{dep}/{root}/bin/bad/TIMER.100000.0.all.all.all"
mkdir -p "$(dirname "$bad")"
printf 'not a sample file at all, not at all, no' >"$bad"
expect 6
err_has "bin/bad/TIMER.100000.0.all.all.all"
out_has "pp_target_pie"

# -o writes the report to a file; an unwritable one is exit 7
rm -f "$bad"
expect 0 -o "$E2E_TMP/report.txt"
grep -q pp_target_pie "$E2E_TMP/report.txt" || fail "-o wrote no report"
expect 7 -o /nonexistent-dir/report.txt

# loss counters in the session's stats: a warning block in the header
"$MKS" "$S" <<EOF
stat total_samples 1000
stat event_lost_overflow 10
stat cpu0/sample_lost_overflow 5
stat lost_no_mapping 4
EOF
# lost upstream (10 + 5) were never counted in total_samples, the 4
# without a mapping were
expect 0
out_has "WARNING: 19 samples were lost while profiling (1.8719% of 1015 samples)"
out_has "event_lost_overflow *10 (0.9852%)"
out_has "lost_no_mapping *4 (0.3941%)"
out_has "sample_lost_overflow *5"
grep -q throttled "$OUT" && fail "a throttle warning without throttling"

# our daemon's layout: the ring's losses per CPU (OProfile's file) and
# their sum (operf's lost_records_by_kernel) are one loss, counted once
"$MKS" "$S" <<EOF
stat total_samples 1000
stat event_lost_overflow 0
stat lost_no_mapping 0
stat lost_records_by_kernel 30
stat cpu0/sample_lost_overflow 10
stat cpu1/sample_lost_overflow 20
EOF
expect 0
out_has "WARNING: 30 samples were lost while profiling (2.9126% of 1030 samples)"

# throttled events (stats/throttled/EVENT, empty files): said in the header
mkdir -p "$S/samples/current/stats/throttled"
: >"$S/samples/current/stats/throttled/TIMER"
: >"$S/samples/current/stats/throttled/CPU_CLK_UNHALTED"
expect 0
out_has "WARNING: the kernel throttled the sampling of \(TIMER,CPU_CLK_UNHALTED\|CPU_CLK_UNHALTED,TIMER\): "
expect 0 -n
grep -q throttled "$OUT" && fail "-n printed the throttle warning"

echo "PASS: opreport errors and warnings"
