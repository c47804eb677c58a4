#!/usr/bin/env bash
# The integrity record (stats/sums): a sample file changed after the daemon
# wrote it is named and left out (exit 6), never reported with wrong
# counts. Random single-byte flips across a sample file: each one either
# leaves the report exactly as it was (a byte no reader reads) or is
# caught; none may change the report with exit 0. Without the record the
# same flips do change reports silently, which is why it exists.
. "$top_srcdir/tests/pp/lib.sh"

"$MKS" "$S" <<EOF2
header 4 1000
file f:$T f:$T TIMER 100000 0 all all all
spread $T 200 5000 7
file k:/proc/kallsyms k:/proc/kallsyms TIMER 100000 0 all all all
ksym $KALLSYMS pid_task 0x10 7
sums
EOF2
sf=$(find "$S/samples/current/{root}" -type f -name 'TIMER*' -path '*pp_target_pie/{dep}*' | head -1)
[ -f "$sf" ] || fail "no sample file written"
[ -f "$S/samples/current/stats/sums" ] || fail "no integrity record written"
grep -qF "${sf#"$S/samples/current/"}" "$S/samples/current/stats/sums" ||
	fail "the record does not list $sf"

report() { "$OPREPORT" --session-dir="$S" -l --kallsyms="$KALLSYMS" >"$OUT" 2>"$E2E_TMP/err"; }
report || { cat "$E2E_TMP/err" >&2; fail "opreport -l on the intact session"; }
[ -s "$E2E_TMP/err" ] && { cat "$E2E_TMP/err" >&2; fail "warnings on the intact session"; }
cp "$OUT" "$E2E_TMP/good"
cp "$sf" "$E2E_TMP/orig"

size=$(stat -c %s "$sf")
flip() {	# flip(OFFSET): xor one byte of the sample file with 0x5a
	python3 - "$sf" "$1" <<'PY'
import sys
p, off = sys.argv[1], int(sys.argv[2])
with open(p, 'r+b') as f:
    f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0x5a]))
PY
}

caught=0 same=0 silent_without=0
RANDOM=11
for i in $(seq 1 60); do
	off=$(( (RANDOM * 32768 + RANDOM) % size ))
	cp "$E2E_TMP/orig" "$sf"
	flip "$off"
	set +e; report; rc=$?; set -e
	if [ $rc -eq 0 ] && cmp -s "$OUT" "$E2E_TMP/good"; then
		same=$((same + 1))
	elif [ $rc -eq 6 ] || [ $rc -eq 4 ]; then
		grep -qF "$sf" "$E2E_TMP/err" ||
			{ cat "$E2E_TMP/err" >&2; fail "flip at $off: the damaged file is not named"; }
		caught=$((caught + 1))
		# the same flip without the record: does the report change silently?
		mv "$S/samples/current/stats/sums" "$E2E_TMP/sums"
		set +e; report; rc2=$?; set -e
		mv "$E2E_TMP/sums" "$S/samples/current/stats/sums"
		[ $rc2 -eq 0 ] && ! cmp -s "$OUT" "$E2E_TMP/good" && silent_without=$((silent_without + 1))
	else
		cat "$E2E_TMP/err" >&2
		diff "$E2E_TMP/good" "$OUT" | head -10 >&2
		fail "flip at offset $off of $size: exit $rc with a changed report"
	fi
done
cp "$E2E_TMP/orig" "$sf"
echo "integrity: of 60 flips, $caught caught ($silent_without of them wrong with exit 0 without the record), $same harmless"
[ "$caught" -gt 0 ] || fail "no flip was caught: the test checks nothing"
# the intact file passes again
report || fail "the restored file is refused"

# a malformed record is said and the files are read unchecked
echo "not a record" >>"$S/samples/current/stats/sums"
report || { cat "$E2E_TMP/err" >&2; fail "a malformed record stopped the report"; }
grep -q "stats/sums: line .* is not" "$E2E_TMP/err" ||
	{ cat "$E2E_TMP/err" >&2; fail "a malformed record is not said"; }
cmp -s "$OUT" "$E2E_TMP/good" || fail "the report changed with a malformed record"

# a damaged arc file under opreport -c: named once, counted once (three
# readers open it: the loader, the kernel-symbol check, the call graph)
SC=$E2E_TMP/cg
"$MKS" "$SC" <<EOF2
header 4 1000
file f:$T f:$T TIMER 100000 0 all all all
sym $T func_a50 0 30
sym $T main 0 10
cgfile f:$T f:$T f:$T TIMER 100000 0 all all all
arc $T:main+8 $T:func_a50 30
sums
EOF2
af=$(find "$SC/samples/current/{root}" -type f -path '*{cg}*' -name 'TIMER*' | head -1)
[ -f "$af" ] || fail "no arc file written"
"$OPREPORT" --session-dir="$SC" -c >"$OUT" 2>"$E2E_TMP/err" ||
	{ cat "$E2E_TMP/err" >&2; fail "opreport -c on the intact call graph"; }
grep -q "func_a50" "$OUT" || fail "opreport -c does not show the arc"
# the arc's count, 30, becomes 31
python3 - "$af" <<'PY'
import sys
with open(sys.argv[1], 'r+b') as f:
    d = f.read(); at = d.find((30).to_bytes(4, 'little'), 64)
    assert at > 0, "no count of 30 in the arc file"
    f.seek(at); f.write((31).to_bytes(4, 'little'))
PY
set +e; "$OPREPORT" --session-dir="$SC" -c >"$OUT" 2>"$E2E_TMP/err"; rc=$?; set -e
[ $rc -eq 6 ] || { cat "$E2E_TMP/err" >&2; fail "a damaged arc file: exit $rc, not 6"; }
[ "$(grep -cF "$af" "$E2E_TMP/err")" -eq 1 ] ||
	{ cat "$E2E_TMP/err" >&2; fail "the damaged arc file is not named exactly once"; }
grep -q "^opreport: 1 sample file(s) could not be read" "$E2E_TMP/err" ||
	{ cat "$E2E_TMP/err" >&2; fail "the damaged arc file is not counted once"; }
exit 0
