#!/usr/bin/env bash
# Our sessions read by OProfile 1.4.0. Records one short session of the
# test's own workloads (opcontrol --pid) per kind of separation (none, cpu, lib,kernel, thread, and
# lib,kernel with --callgraph=16: "callgraph") while the
# test workloads run (libcall: an application, its library and the kernel;
# percpu: two threads pinned to two CPUs), then, on each session:
#   - OProfile's opreport and ours in every mode (summary, -l, -l -g, -d,
#     -X, --merge=cpu|lib|tid|tgid|all, cpu:1, -x, -a): the same text, line
#     for line, apart from tests/interop/known-differences;
#   - on the call-graph session, opreport -c (alone, with -g, -X, -w, -%,
#     -t, --merge=lib, -r, -a, -e, --sort), and -l, which must leave the
#     {cg} files alone in both tools; on a second one separated by CPU
#     too ("callgraph-cpu"), -c, -c cpu:1 and -c --merge=cpu; on a third
#     whose user callers were found by DWARF unwinding ("callgraph-dwarf",
#     --unwind=dwarf), -c, -c -g and -c -X;
#   - ours -X under OProfile's schema: no error OProfile's XML lacks;
#   - OProfile's opannotate and ours (--source, --assembly, both) on the
#     workload: the same text;
#   - OProfile's oparchive: exit 0, no error, and the archive reads back
#     (OProfile's opreport archive:) as the session.
# One line per cell, a diff for each cell that differs.
. "$top_srcdir/tests/interop/lib.sh"

interop_need_peer
e2e_need_perf

KINDS="none cpu lib,kernel thread callgraph callgraph-cpu callgraph-dwarf"
# The grid runs with the event the machine gives ("default": cycles where a
# hardware PMU is usable, the timer otherwise). Where a PMU is usable, two
# more sessions: cycles and instructions together (OProfile's two-column
# report), and the timer path chosen by the PMU probe's hook.
if [ "$(e2e_event_modes)" != timer ]; then
	KINDS="$KINDS two-events timer"
fi
echo "interop: the default event here is $(e2e_default_event); kinds: $KINDS"
op() { "$OPCONTROL" --session-dir="$1" "${@:2}"; }
session_of() { echo "$E2E_TMP/s-$(echo "$1" | tr , -)"; }
cleanup_sessions() {
	local status=$? k
	for k in $KINDS; do
		if [ -S "$(session_of "$k")/opd_ctl" ]; then
			op "$(session_of "$k")" --shutdown >/dev/null 2>&1 || true
		fi
	done
	e2e_cleanup "$status"
}
trap cleanup_sessions EXIT

# record KIND: one session, the workloads for two seconds. They run under
# one parent that waits for the session to start: opcontrol --pid keeps
# the session to that process tree (and the kernel on its behalf), so it
# holds what this test ran, not whatever else the machine runs meanwhile,
# whose binaries may be rebuilt or deleted before the comparisons read
# them.
record() {
	local s go holder
	s=$(session_of "$1")
	go=$E2E_TMP/go-$(echo "$1" | tr , -)
	mkfifo "$go"
	(
		read -r _ <"$go"
		"$WORKLOADS/libcall" "$WORKLOADS/libopwl.so" 2 >/dev/null &
		wl=$!
		"$WORKLOADS/percpu" 2 >/dev/null || [ $? -eq 77 ] || exit 1
		wait "$wl"
	) &
	holder=$!
	if [ "$1" = two-events ]; then
		op "$s" --setup --event=CPU_CLK_UNHALTED:100000 --event=instructions:100000 \
			--pid="$holder" >/dev/null ||
			fail "opcontrol --setup with cycles and instructions failed"
	elif [ "$1" = timer ]; then
		OPSAMPLER_PMU=off op "$s" --setup --event=default --pid="$holder" >/dev/null ||
			fail "opcontrol --setup (timer) failed"
	elif [ "$1" = callgraph-cpu ]; then
		# (with lib,kernel, which --callgraph implies)
		op "$s" --setup --event=default --callgraph=16 --separate=cpu \
			--pid="$holder" >/dev/null ||
			fail "opcontrol --setup --callgraph --separate=cpu failed"
	elif [ "$1" = callgraph-dwarf ]; then
		op "$s" --setup --event=default --callgraph=16 --unwind=dwarf \
			--pid="$holder" >/dev/null ||
			fail "opcontrol --setup --callgraph=16 --unwind=dwarf failed"
	elif [ "$1" = callgraph ]; then
		# (--callgraph implies --separate=lib,kernel)
		op "$s" --setup --event=default --callgraph=16 --pid="$holder" >/dev/null ||
			fail "opcontrol --setup --callgraph=16 failed"
	else
		op "$s" --setup --event=default --separate="$1" --pid="$holder" >/dev/null ||
			fail "opcontrol --setup --separate=$1 failed"
	fi
	if [ "$1" = timer ]; then
		OPSAMPLER_PMU=off op "$s" --start >/dev/null || fail "opcontrol --start ($1) failed"
	else
		op "$s" --start >/dev/null || fail "opcontrol --start ($1) failed"
	fi
	echo go >"$go"
	wait "$holder" || fail "the workloads failed ($1)"
	op "$s" --stop >/dev/null || fail "opcontrol --stop ($1) failed"
	op "$s" --shutdown >/dev/null || fail "opcontrol --shutdown ($1) failed"
}

