# Sourced by the interoperability tests: the real OProfile 1.4.0 (the
# "peer", built once per build tree from ../shared/peers), and the cells
# they are made of. A cell is one command run by both tools on one session
# ("opreport -l" on the --separate=cpu session); it is identical, or it
# differs, and a difference fails the test unless known-differences lists
# it. Every cell prints one result line, and a differing cell its diff, so
# the log of a run is the table of what agrees.
. "$top_srcdir/tests/e2e/lib.sh"

INTEROP_SRC=$top_srcdir/tests/interop
KNOWN=$INTEROP_SRC/known-differences
# OPSAMPLER_PEER_DIR points a developer's loop at a peer built elsewhere;
# make check builds its own in the build tree.
PEER_DIR=${OPSAMPLER_PEER_DIR:-$top_builddir/tests/peer-oprofile}
PEER=$PEER_DIR/prefix/bin
OURS=$top_builddir/pp
# OProfile's schema for opreport -X, read from the peer's unpacked source
XSD=$PEER_DIR/src/doc/opreport.xsd

# interop_unavailable WHY: the peer or a tool is missing. A skip, unless
# the machine is meant to run everything (CI).
interop_unavailable() {
	if [ "${OPSAMPLER_REQUIRE_PERF:-0}" != 0 ]; then
		echo "FAIL: $1, and OPSAMPLER_REQUIRE_PERF is set" >&2
		exit 1
	fi
	echo "SKIP: $1" >&2
	exit 77
}

# interop_need_peer: builds the peer unless built. The tests of one
# `make check -j` wait for each other on a lock, so it is built once.
interop_need_peer() {
	local script=$top_srcdir/../shared/peers/build-oprofile.sh
	if [ ! -x "$PEER/opreport" ] || [ ! -x "$PEER/mkoprof" ]; then
		[ -f "$script" ] || interop_unavailable "no $script to build OProfile with"
		mkdir -p "$PEER_DIR"
		echo "interop: building OProfile 1.4.0 in $PEER_DIR (a few minutes, once)"
		flock "$PEER_DIR.lock" bash "$script" "$PEER_DIR" >&2 ||
			interop_unavailable "OProfile 1.4.0 did not build (see $PEER_DIR/build.log)"
	fi
	command -v xmllint >/dev/null || interop_unavailable "no xmllint (libxml2-utils)"
	[ -f "$XSD" ] || interop_unavailable "no $XSD in the peer's source"
}

# --- known differences ---------------------------------------------------
# known_difference CELL STATUS...: the status and reason of the first line
# of known-differences with one of the STATUSes whose pattern matches CELL,
# or nothing. Lines whose reason names a form ("[anon-escape] ...") are
# not for this: deliberate_forms weighs them.
known_difference() {
	local cell=$1 status pattern reason
	shift
	while read -r status pattern reason; do
		case " $* " in *" $status "*) ;; *) continue ;; esac
		case $reason in "["*"]"*) continue ;; esac
		# shellcheck disable=SC2254 # the pattern is a glob on purpose
		case $cell in $pattern) echo "$status $reason"; return ;; esac
	done <"$KNOWN"
}

# A deliberate difference that may turn up in any cell is written as a
# form: a rewrite of OProfile's text or ours that undoes exactly it. A
# cell whose texts agree once the forms of its matching lines are applied
# differs only deliberately; anything else still shows.
# form_NAME PEER OURS: rewrites the two copies in place.
# - anon-escape: our file names escape a '/' in an anonymous region's name
#   ("/memfd:x" from memfd_create) as %2F, which OProfile shows as is;
form_anon_escape() {
	sed -i 's|%2F|/|g' "$1"
}
# - loss-summary: our loss summary, after OProfile's warnings on stderr
#   (samples lost; parts of call chains and side-band records lost).
form_loss_summary() {
	local re='WARNING: ([0-9]* of [0-9]* samples \([0-9.]*%\) were lost while profiling|call chains were cut or not kept|the kernel lost [0-9]* side-band records|binaries of processes in other roots)'
	sed -E -i -e "/^\$/{\$!N;/^\n$re/d;P;D}" -e "/^$re/d" "$2"
}

