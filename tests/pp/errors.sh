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
# options that mean nothing together, refused as OProfile's opreport
# refuses them: its words, every one, status 1, no usage text
expect 1 "{" "}" "{" "}"
err_has "^different profiles are meaningless without --symbols$"
expect 1 -a -w
cat >"$E2E_TMP/want" <<EOF
--show-address is meaningless without --symbols
--debug-info and --accumulated are meaningless without --symbols
EOF
diff -u "$E2E_TMP/want" "$ERR" >&2 || fail "-a -w: message differs"
expect 1 -X -a -%
err_has "^--accumulated is incompatible with --xml$"
err_has "^--global_percent is incompatible with --xml$"
expect 1 -l -%
err_has "^--global-percent is meaningless with --symbols and without --details or --callgraph$"
# -c with what OProfile's opreport refuses beside it
expect 1 -c -d
err_has "^--callgraph is incompatible with --details$"
expect 1 -c "{" "}" "{" "}"
err_has "^differential profiles are incompatible with --callgraph$"
expect 1 -x --merge=lib
err_has "^--merge=lib is meaningless with --exclude-dependent$"
expect 0 -x --merge=all
expect 3 session:nosuchsession
err_has "no session found in .*/samples named nosuchsession (session:)"
expect 4 image:/no/such/program
err_has "no sample file matches image:/no/such/program"

# cpu and tid both vary: refused with the way out, in OProfile's words
# and with its status
expect 1
cat >"$E2E_TMP/want" <<EOF
$OPREPORT error: Already displaying results for parameter tid with values:
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
# the summary reads no binary: no warning, as in OProfile
out_has " gone$"
[ -s "$ERR" ] && { cat "$ERR" >&2; fail "the summary warned"; }
# -l names the missing binary as OProfile does; its samples still count
expect 0 -l cpu:0
echo "warning: /nonexistent/gone could not be found." >"$E2E_TMP/want"
diff -u "$E2E_TMP/want" "$ERR" >&2 || fail "missing binary: warning differs"
out_has " /nonexistent/gone$"

# OProfile's warnings about images, in its words, order and stream: each
# image it cannot find, by name (a module as /NAME; an anonymous region
# unless anon or [vdso]), then each binary it found but cannot use, or
# whose mtime is not its samples' (the second line of that once)
B=$(cd "$E2E_TMP" && pwd -P)/bin
mkdir -p "$B"
cp "$T" "$B/a" && cp "$T" "$B/b" && echo "not a binary" >"$B/c"
S0=$S S=$E2E_TMP/images
"$MKS" "$S" <<EOF
header 4 1000
mtime 12345
file f:$B/a f:$B/a TIMER 100000 0 all all all
sym $B/a func_a50 0 50
file f:$B/b f:$B/b TIMER 100000 0 all all all
sym $B/b func_b30 0 30
file f:$B/c f:$B/a TIMER 100000 0 all all all
off 10 3
file f:/nonexistent/gone f:$B/a TIMER 100000 0 all all all
off 10 2
file k:ext4 f:$B/a TIMER 100000 0 all all all
off 10 1
file a:[heap]:42:1000:1fff f:$B/a TIMER 100000 0 all all all
off 10 4
file a:anon:42:3000:3fff f:$B/a TIMER 100000 0 all all all
off 10 4
file a:[vdso]:42:5000:5fff f:$B/a TIMER 100000 0 all all all
off 10 4
EOF
cat >"$E2E_TMP/want" <<EOF
warning: /ext4 could not be found.
warning: /nonexistent/gone could not be found.
warning: [heap] (tgid:42 range:0x1000-0x1fff) could not be found.
warning: the last modified time of the binary file does not match that of the sample file for $B/a
Either this is the wrong binary or the binary has been modified since the sample file was created.
warning: the last modified time of the binary file does not match that of the sample file for $B/b
warning: $B/c is not in a usable binary format.
EOF
for mode in -l -X -d; do
	expect 0 $mode
	diff -u "$E2E_TMP/want" "$ERR" >&2 || fail "opreport $mode: image warnings differ"
done
out_has "func_a50"
S=$S0

# a binary that changed since profiling: warned, its samples count
rm -rf "$S"
"$MKS" "$S" <<EOF
header 4 1000
mtime 12345
file f:$T f:$T TIMER 100000 0 all all all
sym $T func_a50 0 50
EOF
expect 0 -l
err_has "^warning: the last modified time of the binary file does not match that of the sample file for $(realpath "$T")\$"
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

