#!/usr/bin/env bash
# oparchive, read back where the binaries are gone. A --callgraph session
# of a copy of cgleaf is archived, the copy deleted; `opreport -l` and
# `opreport -c` of archive:DIR print what they printed of the session while
# the binary was there, `opexport archive:DIR` names cgleaf's functions,
# and OProfile's opreport prints the same for the archive as for the
# session. Then the refusals: an archive directory that is not empty, a
# specification selecting nothing, an unknown option, no -o.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/archive/peer.sh"
e2e_need_perf
OPARCHIVE=$top_builddir/pp/oparchive
OPEXPORT=$top_builddir/pp/opexport
OPANNOTATE=$top_builddir/pp/opannotate
BIN=$E2E_TMP/bin
A=$E2E_TMP/archive
mkdir -p "$BIN"
cp -p "$WORKLOADS/cgleaf" "$BIN/cgleaf"

op --setup --no-vmlinux --event="cpu-clock:$ACC_PERIOD" --callgraph=16 ||
	fail "opcontrol --setup --callgraph=16 failed"
op --start || fail "opcontrol --start failed"
"$BIN/cgleaf" 2 >"$E2E_TMP/cgleaf.out" || fail "cgleaf workload failed"
acc_stop

acc_report "$E2E_TMP/before.l" -l
acc_report "$E2E_TMP/before.c" -c "image:$BIN/cgleaf"
"$OPANNOTATE" --session-dir="$SESSION_DIR" --assembly -x "image:$BIN/cgleaf" \
	>"$E2E_TMP/before.a" 2>/dev/null || fail "opannotate --assembly of the session failed"
grep -q " cg_leaf\$" "$E2E_TMP/before.l" || fail "the session's report lacks cg_leaf"
if [ -n "$PEER" ]; then
	"$PEER/opreport" --session-dir="$SESSION_DIR" -l >"$E2E_TMP/peer.before" 2>/dev/null ||
		fail "OProfile's opreport cannot read the session"
fi

"$OPARCHIVE" --session-dir="$SESSION_DIR" -l >"$E2E_TMP/list" 2>"$E2E_TMP/list.err" ||
	{ cat "$E2E_TMP/list.err" >&2; fail "oparchive --list-files failed"; }
grep -qx "$BIN/cgleaf" "$E2E_TMP/list" || fail "oparchive --list-files does not list the binary"
[ ! -e "$A" ] || fail "--list-files made the archive directory"

"$OPARCHIVE" --session-dir="$SESSION_DIR" -o "$A" 2>"$E2E_TMP/arch.err" ||
	{ cat "$E2E_TMP/arch.err" >&2; fail "oparchive failed"; }
cat "$E2E_TMP/arch.err"
for f in "$BIN/cgleaf" /proc/kallsyms /var/lib/oprofile/samples/current/stats/total_samples \
	 /var/lib/oprofile/samples/current/callchains/chains; do
	[ -f "$A$f" ] || fail "the archive lacks $f"
done
[ "$(stat -c %Y "$A$BIN/cgleaf")" = "$(stat -c %Y "$BIN/cgleaf")" ] ||
	fail "the archived binary lost its mtime"
rm -f "$BIN/cgleaf"

"$OPREPORT" -l "archive:$A" >"$E2E_TMP/after.l" 2>"$E2E_TMP/after.l.err" ||
	{ cat "$E2E_TMP/after.l.err" >&2; fail "opreport -l archive: failed"; }
diff -u "$E2E_TMP/before.l" "$E2E_TMP/after.l" || fail "opreport -l archive: differs from the session's report"
echo "ok: opreport -l archive: prints the session's report, binary gone"
"$OPREPORT" -c "archive:$A" "image:$BIN/cgleaf" >"$E2E_TMP/after.c" 2>"$E2E_TMP/after.c.err" ||
	{ cat "$E2E_TMP/after.c.err" >&2; fail "opreport -c archive: failed"; }
diff -u "$E2E_TMP/before.c" "$E2E_TMP/after.c" || fail "opreport -c archive: differs from the session's report"
echo "ok: opreport -c archive: prints the session's call graph"
"$OPEXPORT" --format=folded "archive:$A" >"$E2E_TMP/folded" 2>"$E2E_TMP/folded.err" ||
	{ cat "$E2E_TMP/folded.err" >&2; fail "opexport archive: failed"; }
grep -q ";cg_via_a;cg_leaf " "$E2E_TMP/folded" || fail "opexport archive: lacks main's cg_via_a;cg_leaf stacks"
echo "ok: opexport archive: names the archived binary's stacks"
"$OPANNOTATE" --assembly -x "archive:$A" "image:$BIN/cgleaf" >"$E2E_TMP/after.a" \
	2>"$E2E_TMP/after.a.err" || { cat "$E2E_TMP/after.a.err" >&2; fail "opannotate archive: failed"; }
# the same disassembly, the command line and the binary's path (under the
# archive, as objdump names the file it reads) aside
diff -u <(grep -v "Command line\|file format" "$E2E_TMP/before.a") \
	<(grep -v "Command line\|file format" "$E2E_TMP/after.a") ||
	fail "opannotate --assembly archive: differs from the session's"
echo "ok: opannotate --assembly archive: disassembles the archived binary"
if [ -n "$PEER" ]; then
	"$PEER/opreport" -l "archive:$A" >"$E2E_TMP/peer.after" 2>/dev/null ||
		fail "OProfile's opreport cannot read the archive"
	diff -u "$E2E_TMP/peer.before" "$E2E_TMP/peer.after" ||
		fail "OProfile's opreport reads the archive differently from the session"
	echo "ok: OProfile's opreport -l prints the same for the archive as for the session"
fi

# --- refusals ---
"$OPARCHIVE" --session-dir="$SESSION_DIR" -o "$A" >"$E2E_TMP/out" 2>&1 || rc=$?
[ "${rc:-0}" = 7 ] || fail "an archive directory that is not empty did not exit 7"
grep -q "exists and is not empty" "$E2E_TMP/out" || { cat "$E2E_TMP/out"; fail "no message for a non-empty directory"; }
rc=0
"$OPARCHIVE" --session-dir="$SESSION_DIR" -o "$E2E_TMP/a2" image:/nonexistent >"$E2E_TMP/out" 2>&1 || rc=$?
[ "${rc:-0}" = 4 ] || fail "a spec selecting nothing did not exit 4"
[ ! -e "$E2E_TMP/a2" ] || fail "a refusal made the archive directory"
"$OPARCHIVE" --bogus >"$E2E_TMP/out" 2>&1 && fail "an unknown option accepted"
grep -q "bogus: unknown option" "$E2E_TMP/out" || fail "no message for an unknown option"
"$OPARCHIVE" --session-dir="$SESSION_DIR" >"$E2E_TMP/out" 2>&1 && fail "no -o accepted"
grep -q "requires --output-directory" "$E2E_TMP/out" || fail "no message for a missing -o"
echo "PASS: oparchive"