# - no-symbols-note: our opreport names each binary it read no symbol
#   table for, with its build-id (what to install, or fetch with
#   DEBUGINFOD_URLS), on stderr after OProfile's warnings;
form_no_symbols_note() {
	sed -i -e '/^warning: no symbols for /d' "$2"
}

# - callgraph-note: for a session with call chains, our opreport says so
#   (and at what depth) on stderr, after the warnings;
form_callgraph_note() {
	sed -i -e '/^$/{$!N;/^\nNOTE: call chains were collected, to a depth of [0-9]*: /d;P;D}' \
	       -e '/^NOTE: call chains were collected, to a depth of [0-9]*: /d' "$2"
}

# - hw-events-note: for a session sampling several hardware events at
#   once, our opreport says on stderr that their columns can skew
form_hw_events_note() {
	sed -i -e '/^$/{$!N;/^\nNOTE: [0-9]* hardware events were sampled at once/d;P;D}' \
	       -e '/^NOTE: [0-9]* hardware events were sampled at once/d' "$2"
}

# deliberate_forms CELL PEER OURS: the reasons of the form lines matching
# CELL, when applying their forms makes the texts agree; else nothing.
deliberate_forms() {
	local cell=$1 status pattern reason form reasons=""
	cp "$2" "$2.form" && cp "$3" "$3.form"
	while read -r status pattern reason; do
		[ "$status" = deliberate ] || continue
		case $reason in "["*"]"*) ;; *) continue ;; esac
		# shellcheck disable=SC2254 # the pattern is a glob on purpose
		case $cell in $pattern) ;; *) continue ;; esac
		form=${reason#[}
		form=${form%%]*}
		"form_$(echo "$form" | tr - _)" "$2.form" "$3.form"
		reasons="${reasons:+$reasons; }${reason#*] }"
	done <"$KNOWN"
	[ -n "$reasons" ] && cmp -s "$2.form" "$3.form" && echo "$reasons"
	rm -f "$2.form" "$3.form"
}

# --- normalisation -------------------------------------------------------
# What legitimately differs by tool, and nothing else:
# - the build date on the version line (the name and version that precede
#   it differ deliberately: known-differences);
# - the program's own path in messages that start with it (OProfile
#   prints argv[0], the path it was run by, which is the build tree);
# - the peer's and our build directories, which appear where a report
#   names the tool's own files (there are none today; kept for archives).
normalise() {
	sed -e 's#^\([^ ]*\(opreport\|opannotate\|oparchive\): [a-z]* [0-9][^ ]*\) compiled on .*$#\1 compiled on DATE#' \
	    -e "s|$PEER/||g; s|$OURS/||g"
}

# Leak reports are the unit tests' business: here they would only make a
# transcript differ for a reason that is not the report's.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

# --- cells ---------------------------------------------------------------
nr_cells=0 nr_identical=0 nr_known=0 nr_failed=0
CELLS=$E2E_TMP/cells
mkdir -p "$CELLS"
RESULTS=$E2E_TMP/results

# cell_result CELL RESULT [DETAIL]: one line of the table
cell_result() {
	printf '%-34s %-10s %s\n' "$1" "$2" "${3:-}" | tee -a "$RESULTS"
}

# judge CELL A B: compares two normalised texts (the peer's, ours), prints
# the result, and the diff when they differ. Returns 0 when identical, 1
# for a known difference, 2 for another.
judge() {
	local cell=$1 a=$2 b=$3 known status forms
	known=$(known_difference "$cell" pending deliberate)
	status=${known%% *}
	if cmp -s "$a" "$b"; then
		if [ "$status" = pending ]; then
			cell_result "$cell" identical "(listed as pending: the fix landed? drop it from known-differences)"
		else
			cell_result "$cell" identical
		fi
		return 0
	fi
	forms=$(deliberate_forms "$cell" "$a" "$b")
	if [ -n "$forms" ]; then
		known="deliberate $forms"
		cell_result "$cell" differs "deliberate: $forms"
	elif [ -n "$known" ]; then
		cell_result "$cell" differs "$status: ${known#* }"
	else
		cell_result "$cell" DIFFERS "(not a known difference)"
	fi
	# the diff, from the peer's text to ours; a long one is cut
	diff -u --label "OProfile $cell" --label "ours $cell" "$a" "$b" |
		head -n "${INTEROP_DIFF_LINES:-60}" | cut -c1-200 | sed 's/^/    /' || true
	[ -n "$known" ] && return 1
	return 2
}

