#!/usr/bin/env bash
# A symlink planted in a session directory (CWE-59): for each thing a
# session holds, a link to a target directory outside it, against the
# commands that write sessions (opcontrol --setup/--start/--dump/--save/
# --reset/--shutdown/--snapshot, the daemon keeping containers' binaries in
# kept/, operf and operf --append, oparchive's output directory) and those
# that read them (opreport, opannotate, opgprof, opexport, oparchive, optop
# watching a running session). Each time: the command says what it
# refused, nothing in the target is created, renamed or deleted, and its
# file is intact. A session directory others may write in is refused; one
# someone else owns is still read by the report tools.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/opcontrol/common.sh"
e2e_need_perf

OPERF=$top_builddir/daemon/operf
OPEXPORT=$top_builddir/pp/opexport
TARGET=$E2E_TMP/target
EV=cpu-clock:1000000

# the target: a file, and current/important as the issue's --reset had it
mkdir -p "$TARGET/current"
echo precious >"$TARGET/keep"
echo important >"$TARGET/current/important"
snapshot_target() { (cd "$TARGET" && find . -printf '%p %y %s %m\n' | sort); }
TARGET_WAS=$(snapshot_target)

# intact WHAT: the target holds what it held, nothing more, nothing less
intact() {
	local now
	now=$(snapshot_target)
	if [ "$now" != "$TARGET_WAS" ]; then
		diff <(echo "$TARGET_WAS") <(echo "$now") >&2 || true
		fail "$1: the target directory changed"
	fi
	[ "$(cat "$TARGET/keep")" = precious ] || fail "$1: the target's file changed"
	[ "$(cat "$TARGET/current/important")" = important ] ||
		fail "$1: the target's current/important changed"
}

# a fresh session directory for each case
n=0
fresh() {
	n=$((n + 1))
	SESSION_DIR=$E2E_TMP/s$n
	mkdir -m 0755 "$SESSION_DIR"
}

# stop whatever daemon runs on $SESSION_DIR, whatever its control socket
stop_daemon() {
	local pid
	pid=$(cat "$SESSION_DIR/lock" 2>/dev/null) || return 0
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || return 0
	for _ in $(seq 100); do alive "$pid" || return 0; sleep 0.05; done
	kill -KILL "$pid" 2>/dev/null || true
}

spin() { "$WORKLOADS/burn" -t 0.3 1 >/dev/null; }

# ---- opcontrol ----

# samples/ a link: --setup, --start, --reset, --save and --status refuse it; the issue's
# --reset deleted target/current/important through it
fresh
ln -s "$TARGET" "$SESSION_DIR/samples"
expect 1 "$SESSION_DIR/samples is a symbolic link: refused, not followed" \
	opc --setup --event=$EV
intact "--setup with samples a link"
expect 1 "$SESSION_DIR/samples is a symbolic link: refused, not followed" opc --reset
intact "--reset with samples a link"
expect 1 "samples is a symbolic link" opc --start
intact "--start with samples a link"
expect 1 "$SESSION_DIR/samples is a symbolic link: refused, not followed" opc --save=run1
intact "--save with samples a link"
# --status counts what current holds: not through the link, and it says so
expect 1 "Samples in current: not read: $SESSION_DIR/samples is a symbolic link: refused, not followed" \
	opc --status
stop_daemon

# samples/current a link: --reset, --save and --start refuse it
fresh
mkdir "$SESSION_DIR/samples"
ln -s "$TARGET/current" "$SESSION_DIR/samples/current"
expect 1 "$SESSION_DIR/samples/current is a symbolic link: refused, not followed" opc --reset
intact "--reset with current a link"
expect 1 "$SESSION_DIR/samples/current is a symbolic link: refused, not followed" opc --save=run1
intact "--save with current a link"
[ ! -e "$SESSION_DIR/samples/run1" ] || fail "--save moved a link to run1"
expect 0 "" opc --setup --event=$EV
expect 1 "$SESSION_DIR/samples/current is a symbolic link: refused, not followed" opc --start
intact "--start with current a link"
stop_daemon

# a saved session's name a link: --save refuses to move current onto it
fresh
mkdir -p "$SESSION_DIR/samples/current"
ln -s "$TARGET" "$SESSION_DIR/samples/run1"
expect 1 "$SESSION_DIR/samples/run1 is a symbolic link: refused, not followed" opc --save=run1
intact "--save onto a link"
[ -d "$SESSION_DIR/samples/current" ] && [ ! -L "$SESSION_DIR/samples/current" ] ||
	fail "--save onto a link moved current"