t0=$SECONDS
for k in $KINDS; do
	record "$k"
done
# the daemons are gone: the next test may profile while this one compares
e2e_unlock_system_wide
# Our reports name the vDSO's functions (__vdso_clock_gettime) from the
# image the daemon saves in the session, where OProfile names a [vdso]
# region as its own one symbol; the workloads read clocks, so their
# sessions hold a few vDSO samples. Without the image, ours names them as
# OProfile does (operf/vdso.sh tests the naming, theirs.sh a session
# without one): compared so, every cell shows the rest.
for k in $KINDS; do
	rm -f "$(session_of "$k")/samples/current/stats/vdso"
done
echo "interop: recorded $KINDS in $((SECONDS - t0)) s"

LIBCALL="image:$WORKLOADS/libcall"
t0=$SECONDS
for k in $KINDS; do
	s=$(session_of "$k")
	if [ "$k" = callgraph-cpu ]; then
		# arc files per CPU: each CPU's, and merged
		cell_opreport "opreport-c@$k" "$s" -c
		cell_opreport "opreport-c-cpu1@$k" "$s" -c cpu:1
		cell_opreport "opreport-c-merge-cpu@$k" "$s" -c --merge=cpu
		continue
	fi
	if [ "$k" = callgraph-dwarf ]; then
		# the arcs of DWARF-unwound chains: OProfile reads them as any
		cell_opreport "opreport-c@$k" "$s" -c
		cell_opreport "opreport-c-g@$k" "$s" -c -g "$LIBCALL"
		cell_opreport "opreport-c-X@$k" "$s" -c -X
		continue
	fi
	if [ "$k" = callgraph ]; then
		cell_opreport "opreport-l@$k" "$s" -l
		cell_opreport "opreport-c@$k" "$s" -c
		cell_opreport "opreport-c-g@$k" "$s" -c -g "$LIBCALL"
		cell_opreport "opreport-c-X@$k" "$s" -c -X
		# -c with the options that change its text
		cell_opreport "opreport-c-w@$k" "$s" -c -w
		cell_opreport "opreport-c-pct@$k" "$s" -c -%
		cell_opreport "opreport-c-t@$k" "$s" -c -t 2
		cell_opreport "opreport-c-merge-lib@$k" "$s" -c --merge=lib
		cell_opreport "opreport-c-r@$k" "$s" -c -r
		cell_opreport "opreport-c-a@$k" "$s" -c -a
		cell_opreport "opreport-c-e@$k" "$s" -c -e main
		cell_opreport "opreport-c-sort@$k" "$s" -c --sort=image,symbol
		continue
	fi
	opreport_cells "$k" "$s" "$LIBCALL"

	# opannotate --source and --assembly (with and without --source):
	# OProfile's and ours on the workload, the same text
	# (-x: the program's own image; OProfile's --assembly runs objdump on
	# every selected image, and fails on an anonymous one such as [vdso])
	cell_opannotate "opannotate-source@$k" "$s" --source -x "$LIBCALL"
	cell_opannotate "opannotate-assembly@$k" "$s" --assembly -x "$LIBCALL"
	cell_opannotate "opannotate-assembly-source@$k" "$s" --assembly --source -x "$LIBCALL"

	# oparchive: the archive holds the session and its binaries, and
	# OProfile's opreport reads it back as it reads the session
	arch=$E2E_TMP/archive-$k
	rc=0
	"$PEER/oparchive" --session-dir="$s" -o "$arch" >"$arch.out" 2>"$arch.err" || rc=$?
	nr_cells=$((nr_cells + 1))
	if [ $rc -ne 0 ] || grep -q -i error "$arch.err"; then
		nr_failed=$((nr_failed + 1))
		cell_result "oparchive@$k" FAILS "exit $rc:"
		sed 's/^/    /' "$arch.err" | head -20
	else
		nr_identical=$((nr_identical + 1))
		cell_result "oparchive@$k" reads "$(find "$arch" -type f | wc -l) files"
		# (the samples are in the archive under the session's path)
		# (the summary: symbols would come from the archive's copies of
		# binaries that other users of the machine may have rebuilt since)
		run_tool "archive-$k.peer" "$PEER/opreport" --session-dir="$s" "archive:$arch" || true
		run_tool "session-$k.peer" "$PEER/opreport" --session-dir="$s" || true
		# the archive's report names the archive's copy of each binary
		sed -i "s|$arch||g" "$CELLS/archive-$k.peer".[te]
		cell_judge "oparchive-readback@$k" "$CELLS/session-$k.peer" "$CELLS/archive-$k.peer"
		# and ours reads OProfile's archive as OProfile does
		run_tool "archive-$k.ours" "$OURS/opreport" --session-dir="$s" "archive:$arch" || true
		sed -i "s|$arch||g" "$CELLS/archive-$k.ours".[te]
		cell_judge "opreport-archive@$k" "$CELLS/archive-$k.peer" "$CELLS/archive-$k.ours"
	fi
done
cell_opreport "opreport-version" "$(session_of none)" --version
echo "interop: compared in $((SECONDS - t0)) s"
interop_summary