# the session's stats: OProfile's three warnings, on stderr before the
# report, in its words and by its rules (operf's lost_* counters against
# total_samples; the driver's overflow counters; stats/throttled)
"$MKS" "$S" <<EOF
stat total_samples 1000
stat event_lost_overflow 10
stat cpu0/sample_lost_overflow 5
stat lost_no_mapping 4
EOF
expect 0
cat >"$E2E_TMP/want" <<EOF
WARNING! The OProfile kernel driver reports sample buffer overflows.
Such overflows can result in incorrect sample attribution, invalid sample
files and other symptoms.  See the oprofiled.log for details.
You should adjust your sampling frequency to eliminate (or at least minimize)
these overflows.

WARNING: Lost samples detected! See $S/samples/operf.log for details.
EOF
diff -u "$E2E_TMP/want" "$ERR" >&2 || fail "loss warnings differ"
grep -q WARNING "$OUT" && fail "a warning in the report itself"
# below one in ten thousand, and no overflow: no warning
"$MKS" "$S" <<EOF
stat total_samples 100000
stat event_lost_overflow 0
stat cpu0/sample_lost_overflow 0
stat lost_no_mapping 10
EOF
expect 0
[ -s "$ERR" ] && { cat "$ERR" >&2; fail "a warning below OProfile's threshold"; }

# a session our daemon wrote (it alone writes lost_no_task): the ring's
# losses per CPU (OProfile's file) and their sum (operf's
# lost_records_by_kernel) are one loss, counted once, with its share of
# every sample taken
"$MKS" "$S" <<EOF
stat total_samples 1000
stat lost_no_mapping 0
stat lost_no_task 0
stat lost_records_by_kernel 30
stat cpu0/sample_lost_overflow 10
stat cpu1/sample_lost_overflow 20
EOF
expect 0
err_has "^WARNING: 30 of 1030 samples (2.9126%) were lost while profiling: lost_records_by_kernel 30$"
# after OProfile's own warnings, whose text stays whole before it
tail -n 1 "$ERR" | grep -q "were lost while profiling" ||
	fail "our loss summary is not the last of the warnings"
grep -q WARNING "$OUT" && fail "a warning in the report itself"
"$MKS" "$S" <<EOF
stat total_samples 100000
stat lost_records_by_kernel 0
stat cpu0/sample_lost_overflow 0
stat cpu1/sample_lost_overflow 0
stat lost_no_mapping 10
EOF
# what is lost that is no sample: parts of call chains, side-band
# records; each named with its count, none added to the samples lost
"$MKS" "$S" <<EOF
stat lost_bt_no_mapping 3
stat backtrace_truncated 2
stat callgraph_arcs_lost 5
stat lost_sideband_records 4
EOF
expect 0
err_has "^WARNING: call chains were cut or not kept (their samples are counted, with what was kept of the chain): lost_bt_no_mapping 3, backtrace_truncated 2, callgraph_arcs_lost 5$"
err_has "^WARNING: the kernel lost 4 side-band records (mmaps, execs, exits): samples after them may be filed under a stale image (lost_sideband_records)$"
# the samples lost are still the 10 of 100000 above, nothing added
err_has "^WARNING: 10 of 100000 samples (0.0100%) were lost while profiling: lost_no_mapping 10$"
rm "$S"/samples/current/stats/{lost_bt_no_mapping,backtrace_truncated,callgraph_arcs_lost,lost_sideband_records}
rm "$S/samples/current/stats/lost_no_task"

# throttling: whenever stats/throttled exists, named by its real path
mkdir -p "$S/samples/current/stats/throttled"
expect 0 -n
cat >"$E2E_TMP/want" <<EOF

WARNING! Some of the events were throttled. Throttling occurs when
the initial sample rate is too high, causing an excessive number of
interrupts.  Decrease the sampling frequency. Check the directory
$(realpath "$S")/samples/current/stats/throttled
for the throttled event names.

EOF
diff -u "$E2E_TMP/want" "$ERR" >&2 || fail "throttle warning differs"

# OProfile's refusal of a spec that matches nothing still follows the
# warnings, which are about the session
expect 4 cpu:7
grep -q "^WARNING! Some of the events were throttled" "$ERR" || fail "no warning before the refusal"

echo "PASS: opreport errors and warnings"