# a link inside current/: --reset clears the rest, leaves the link, says so
fresh
mkdir -p "$SESSION_DIR/samples/current/{root}/bin"
echo x >"$SESSION_DIR/samples/current/{root}/bin/TIMER.1000000.0.all.all.all"
ln -s "$TARGET/current" "$SESSION_DIR/samples/current/{root}/lib"
expect 1 "$SESSION_DIR/samples/current/{root}/lib is a symbolic link: refused, not followed" \
	opc --reset
intact "--reset with a link inside current"
[ ! -e "$SESSION_DIR/samples/current/{root}/bin" ] || fail "--reset left the rest of current"
[ -L "$SESSION_DIR/samples/current/{root}/lib" ] || fail "--reset removed the link"

# daemonrc a link: read and written through nothing
fresh
ln -s "$TARGET/keep" "$SESSION_DIR/daemonrc"
expect 1 "$SESSION_DIR/daemonrc is a symbolic link: refused, not followed" opc --setup --event=$EV
intact "--setup with daemonrc a link"

# opcontrol's own lock a link
fresh
ln -s "$TARGET/keep" "$SESSION_DIR/opcontrol.lock"
expect 1 "$SESSION_DIR/opcontrol.lock is a symbolic link: refused, not followed" opc --status
intact "opcontrol.lock a link"

# the daemon's lock, its control socket, its log: --start refuses each
for planted in lock opd_ctl samples/oprofiled.log; do
	fresh
	mkdir -p "$SESSION_DIR/samples"
	expect 0 "" opc --setup --event=$EV
	ln -s "$TARGET/keep" "$SESSION_DIR/$planted"
	expect 1 "$SESSION_DIR/$planted is a symbolic link: refused, not followed" opc --start
	intact "--start with $planted a link"
	[ -L "$SESSION_DIR/$planted" ] || fail "--start removed the link $planted"
	stop_daemon
done

# links planted where the daemon writes while it runs: stats, a sample
# file's directory, a sample file, the call-chain store; --dump, --stop,
# --shutdown write through none of them, and the log names them
fresh
expect 0 "" opc --setup --event=$EV --callgraph=8 --separate=lib,kernel
expect 0 "" opc --start
spin
expect 0 "" opc --dump
cur=$SESSION_DIR/samples/current
sample=$(find "$cur/{root}" -type f -path '*/burn/{dep}/{root}/*/burn/TIMER.*' | grep -v '{cg}' | head -1)
[ -n "$sample" ] || fail "no sample file for burn after --dump"
expect 0 "" opc --stop
expect 0 "" opc --shutdown
# the daemon is down: plant, and start again on the same current/
rm -rf "$cur/stats" "$cur/callchains/chains"
ln -s "$TARGET" "$cur/stats"
ln -s "$TARGET/keep" "$cur/callchains/chains"
rm -f "$sample"
ln -s "$TARGET/keep" "$sample"
expect 0 "" opc --start
spin
opc --dump >/dev/null 2>&1 || true
opc --stop >/dev/null 2>&1 || true
opc --shutdown >/dev/null 2>&1 || true
stop_daemon
intact "the daemon writing stats, a sample file and the chain store"
log=$SESSION_DIR/samples/oprofiled.log
for what in "$cur/stats" "$sample" "$cur/callchains/chains"; do
	grep -qF "$what is a symbolic link: refused, not followed" "$log" ||
		{ tail -n 30 "$log" >&2; fail "the daemon's log does not name the link $what"; }
done

# the flight recorder's snapshot: under a name that is a link, and over
# a link where it writes its temporary copy
fresh
expect 0 "" opc --setup --event=$EV --flight-recorder=2
expect 0 "" opc --start
spin
ln -s "$TARGET" "$SESSION_DIR/samples/snap1"
expect 1 "$SESSION_DIR/samples/snap1 is a symbolic link: refused, not followed" opc --snapshot=snap1
intact "--snapshot onto a link"
pid=$(cat "$SESSION_DIR/lock")
ln -s "$TARGET" "$SESSION_DIR/samples/.snap2.snapshot-$pid"
expect 1 "$SESSION_DIR/samples/.snap2.snapshot-$pid is a symbolic link: refused, not followed" \
	opc --snapshot=snap2