# cell_judge CELL A B: one cell, from the two runs' transcripts (A.t, B.t:
# stdout and exit status; A.e, B.e: stderr). Standard error is judged
# apart, as CELL:stderr, and shown only when it differs: a
# warning that goes to the other stream must not hide what the report says.
cell_judge() {
	local cell=$1 a=$2 b=$3 worst=0 rc=0
	nr_cells=$((nr_cells + 1))
	judge "$cell" "$a.t" "$b.t" || worst=$?
	if ! cmp -s "$a.e" "$b.e"; then
		judge "$cell:stderr" "$a.e" "$b.e" || rc=$?
		[ $rc -le $worst ] || worst=$rc
	fi
	case $worst in
	0) nr_identical=$((nr_identical + 1)) ;;
	1) nr_known=$((nr_known + 1)) ;;
	*) nr_failed=$((nr_failed + 1)) ;;
	esac
}

# run_tool NAME PROGRAM ARGS...: runs PROGRAM into $CELLS/NAME and leaves
# its normalised transcript in NAME.t (stdout, then the exit status when it
# is not 0) and NAME.e (stderr).
run_tool() {
	local name=$1 rc=0 out=$CELLS/$1
	shift
	"$@" >"$out" 2>"$out.err" || rc=$?
	{
		normalise <"$out"
		[ "$rc" -eq 0 ] || echo "== exit $rc"
	} >"$out.t"
	normalise <"$out.err" >"$out.e"
	return $rc
}

# cell_opreport CELL SESSION_DIR ARGS...: opreport ARGS by both tools. An
# error from OProfile's opreport fails the cell, unless known-differences
# says OProfile refuses that cell by design (then ours must refuse as it
# does: the transcripts are compared all the same).
cell_opreport() {
	local cell=$1 session=$2 f why
	shift 2
	f=$(echo "$cell" | tr '/ :,@' '_____')
	run_tool "$f.peer" "$PEER/opreport" --session-dir="$session" "$@" || true
	run_tool "$f.ours" "$OURS/opreport" --session-dir="$session" "$@" || true
	if grep -q -i 'error' "$CELLS/$f.peer.e" || grep -q '^== exit' "$CELLS/$f.peer.t"; then
		why=$(known_difference "$cell" refuses)
		if [ -z "$why" ]; then
			nr_failed=$((nr_failed + 1)) nr_cells=$((nr_cells + 1))
			cell_result "$cell" FAILS "OProfile's opreport $* did not read the session:"
			sed 's/^/    /' "$CELLS/$f.peer.e" "$CELLS/$f.peer.t"
			return
		fi
		echo "  ($cell: OProfile refuses by design: ${why#* })"
	fi
	cell_judge "$cell" "$CELLS/$f.peer" "$CELLS/$f.ours"
	# -X: both under OProfile's schema; ours may fail only as the peer's does
	case " $* " in *" -X "*) xml_schema "$cell" "$CELLS/$f.peer" "$CELLS/$f.ours" ;; esac
}

# OProfile 1.4.0's opannotate --assembly prints an objdump run's block a
# random number of times (1 to thousands, run to run, on one session): a
# block identical to one already printed is dropped from its text.
dedup_objdump_blocks() {
	awk '{ l[NR] = $0 }
	function starts(i) { return i < NR && l[i + 1] ~ /:     file format / }
	END {
		i = 1
		while (i <= NR && !starts(i)) print l[i++]
		while (i <= NR) {
			b = l[i++]
			while (i <= NR && !starts(i)) b = b "\n" l[i++]
			if (!(b in seen)) { seen[b] = 1; print b }
		}
	}'
}