intact "--snapshot over a link where it writes"
expect 0 "" opc --snapshot=snap3
[ -d "$SESSION_DIR/samples/snap3" ] || fail "no snapshot after the refused ones"
# --dump swaps current/ for the window: a link in the old current is
# left where it is, beside the new one, and the log names it
mkdir -p "$SESSION_DIR/samples/current"
ln -s "$TARGET" "$SESSION_DIR/samples/current/planted"
expect 0 "" opc --dump
intact "--dump of a flight recorder with a link in current"
grep -qE "^.* warning .*samples/\.current-old-[0-9]+/planted is a symbolic link: refused, not followed" \
	"$SESSION_DIR/samples/oprofiled.log" ||
	{ tail -n 20 "$SESSION_DIR/samples/oprofiled.log" >&2; fail "the daemon's log does not name the link left in the old current"; }
[ -L "$(echo "$SESSION_DIR"/samples/.current-old-*/planted)" ] ||
	fail "--dump removed the link in the old current"
expect 0 "" opc --shutdown
stop_daemon
intact "the flight recorder"

# the control socket replaced by a link while the daemon runs: opcontrol
# connects to no link; the daemon, stopped by signal, removes no link
fresh
expect 0 "" opc --setup --event=$EV
expect 0 "" opc --start
rm -f "$SESSION_DIR/opd_ctl"
ln -s "$TARGET/keep" "$SESSION_DIR/opd_ctl"
expect 1 "$SESSION_DIR/opd_ctl is a symbolic link: refused, not followed" opc --shutdown
stop_daemon
[ -L "$SESSION_DIR/opd_ctl" ] || fail "the daemon removed the link at opd_ctl"
intact "the control socket a link"

# ---- optop: watches a running session through its descriptor ----
# links at a sample-file directory, a sample file and stats before it
# starts: each named, none read; then, once it has its baseline and the
# daemon is stopped, samples/current swapped for a link to a copy of the
# session whose files are new to it: refused and named, and nothing of
# the copy reported
OPTOP=$top_builddir/pp/optop
fresh
expect 0 "" opc --setup --event=$EV --separate=lib,kernel
expect 0 "" opc --start
spin
expect 0 "" opc --dump
cur=$SESSION_DIR/samples/current
copy=$E2E_TMP/optop-target
mkdir -p "$copy"
cp -a "$cur" "$copy/current"
rm -rf "${copy:?}/current/stats"
# new names to optop: the count field one more
find "$copy/current" -type f -name 'TIMER.1000000.*' | while read -r f; do
	mv "$f" "${f%/*}/TIMER.1000001.${f##*/TIMER.1000000.}"
done
[ -n "$(find "$copy/current" -type f -name 'TIMER.1000001.*')" ] ||
	fail "no sample file in the copy for optop"
copy_was=$(cd "$copy" && find . -printf '%p %y %s %T@\n' | sort)
sample=$(find "$cur/{root}" -type f -path '*/burn/{dep}/{root}/*/burn/TIMER.*' | head -1)
[ -n "$sample" ] || fail "no sample file for burn for optop"
rm -f "$sample"
ln -s "$TARGET/keep" "$sample"
mkdir -p "$cur/{root}/planted"
ln -s "$copy/current/{root}" "$cur/{root}/planted/dir"
rm -rf "$cur/stats"
ln -s "$TARGET" "$cur/stats"
"$OPTOP" --batch -n 3 -d 1 -l 0 --session-dir="$SESSION_DIR" \
	>"$E2E_TMP/optop.out" 2>"$E2E_TMP/optop.err" &
optop=$!
for _ in $(seq 200); do
	grep -q "^optop: 1: " "$E2E_TMP/optop.out" && break
	alive $optop || break
	sleep 0.05
done
grep -q "^optop: 1: " "$E2E_TMP/optop.out" || { cat "$E2E_TMP/optop.err" >&2; fail "optop printed no first table"; }
# stopped, the daemon makes no new file in current/ while it is swapped
# (its stop fails: it cannot write stats, a link; it stops all the same)
opc --stop >/dev/null 2>&1 || true
mv "$cur" "$cur.real"
ln -s "$copy/current" "$cur"
wait $optop || { cat "$E2E_TMP/optop.err" >&2; fail "optop --batch exited $?"; }
rm "$cur"
mv "$cur.real" "$cur"
cat "$E2E_TMP/optop.err"
for what in "$sample" "$cur/{root}/planted/dir" "$cur/stats" "$cur"; do
	grep -qF "$what is a symbolic link: refused, not followed" "$E2E_TMP/optop.err" ||
		{ cat "$E2E_TMP/optop.out" >&2; fail "optop did not name the link $what"; }
done
[ "$(grep -cF "$cur is a symbolic link" "$E2E_TMP/optop.err")" = 1 ] ||
	fail "optop named the link at current more than once"
# (burn's rows: the copy is the spin's session, while other programs on a
# busy machine may still add samples to the real current before --stop)
if live_rows=$(awk '/^optop: [23]: /{ t = 1; next } t && $1 ~ /^[0-9]+$/ && $1 > 0 && $3 == "burn"' "$E2E_TMP/optop.out") &&
	[ -n "$live_rows" ]; then
	cat "$E2E_TMP/optop.out" >&2
	fail "optop reported samples read through the link at current"
fi
[ "$copy_was" = "$(cd "$copy" && find . -printf '%p %y %s %T@\n' | sort)" ] ||
	fail "the copy behind optop's links changed"
expect 0 "" opc --shutdown
stop_daemon
intact "optop watching a session with links in it"
echo "optop: every link refused and named"

# the session directory itself: a link, writable by others, a parent
# writable by others; refused, named, and nothing created in it
ln -s "$TARGET" "$E2E_TMP/linked"
expect 1 "$E2E_TMP/linked is a symbolic link: refused, not followed" \
	"$OPCONTROL" --session-dir="$E2E_TMP/linked" --setup --event=$EV
intact "the session directory a link"
fresh
chmod 0777 "$SESSION_DIR"
expect 1 "$SESSION_DIR: writable by group or others (mode 0777)" opc --setup --event=$EV
[ -z "$(ls -A "$SESSION_DIR")" ] || fail "a refused session directory was written in"
expect 1 "writable by group or others" opc --status
mkdir -m 0777 "$E2E_TMP/open"
chmod 0777 "$E2E_TMP/open"
expect 1 "$E2E_TMP/open (a parent of $E2E_TMP/open/s): writable by group or others and not sticky (mode 0777)" \
	"$OPCONTROL" --session-dir="$E2E_TMP/open/s" --setup --event=$EV
[ ! -e "$E2E_TMP/open/s/daemonrc" ] || fail "daemonrc written under an open parent"
# a new one is made 0755 or tighter
fresh
rmdir "$SESSION_DIR"
expect 0 "" opc --setup --event=$EV
[ $((0$(stat -c %a "$SESSION_DIR") & 022)) -eq 0 ] || fail "a new session directory is open to others"

# ---- the containers' kept/ store ----
# a program run in another root is kept in SESSION_DIR/kept/ by build-id.
# kept/ a link, then kept/PREFIX a link, each to a directory holding a
# binary with symbols under the copy's name: the daemon keeps nothing
# through them, names the link in its log and counts images_not_kept;
# opreport reads no symbols through them, and names the link too
ct=$E2E_TMP/ct
mkdir -p "$ct/app"
cp "$WORKLOADS/burn" "$ct/app/prog"
for lib in $(ldd "$WORKLOADS/burn" | grep -o '/[^ ]*'); do
	mkdir -p "$ct$(dirname "$lib")"
	cp -L "$lib" "$ct$lib"