# cell_opannotate CELL SESSION_DIR ARGS...: opannotate ARGS by both tools;
# an error from OProfile's fails the cell.
cell_opannotate() {
	local cell=$1 session=$2 f
	shift 2
	f=$(echo "$cell" | tr '/ :,@' '_____')
	run_tool "$f.peer" "$PEER/opannotate" --session-dir="$session" "$@" || true
	run_tool "$f.ours" "$OURS/opannotate" --session-dir="$session" "$@" || true
	if grep -q -i 'error' "$CELLS/$f.peer.e" || grep -q '^== exit' "$CELLS/$f.peer.t"; then
		nr_failed=$((nr_failed + 1)) nr_cells=$((nr_cells + 1))
		cell_result "$cell" FAILS "OProfile's opannotate $* did not read the session:"
		sed 's/^/    /' "$CELLS/$f.peer.e" "$CELLS/$f.peer.t" | head -20
		return
	fi
	dedup_objdump_blocks <"$CELLS/$f.peer.t" >"$CELLS/$f.peer.t.dedup"
	mv "$CELLS/$f.peer.t.dedup" "$CELLS/$f.peer.t"
	cell_judge "$cell" "$CELLS/$f.peer" "$CELLS/$f.ours"
}

# xml_schema CELL PEER_XML OUR_XML: xmllint --schema on both; an error in
# ours that OProfile's own output does not have fails the cell.
xml_schema() {
	local cell="$1 xsd" peer=$2 ours=$3 known
	nr_cells=$((nr_cells + 1))
	xmllint --noout --schema "$XSD" "$peer" 2>&1 | sed 's/^[^:]*:[0-9]*: //' | grep -v ' validates$' | sort -u >"$peer.xsd" || true
	xmllint --noout --schema "$XSD" "$ours" 2>&1 | sed 's/^[^:]*:[0-9]*: //' | grep -v ' validates$' | sort -u >"$ours.xsd" || true
	# (line numbers dropped: the two files may place one error differently)
	local extra
	extra=$(comm -13 "$peer.xsd" "$ours.xsd" | grep -v 'fails to validate$' || true)
	if [ -z "$extra" ]; then
		nr_identical=$((nr_identical + 1))
		if [ -s "$peer.xsd" ]; then
			cell_result "$cell" valid "as OProfile's: $(grep -v 'fails to validate$' "$peer.xsd" | head -1)"
		else
			cell_result "$cell" valid
		fi
	elif known=$(known_difference "$1" pending) && [ -n "$known" ]; then
		# the report itself is a pending difference (ours may not write
		# that XML yet): its schema check waits for it
		nr_known=$((nr_known + 1))
		cell_result "$cell" differs "${known}"
	else
		nr_failed=$((nr_failed + 1))
		cell_result "$cell" INVALID "errors OProfile's XML does not have:"
		echo "$extra" | head -20 | sed 's/^/    /'
	fi
}

# opreport_cells KIND SESSION_DIR IMAGE-SPEC: every opreport mode on one
# session, as cells MODE@KIND. The modes that read debug information take
# IMAGE-SPEC only (a system-wide session holds every program on the machine).
opreport_cells() {
	local k=$1 s=$2 image=$3 m
	cell_opreport "opreport@$k" "$s"
	cell_opreport "opreport-l@$k" "$s" -l
	cell_opreport "opreport-l-g@$k" "$s" -l -g "$image"
	cell_opreport "opreport-d@$k" "$s" -d "$image"
	cell_opreport "opreport-X@$k" "$s" -X -l
	for m in cpu lib tid tgid all; do
		cell_opreport "opreport-merge-$m@$k" "$s" --merge=$m
	done
	# (cpu:1 selects nothing in a session not separated by CPU)
	case $k in *cpu*) cell_opreport "opreport-cpu1@$k" "$s" cpu:1 ;; esac
	cell_opreport "opreport-x@$k" "$s" -x
	cell_opreport "opreport-a@$k" "$s" -l -a "$image"
}

# interop_summary: the counts, and the exit status of the test
interop_summary() {
	echo "interop: $nr_cells cells: $nr_identical identical, $nr_known known differences, $nr_failed failed"
	[ "$nr_failed" -eq 0 ] || fail "$nr_failed cell(s) differ from OProfile 1.4.0 beyond known-differences"
}