done
bid=$(readelf -n "$WORKLOADS/burn" | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || fail "burn has no build-id"
keep_case() {	# PLANT (under the session) TARGET-DIR REL (the copy's name in it)
	echo "kept/: $1 a link"
	fresh
	local kt=$2 was
	mkdir -p "$kt/$(dirname "$3")"
	cp "$WORKLOADS/burn" "$kt/$3"
	was=$(cd "$kt" && find . -printf '%p %y %s %T@\n' | sort)
	mkdir -p "$SESSION_DIR/$(dirname "$1")"
	ln -s "$kt" "$SESSION_DIR/$1"
	expect 0 "" opc --setup --event=$EV
	expect 0 "" opc --start
	unshare --mount --pid --fork chroot "$ct" /app/prog -t 0.5 1 >/dev/null ||
		fail "burn in a chroot failed"
	expect 0 "" opc --dump
	expect 0 "" opc --shutdown
	stop_daemon
	[ "$was" = "$(cd "$kt" && find . -printf '%p %y %s %T@\n' | sort)" ] ||
		fail "kept/ with $1 a link: the directory behind it changed"
	[ -L "$SESSION_DIR/$1" ] || fail "kept/ with $1 a link: the link was removed"
	grep -qF "$SESSION_DIR/$1 is a symbolic link: refused, not followed" \
		"$SESSION_DIR/samples/oprofiled.log" ||
		fail "the daemon's log does not name the link $SESSION_DIR/$1"
	[ "$(stat_of images_not_kept)" -ge 1 ] ||
		fail "kept/ with $1 a link: images_not_kept is $(stat_of images_not_kept)"
	rc=0
	OUT=$("$OPREPORT" -l --long-filenames --session-dir="$SESSION_DIR" 2>&1) || rc=$?
	grep -qF "$SESSION_DIR/kept/${bid:0:2}/${bid:2}/app/prog" <<<"$OUT" ||
		{ echo "$OUT" >&2; fail "kept/ with $1 a link: the program is not named after its copy"; }
	! grep -q burn_loop <<<"$OUT" ||
		{ echo "$OUT" >&2; fail "opreport read symbols through the link $SESSION_DIR/$1"; }
	grep -qF "$SESSION_DIR/$1 is a symbolic link: refused, not followed" <<<"$OUT" ||
		{ echo "$OUT" >&2; fail "opreport did not name the link $SESSION_DIR/$1"; }
	intact "kept/ with $1 a link"
}
keep_case kept "$E2E_TMP/kept-target1" "${bid:0:2}/${bid:2}/app/prog"
keep_case "kept/${bid:0:2}" "$E2E_TMP/kept-target2" "${bid:2}/app/prog"

# ---- operf: ./oprofile_data and what it holds ----
work=$E2E_TMP/work
mkdir "$work"
cd "$work"
operf_case() {	# PLANT TARGET MESSAGE
	echo "operf, $1 a link"
	rm -rf "$work/oprofile_data"
	mkdir -p "$(dirname "$work/$1")"
	ln -s "$2" "$work/$1"
	expect 1 "$3" "$OPERF" -e $EV true
	intact "operf with $1 a link"
}
operf_case oprofile_data "$TARGET" "$work/oprofile_data is a symbolic link: refused, not followed"
operf_case oprofile_data/samples "$TARGET" \
	"$work/oprofile_data/samples is a symbolic link: refused, not followed"
operf_case oprofile_data/samples/current "$TARGET/current" \
	"$work/oprofile_data/samples/current is a symbolic link: refused, not followed"
operf_case oprofile_data/samples/previous "$TARGET" \
	"$work/oprofile_data/samples/previous is a symbolic link: refused, not followed"
operf_case oprofile_data/samples/operf.log "$TARGET/keep" \
	"$work/oprofile_data/samples/operf.log is a symbolic link: refused, not followed"
operf_case oprofile_data/lock "$TARGET/keep" \
	"$work/oprofile_data/lock is a symbolic link: refused, not followed"
rm -rf "$work/oprofile_data"
mkdir -m 0777 "$work/oprofile_data"
chmod 0777 "$work/oprofile_data"
expect 1 "$work/oprofile_data: writable by group or others (mode 0777)" "$OPERF" -e $EV true
chmod 0755 "$work/oprofile_data"
chmod 0777 "$work"
expect 1 "$work (a parent of $work/oprofile_data): writable by group or others and not sticky" \
	"$OPERF" -e $EV true
chmod 0755 "$work"

# ---- the report tools: read, never follow a link out, never write ----
rm -rf "$work/oprofile_data"
expect 0 "" "$OPERF" -g -e cpu-clock:100000 "$WORKLOADS/burn" -t 0.5 1
good=$work/oprofile_data
expect 0 "burn" "$OPREPORT" --session-dir="$good"
# someone else's session, open to all: still read (a reader checks no
# owner), and not written in
other=$E2E_TMP/other
cp -a "$good" "$other"
chown -R 65534:65534 "$other"
chmod -R a+rwX "$other"
before=$(cd "$other" && find . -printf '%p %s %T@ %U\n' | sort)
expect 0 "burn" "$OPREPORT" --session-dir="$other"
expect 0 "" "$OPEXPORT" --session-dir="$other" --format=folded -o "$E2E_TMP/other.folded"
grep -q burn "$E2E_TMP/other.folded" || fail "opexport did not read a session someone else owns"
[ "$before" = "$(cd "$other" && find . -printf '%p %s %T@ %U\n' | sort)" ] ||
	fail "the report tools wrote in the session they read"
# the target holds a session of its own: a link to it must not be read
cp -a "$good/samples/current" "$TARGET.session"
report_case() {	# NAME PLANT (under the session) TARGET
	local s=$E2E_TMP/r-$1
	cp -a "$good" "$s"
	rm -rf "${s:?}/$2"
	ln -s "$3" "$s/$2"
}
report_case current samples/current "$TARGET.session"
rc=0
OUT=$("$OPREPORT" --session-dir="$E2E_TMP/r-current" 2>&1) || rc=$?
grep -qF "$E2E_TMP/r-current/samples/current is a symbolic link: refused, not followed" <<<"$OUT" ||
	{ echo "$OUT" >&2; fail "opreport did not name the link at current"; }
! grep -q burn <<<"$OUT" || fail "opreport read a session through a link"
# a sample file a link
sfile=$(cd "$good/samples/current" && find '{root}' -type f -path '*/burn/{dep}/{root}/*/burn/TIMER.*' | grep -v '{cg}' | head -1)
[ -n "$sfile" ] || fail "operf wrote no sample file for burn"
report_case sfile "samples/current/$sfile" "$TARGET.session/$sfile"
rc=0
OUT=$("$OPREPORT" --session-dir="$E2E_TMP/r-sfile" 2>&1) || rc=$?
grep -qF "cannot read sample file $E2E_TMP/r-sfile/samples/current/$sfile: it is a symbolic link: refused, not followed" <<<"$OUT" ||
	{ echo "$OUT" >&2; fail "opreport did not name the sample file that is a link"; }
# stats a link: neither the integrity record nor the loss summary read
# through it
report_case stats samples/current/stats "$TARGET.session/stats"
expect 0 "burn" "$OPREPORT" --session-dir="$E2E_TMP/r-stats"
grep -qF "$E2E_TMP/r-stats/samples/current/stats is a symbolic link: refused, not followed" <<<"$OUT" ||
	{ echo "$OUT" >&2; fail "opreport did not name the stats link"; }
# the call-chain store a link: opexport refuses it, names it
report_case chains samples/current/callchains "$TARGET.session/callchains"
rc=0
OUT=$("$OPEXPORT" --session-dir="$E2E_TMP/r-chains" --format=folded -o "$E2E_TMP/chains.folded" 2>&1) || rc=$?
grep -qF "$E2E_TMP/r-chains/samples/current/callchains is a symbolic link: refused, not followed" <<<"$OUT" ||
	{ echo "$OUT" >&2; fail "opexport did not name the callchains link"; }
# every report tool, against samples/ a link and a saved session's name
# a link (each to a session of its own outside): refused, named, exit 3;
# and a sample file a link: named, not read, and not archived
OPANNOTATE=$top_builddir/pp/opannotate
OPGPROF=$top_builddir/pp/opgprof
OPARCHIVE=$top_builddir/pp/oparchive
report_case samples samples "$good/samples"
report_case saved samples/run1 "$good/samples/current"
readers() {	# SESSION-DIR [SPEC]: each tool's command line
	local spec=${2-}
	printf '%s\n' "$OPREPORT --session-dir=$1 $spec" \
		"$OPANNOTATE --assembly --session-dir=$1 $spec" \
		"$OPGPROF --session-dir=$1 $spec" \
		"$OPEXPORT --format=folded -o $E2E_TMP/r.folded --session-dir=$1 $spec" \
		"$OPARCHIVE -o $E2E_TMP/r-arch --session-dir=$1 $spec"
}
readers "$E2E_TMP/r-samples" >"$E2E_TMP/readers"
[ "$(wc -l <"$E2E_TMP/readers")" = 5 ] || fail "no command line for the report tools"
while read -r -a cmd; do
	expect 3 "$E2E_TMP/r-samples/samples is a symbolic link: refused, not followed" "${cmd[@]}"
done <"$E2E_TMP/readers"
readers "$E2E_TMP/r-saved" session:run1 >"$E2E_TMP/readers"
while read -r -a cmd; do
	expect 3 "$E2E_TMP/r-saved/samples/run1 is a symbolic link: refused, not followed" "${cmd[@]}"
done <"$E2E_TMP/readers"
[ ! -e "$E2E_TMP/r-arch" ] || fail "oparchive wrote an archive of a session behind a link"
# (opexport reads a session with call chains from its chain store, not
# its sample files: it has no link to name here)
readers "$E2E_TMP/r-sfile" | grep -vF "$OPEXPORT" >"$E2E_TMP/readers"
while read -r -a cmd; do
	rc=0
	OUT=$("${cmd[@]}" 2>&1) || rc=$?
	grep -qF "$E2E_TMP/r-sfile/samples/current/$sfile: it is a symbolic link: refused, not followed" <<<"$OUT" ||
		{ echo "$OUT" >&2; fail "${cmd[0]##*/} did not name the sample file that is a link"; }
done <"$E2E_TMP/readers"
[ -d "$E2E_TMP/r-arch" ] && [ ! -e "$E2E_TMP/r-arch/var/lib/oprofile/samples/current/$sfile" ] ||
	fail "oparchive archived a sample file through a link"
# opcontrol --status counts current's samples: not through the link, and
# it says which file it did not read
expect 1 "Samples in current: not read: $E2E_TMP/r-sfile/samples/current/$sfile is a symbolic link: refused, not followed" \
	"$OPCONTROL" --session-dir="$E2E_TMP/r-sfile" --status
# opannotate --output-dir, a writer's directory as oparchive's: a link
# where it writes a source's annotation (the file, or a directory on the
# way) is refused and named, nothing made through it; a directory
# writable by others is refused
expect 0 "" "$OPANNOTATE" --session-dir="$good" --source --output-dir="$E2E_TMP/ann-ok"
ann=$(cd "$E2E_TMP/ann-ok" && find . -type f -name burn.c | head -1)
ann=${ann#./}
[ -n "$ann" ] || fail "opannotate --output-dir wrote no annotated burn.c"
mkdir -p "$E2E_TMP/ann-file/${ann%/*}"
ln -s "$TARGET/annotated" "$E2E_TMP/ann-file/$ann"
expect 0 "$E2E_TMP/ann-file/$ann is a symbolic link: refused, not followed" \
	"$OPANNOTATE" --session-dir="$good" --source --output-dir="$E2E_TMP/ann-file"
mkdir -p "$E2E_TMP/ann-dir/${ann%/*/*}"
ln -s "$TARGET" "$E2E_TMP/ann-dir/${ann%/*}"
expect 0 "$E2E_TMP/ann-dir/${ann%/*} is a symbolic link: refused, not followed" \
	"$OPANNOTATE" --session-dir="$good" --source --output-dir="$E2E_TMP/ann-dir"
mkdir -m 0777 "$E2E_TMP/ann-777"
chmod 0777 "$E2E_TMP/ann-777"
expect 7 "$E2E_TMP/ann-777: writable by group or others (mode 0777)" \
	"$OPANNOTATE" --session-dir="$good" --source --output-dir="$E2E_TMP/ann-777"
[ -z "$(ls -A "$E2E_TMP/ann-777")" ] || fail "opannotate wrote in an output directory open to others"
intact "the report tools"

# operf --append keeps current/: links planted where it writes in it (stats,
# a sample file, the chain store) are written through by none, and its
# log and its stderr name each
app=$E2E_TMP/append
mkdir -m 0755 "$app"
cp -a "$good" "$app/oprofile_data"
cur=$app/oprofile_data/samples/current
rm -rf "${cur:?}/stats" "$cur/callchains/chains" "${cur:?}/$sfile"
ln -s "$TARGET" "$cur/stats"
ln -s "$TARGET/keep" "$cur/callchains/chains"
ln -s "$TARGET/keep" "$cur/$sfile"
(cd "$app" && "$OPERF" --append -g -e cpu-clock:100000 "$WORKLOADS/burn" -t 0.3 1) \
	>"$E2E_TMP/append.out" 2>&1 || { cat "$E2E_TMP/append.out" >&2; fail "operf --append failed"; }
intact "operf --append with links in current"
for what in "$cur/stats" "$cur/$sfile" "$cur/callchains/chains"; do
	grep -qF "$what is a symbolic link: refused, not followed" "$app/oprofile_data/samples/operf.log" ||
		{ tail -n 20 "$app/oprofile_data/samples/operf.log" >&2; fail "operf.log does not name the link $what"; }
	grep -qF "$what is a symbolic link: refused, not followed" "$E2E_TMP/append.out" ||
		{ cat "$E2E_TMP/append.out" >&2; fail "operf --append did not name the link $what on stderr"; }
	[ -L "$what" ] || fail "operf --append removed the link $what"
done

# ---- oparchive's output directory: a writer's ----
OPARCHIVE=$top_builddir/pp/oparchive
archive_refused() {	# WHAT MESSAGE DIR
	expect 7 "$2" "$OPARCHIVE" --session-dir="$good" -o "$3"
	intact "oparchive: $1"
}
# the directory itself a link
ln -s "$TARGET" "$E2E_TMP/arch-link"
archive_refused "the directory a link" \
	"$E2E_TMP/arch-link is a symbolic link: refused, not followed" "$E2E_TMP/arch-link"
# a link planted inside it before archiving: named, nothing written
mkdir -m 0755 "$E2E_TMP/arch-planted"
ln -s "$TARGET" "$E2E_TMP/arch-planted/var"
archive_refused "a link inside" \
	"$E2E_TMP/arch-planted/var is a symbolic link: refused, not followed" "$E2E_TMP/arch-planted"
[ "$(ls -A "$E2E_TMP/arch-planted")" = var ] || fail "oparchive wrote beside a planted link"
# a parent writable by others, not sticky: refused, nothing made
mkdir -m 0777 "$E2E_TMP/arch-open"
chmod 0777 "$E2E_TMP/arch-open"
archive_refused "a parent open to others" \
	"$E2E_TMP/arch-open (a parent of $E2E_TMP/arch-open/a): writable by group or others and not sticky" \
	"$E2E_TMP/arch-open/a"
[ ! -e "$E2E_TMP/arch-open/a" ] || fail "oparchive made its directory under an open parent"
# the directory writable by others
mkdir -m 0777 "$E2E_TMP/arch-777"
chmod 0777 "$E2E_TMP/arch-777"
archive_refused "the directory open to others" \
	"$E2E_TMP/arch-777: writable by group or others (mode 0777)" "$E2E_TMP/arch-777"
# a new one: made 0755, and read back
expect 0 "" "$OPARCHIVE" --session-dir="$good" -o "$E2E_TMP/arch-new"
[ "$(stat -c %a "$E2E_TMP/arch-new")" = 755 ] ||
	fail "oparchive made its directory mode $(stat -c %a "$E2E_TMP/arch-new"), not 0755"
expect 0 "burn" "$OPREPORT" "archive:$E2E_TMP/arch-new"
# arch_refused LINK WORD CMD...: each CMD on archive:$a names LINK as a link
# it refused, and neither what it says nor the folded stacks it may write
# hold WORD, which only a read through the link would give
arch_refused() {
	local link=$1 word=$2 cmd rc
	shift 2
	for cmd in "$@"; do
		rc=0
		# shellcheck disable=SC2086
		OUT=$($cmd "archive:$a" 2>&1) || rc=$?
		grep -qF "$link is a symbolic link: refused, not followed" <<<"$OUT" ||
			{ echo "$OUT" >&2; fail "${cmd%% *}: the link $link not named"; }
		! grep -q "$word" - "$E2E_TMP/arch.folded" <<<"$OUT" 2>/dev/null ||
			{ echo "$OUT" >&2; fail "${cmd%% *} read through the link $link out of the archive"; }
		rm -f "$E2E_TMP/arch.folded"
	done
}
# an archived binary a link to a copy outside the archive: no symbols read
# through it (the binary is missing), and the link named
a=$E2E_TMP/arch-bin
cp -a "$E2E_TMP/arch-new" "$a"
bin=$(realpath "$WORKLOADS/burn")
[ -f "$a$bin" ] || fail "oparchive did not archive $bin"
cp "$a$bin" "$E2E_TMP/arch-bin.target"
rm "$a$bin"
ln -s "$E2E_TMP/arch-bin.target" "$a$bin"
arch_refused "$a$bin" burn_loop "$OPREPORT -l" "$OPEXPORT --format=folded -o $E2E_TMP/arch.folded"
# an archive whose proc/kallsyms is a link to kernel symbols outside it:
# the kernel's samples are not named by them, and the link is named
a=$E2E_TMP/arch-ksyms
cp -a "$E2E_TMP/arch-new" "$a"
mkdir -p "$a/proc"
rm -f "$a/proc/kallsyms"
printf 'ffffffff80000000 T planted_outside_kallsyms\nffffffffff000000 T planted_outside_end\n' \
	>"$E2E_TMP/arch-ksyms.target"
ln -s "$E2E_TMP/arch-ksyms.target" "$a/proc/kallsyms"
arch_refused "$a/proc/kallsyms" planted_outside "$OPREPORT -l" "$OPREPORT -c" \
	"$OPEXPORT --format=folded -o $E2E_TMP/arch.folded"
# an archive whose var/, or var/lib/oprofile, is a link to the session
# moved out of it: read through neither, and named
for planted in var var/lib/oprofile; do
	a=$E2E_TMP/arch-${planted//\//-}
	cp -a "$E2E_TMP/arch-new" "$a"
	mv "$a/$planted" "$a.target"
	ln -s "$a.target" "$a/$planted"
	expect 3 "$a/$planted is a symbolic link: refused, not followed" "$OPREPORT" "archive:$a"
	expect 3 "$a/$planted is a symbolic link: refused, not followed" \
		"$OPEXPORT" --format=folded -o "$E2E_TMP/arch.folded" "archive:$a"
done
intact "oparchive"
echo "links.sh: $n session directories, every planted link refused and named"
