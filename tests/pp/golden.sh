#!/usr/bin/env bash
# Golden-output tests for opreport: sample files written (by pp_mksession,
# through odb and op_names) for the fixture binary pp_target_pie at offsets
# taken from its own symbols, and the exact text opreport must print for
# the summary, -l, -l -g, -d, per-CPU columns, --merge=cpu, cpu:N, XML and
# a differential report. Addresses in the expected files are placeholders
# (@A50@ ...) filled in from `nm`, so no address is hard-coded.
#
# GOLDEN_UPDATE=1 rewrites the expected files from the current output
# (review the diff before committing it).
. "$top_srcdir/tests/pp/lib.sh"

T2=$PP/pp_target_nopie
GOLDEN=$top_srcdir/tests/pp/golden

# vma of a symbol (+ delta) as opreport prints it
vma() {
	local a
	a=$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$a" ] || fail "no symbol $2 in $1"
	printf '%08x' $((0x$a + ${3:-0}))
}
A50=$(vma "$T" func_a50); A50_4=$(vma "$T" func_a50 4)
B30=$(vma "$T" func_b30); B30_2=$(vma "$T" func_b30 2)
C15=$(vma "$T" func_c15); D05=$(vma "$T" func_d05); D05_1=$(vma "$T" func_d05 1)
N_MAIN=$(vma "$T2" main)

S1=$E2E_TMP/plain
S2=$E2E_TMP/percpu

# A program with its kernel samples separated under it (--separate=kernel),
# and a few samples outside every symbol (file offset 0: the ELF header).
"$MKS" "$S1" <<EOF
header 4 2596.13
file f:$T f:$T TIMER 1000000 0 all all all
sym $T func_a50 0 3000
sym $T func_a50 4 48
sym $T func_b30 2 1828
sym $T func_c15 0 911
sym $T func_d05 1 301
off 0 3
file k:/proc/kallsyms f:$T TIMER 1000000 0 all all all
ksym $KALLSYMS pid_task 0x10 1
ksym $KALLSYMS tty_audit_exit 0 1
EOF
# An older run of the same program, for the differential report.
"$MKS" "$S1" old <<EOF
header 4 2596.13
file f:$T f:$T TIMER 1000000 0 all all all
sym $T func_a50 0 2000
sym $T func_b30 2 2000
sym $T func_d05 1 500
file k:/proc/kallsyms f:$T TIMER 1000000 0 all all all
ksym $KALLSYMS schedule 0 4
EOF
# Two programs on two CPUs (--separate=cpu,kernel).
"$MKS" "$S2" <<EOF
header 4 2596.13
file f:$T f:$T TIMER 100000 0 all all 0
sym $T func_a50 0 400
sym $T func_b30 0 100
file f:$T f:$T TIMER 100000 0 all all 1
sym $T func_a50 0 380
sym $T func_c15 0 20
file k:/proc/kallsyms f:$T TIMER 100000 0 all all 1
ksym $KALLSYMS schedule 0 7
file f:$T2 f:$T2 TIMER 100000 0 all all 0
sym $T2 main 0 9
file k:/proc/kallsyms f:$T2 TIMER 100000 0 all all 0
ksym $KALLSYMS pid_task 0 3
EOF

# Applications with and without dependent images (--separate=kernel): one
# sampled in itself and the kernel, one only in itself (no dependent block),
# one only in the kernel (a block with the kernel alone).
S3=$E2E_TMP/deps
"$MKS" "$S3" <<EOF
header 4 2596.13
file f:$T f:$T TIMER 100000 0 all all all
sym $T func_a50 0 40
file k:/proc/kallsyms f:$T TIMER 100000 0 all all all
ksym $KALLSYMS schedule 0 10
file f:$T2 f:$T2 TIMER 100000 0 all all all
sym $T2 main 0 30
file k:/proc/kallsyms f:/opt/demo/idle TIMER 100000 0 all all all
ksym $KALLSYMS pid_task 0 20
EOF

# --separate=lib: the fixture as a library of two applications, sampled
# in different symbols under each (func_a50 under both).
S10=$E2E_TMP/libs
"$MKS" "$S10" <<EOF
header 4 2596.13
file f:$T2 f:$T2 TIMER 100000 0 all all all
sym $T2 main 0 9
file f:$T f:$T2 TIMER 100000 0 all all all
sym $T func_a50 0 40
sym $T func_b30 0 10
file f:$T f:/opt/demo/other TIMER 100000 0 all all all
sym $T func_a50 4 20
sym $T func_c15 0 5
EOF

# Call-graph arcs ({cg} files, opreport -c): calls between the fixture's
# functions with a recursion (func_a50), a callee without samples
# (func_d05), calls into a stripped library (one block named after the
# image; its own calls count nowhere, as in OProfile) and into the
# kernel. The text was checked against OProfile 1.4's opreport on the
# same arcs.
S14=$E2E_TMP/callgraph
G=$PP/pp_target_buildid
"$MKS" "$S14" <<EOF
header 4 2596.13
file f:$T f:$T TIMER 1000000 0 all all all
sym $T func_a50 0 300
sym $T func_b30 2 200
sym $T func_c15 0 50
sym $T main 0 10
file f:$G f:$T TIMER 1000000 0 all all all
off 1234 4
file k:/proc/kallsyms f:$T TIMER 1000000 0 all all all
ksym $KALLSYMS pid_task 0x10 3
cgfile f:$T f:$T f:$T TIMER 1000000 0 all all all
arc $T:main+8 $T:func_a50 30
arc $T:main+12 $T:func_b30 20
arc $T:main+16 $T:func_c15 1
arc $T:func_a50+20 $T:func_a50 5
arc $T:func_b30+4 $T:func_c15 7
arc $T:func_b30+4 $T:func_d05+3 2
cgfile f:$T f:$T f:$G TIMER 1000000 0 all all all
arc $T:main+20 0x1234 3
arc $T:main+20 0x1238 1
cgfile f:$G f:$T f:$T TIMER 1000000 0 all all all
arc 0x1234 $T:func_d05 6
cgfile f:$T f:$T k:/proc/kallsyms TIMER 1000000 0 all all all
arc $T:func_c15+2 k:$KALLSYMS:pid_task+0x10 3
EOF

# S14's application on two CPUs (--separate=cpu): a column per CPU,
# named as <class> elements
S16=$E2E_TMP/callgraph-cpus
"$MKS" "$S16" <<EOF
header 4 2596.13
file f:$T f:$T TIMER 1000000 0 all all 0
sym $T func_a50 0 300
sym $T func_b30 2 20
file f:$T f:$T TIMER 1000000 0 all all 1
sym $T func_b30 2 180
sym $T main 0 10
cgfile f:$T f:$T f:$T TIMER 1000000 0 all all 0
arc $T:main+8 $T:func_a50 30
arc $T:main+12 $T:func_b30 20
cgfile f:$T f:$T f:$T TIMER 1000000 0 all all 1
arc $T:main+12 $T:func_b30 4
arc $T:func_b30+4 $T:func_d05+3 2
EOF

# Files that differ along several axes, which only XML takes: threads on
# two CPUs (--separate=thread,cpu), and two events on two CPUs.
S11=$E2E_TMP/threads-cpus
"$MKS" "$S11" <<EOF
header 4 2596.13
file f:$T f:$T TIMER 100000 0 100 100 0
sym $T func_a50 0 30
file f:$T f:$T TIMER 100000 0 100 100 1
sym $T func_b30 0 10
file f:$T f:$T TIMER 100000 0 100 101 1
sym $T func_a50 0 7
file k:/proc/kallsyms f:$T TIMER 100000 0 100 101 1
ksym $KALLSYMS schedule 0 2
file f:$T2 f:$T2 TIMER 100000 0 200 200 0
sym $T2 main 0 9
EOF
S12=$E2E_TMP/events-cpus
"$MKS" "$S12" <<EOF
header 69 2596.13
file f:$T f:$T CPU_CLK_UNHALTED 100000 0 all all 0
sym $T func_a50 0 60
file f:$T f:$T CPU_CLK_UNHALTED 100000 0 all all 1
sym $T func_a50 0 25
sym $T func_b30 0 5
file f:$T f:$T INST_RETIRED 200000 0 all all 0
sym $T func_b30 0 30
EOF

# A hardware-event session: CPU_CLK_UNHALTED on an AMD64 (cpu_type 69 as
# libop writes it), and one with no CPU speed in its header.
S4=$E2E_TMP/hw
"$MKS" "$S4" <<EOF
header 69 2596.13
file f:$T f:$T CPU_CLK_UNHALTED 100000 0 all all all
sym $T func_a50 0 60
sym $T func_b30 0 40
EOF
S5=$E2E_TMP/hw-nospeed
"$MKS" "$S5" <<EOF
header 41 0
file f:$T f:$T INST_RETIRED 200000 0 all all all
sym $T func_c15 0 5
EOF

# --separate=thread: two threads of one process (one also in the kernel)
# and another process; and two hardware events side by side.
S6=$E2E_TMP/threads
"$MKS" "$S6" <<EOF
header 4 2596.13
file f:$T f:$T TIMER 100000 0 100 100 all
sym $T func_a50 0 50
file f:$T f:$T TIMER 100000 0 100 101 all
sym $T func_b30 0 20
file k:/proc/kallsyms f:$T TIMER 100000 0 100 101 all
ksym $KALLSYMS schedule 0 5
file f:$T2 f:$T2 TIMER 100000 0 200 200 all
sym $T2 main 0 9
EOF
# --separate=thread, two programs of one base name (a copy of the fixture
# elsewhere) in threads 200 and 300. OProfile's XML sorts symbols by
# application and image base name, then by the first column's samples
# (thread 100's: none), then by name, so the copy's func_b30 falls between
# thread 200's func_a50 and func_d05: that thread keeps one module,
# counted with both, listing func_a50 alone (OProfile 1.4.0's output).
T3=$E2E_TMP/copy/${T##*/}
mkdir -p "${T3%/*}" && cp -p "$T" "$T3"
S15=$E2E_TMP/threads-one-name
"$MKS" "$S15" <<EOF
header 4 2400
file f:$T2 f:$T2 TIMER 100000 0 100 100 all
sym $T2 main 0 9
file f:$T f:$T TIMER 100000 0 200 200 all
sym $T func_a50 0 30
sym $T func_d05 0 1
file f:$T3 f:$T3 TIMER 100000 0 300 300 all
sym $T3 func_b30 0 20
EOF
S7=$E2E_TMP/events
"$MKS" "$S7" <<EOF
header 69 2596.13
file f:$T f:$T CPU_CLK_UNHALTED 100000 0 all all all
sym $T func_a50 0 60
file f:$T f:$T INST_RETIRED 200000 0 all all all
sym $T func_a50 0 10
sym $T func_b30 0 30
EOF

# Ties (--separate=lib,kernel,cpu): applications and images with equal
# counts in the first column and different ones in the second. OProfile
# keeps tied applications in name order ("alpha" before "alpha-2", though
# its files sort the other way) and an application's images in the order
# it first meets them: the application's own, the others class by class,
# each class's by the path of their files ({anon:...} < {kern} < {root});
# -r reverses the counts only. The images are not read: names will do.
S13=$E2E_TMP/ties
"$MKS" "$S13" <<EOF
header 4 2596.13
file f:/opt/demo/zeta f:/opt/demo/zeta TIMER 100000 0 all all 0
off 10 5
file f:/opt/demo/zeta f:/opt/demo/zeta TIMER 100000 0 all all 1
off 10 5
file f:/opt/lib/libz.so f:/opt/demo/zeta TIMER 100000 0 all all 0
off 10 5
file f:/opt/lib/liba.so f:/opt/demo/zeta TIMER 100000 0 all all 0
off 10 5
file f:/opt/lib/liba.so f:/opt/demo/zeta TIMER 100000 0 all all 1
off 10 3
file f:/opt/lib/libb.so f:/opt/demo/zeta TIMER 100000 0 all all 1
off 10 7
file k:/proc/kallsyms f:/opt/demo/zeta TIMER 100000 0 all all 0
off 10 5
file k:ext4 f:/opt/demo/zeta TIMER 100000 0 all all 0
off 10 5
file a:anon:123:1000:1fff f:/opt/demo/zeta TIMER 100000 0 all all 0
off 10 5
file f:/opt/demo/alpha f:/opt/demo/alpha TIMER 100000 0 all all 0
off 10 35
file f:/opt/demo/alpha-2 f:/opt/demo/alpha-2 TIMER 100000 0 all all 0
off 10 35
file f:/opt/demo/alpha-2 f:/opt/demo/alpha-2 TIMER 100000 0 all all 1
off 10 60
file f:/opt/demo/small f:/opt/demo/small TIMER 100000 0 all all 1
off 10 9
file f:/opt/demo/small f:/opt/demo/small TIMER 100000 0 all all 0
off 10 2
EOF

subst() {
	sed -e "s|@A50@|$A50|g; s|@A50_4@|$A50_4|g; s|@B30@|$B30|g; s|@B30_2@|$B30_2|g" \
	    -e "s|@C15@|$C15|g; s|@D05@|$D05|g; s|@D05_1@|$D05_1|g; s|@N_MAIN@|$N_MAIN|g" \
	    -e "s|@TARGET@|$T|g; s|@TARGET2@|$T2|g; s|@TMP@|$E2E_TMP|g; s|@KALLSYMS@|$KALLSYMS|g" \
	    -e "s|@STRIPPED@|$PP/pp_target_buildid|g"
}
unsubst() {
	sed -e "s|$PP/pp_target_buildid|@STRIPPED@|g" \
	    -e "s|$KALLSYMS|@KALLSYMS@|g; s|$E2E_TMP|@TMP@|g; s|$T2|@TARGET2@|g; s|$T|@TARGET@|g" \
	    -e "s|$A50_4|@A50_4@|g; s|$A50|@A50@|g; s|$B30_2|@B30_2@|g; s|$B30|@B30@|g" \
	    -e "s|$C15|@C15@|g; s|$D05_1|@D05_1@|g; s|$D05|@D05@|g; s|$N_MAIN|@N_MAIN@|g"
}

nr_fail=0
# check NAME SESSION ARGS...: opreport's stdout must equal golden/NAME.txt
check() {
	local name=$1 session=$2 out rc=0
	shift 2
	out=$E2E_TMP/$name.out
	"$OPREPORT" --session-dir="$session" --kallsyms="$KALLSYMS" "$@" \
		>"$out" 2>"$E2E_TMP/$name.err" || rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL: $name: opreport exited $rc" >&2
		cat "$E2E_TMP/$name.err" >&2
		nr_fail=$((nr_fail + 1))
		return
	fi
	# the machine code in -X -d's <bytes> is the compiler's: compared
	# apart, below
	sed -i 's|^[0-9A-F][0-9A-F]*</bytes>$|@BYTES@</bytes>|' "$out"
	# -X -g names the fixture's source by the path the compiler
	# recorded, which depends on where the tree is and on the build:
	# absolute out of tree, relative to the build directory in tree
	# (./configure && make in the source tree)
	sed -i 's|file="[^"]*pp_target\.c"|file="@SRCDIR@/pp_target.c"|' "$out"
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		unsubst <"$out" >"$GOLDEN/$name.txt"
		return
	fi
	if ! diff -u <(subst <"$GOLDEN/$name.txt") "$out" >&2; then
		echo "FAIL: $name: output differs from golden/$name.txt" >&2
		nr_fail=$((nr_fail + 1))
	fi
	# two hardware events side by side (the events sessions): opreport
	# says, and only then, that their columns can skew on a virtual PMU
	if [ "$session" = "$S7" ] || [ "$session" = "$S12" ]; then
		if ! grep -q "^NOTE: 2 hardware events were sampled at once" "$E2E_TMP/$name.err"; then
			echo "FAIL: $name: no note on the two hardware events" >&2
			nr_fail=$((nr_fail + 1))
		fi
		sed -i -e '/^NOTE: 2 hardware events were sampled at once/,/^shape; /d' -e '/^$/d' \
			"$E2E_TMP/$name.err"
	fi
	# the call-graph fixture's stripped library is named once with its
	# build-id, the debug file to install (opreport(1), DEBUG FILES): the
	# one message expected, and only for that binary
	if grep -q "pp_target_buildid" "$E2E_TMP/$name.err" &&
	   ! grep -q "^warning: no symbols for $PP/pp_target_buildid (build-id [0-9a-f]\{40\}): install its debug file (/usr/lib/debug/.build-id/" "$E2E_TMP/$name.err"; then
		echo "FAIL: $name: the stripped library is not named with its build-id:" >&2
		cat "$E2E_TMP/$name.err" >&2
		nr_fail=$((nr_fail + 1))
	fi
	sed -i "\|^warning: no symbols for $PP/pp_target_buildid (build-id |d" "$E2E_TMP/$name.err"
	if [ -s "$E2E_TMP/$name.err" ]; then
		echo "FAIL: $name: unexpected messages:" >&2
		cat "$E2E_TMP/$name.err" >&2
		nr_fail=$((nr_fail + 1))
	fi
}

check summary "$S1"
check symbols "$S1" -l
check symbols-lines "$S1" -l -g image:$T
check details "$S1" -d image:$T
check address "$S1" -l -w -x
check xml "$S1" -X -l image:$T
check xml-details "$S1" -X -d image:$T
# <bytes> of func_b30 (idref 1): its code up to func_c15, as objdump shows it
want=$(objdump -d --start-address=0x$B30 --stop-address=0x$C15 "$T" |
	awk -F'\t' '/^ *[0-9a-f]+:\t/ { print $2 }' | tr -d ' \n' | tr a-f A-F)
got=$("$OPREPORT" --session-dir="$S1" --kallsyms="$KALLSYMS" -X -d image:$T 2>/dev/null |
	sed -n '/^<bytes  id="1">$/{n;s|</bytes>$||;p;}')
if [ -z "$want" ] || [ "$got" != "$want" ]; then
	echo "FAIL: xml-details: <bytes> of func_b30 '$got', objdump '$want'" >&2
	nr_fail=$((nr_fail + 1))
fi
# -g: the source of each symbol on its <symboldata>, and with -d the line
# of each address on its <detaildata>
check xml-lines "$S1" -X -l -g image:$T
check xml-details-lines "$S1" -X -d -g image:$T
check diff "$S1" -l { session:old } { session:current }
check percpu "$S2"
check percpu-symbols "$S2" -l
check percpu-cpu1 "$S2" -l cpu:1
check merge-cpu "$S2" --merge=cpu
check merge-cpu-lib "$S2" --merge=cpu,lib
check percpu-xml "$S2" -X cpu:0-1
# one CPU selected: OProfile counts separated CPUs as the highest CPU + 1
check percpu-xml-cpu1 "$S2" -X cpu:1
check percpu-xml-cpu0 "$S2" -X cpu:0
# -n: no header block and no column titles, in every layout
check noheader-summary "$S2" -n
check noheader-details "$S1" -n -d image:$T
# the dependent block only where it shows more than the application itself
check deps "$S3"
# the header of hardware events: CPU name, event description, unit mask
check hw-event "$S4" -l
check hw-event-nospeed "$S5"
# XML: processes and threads as elements; events as classes
check xml-threads "$S6" -X
check xml-events "$S7" -X
check events "$S7" -l
# a library under two applications: one symbol-table entry per symbol of
# the library, shared by both, its details numbered across them
check xml-libs "$S10" -X
check xml-libs-details "$S10" -X -d
# several axes at once: a column per thread and CPU (or event and CPU),
# named by CPU and event only, a thread's columns side by side
check xml-threads-cpus "$S11" -X
# a thread's module as OProfile's xml_utils groups it; mhz with two
# decimals, as OProfile writes it ("2400.00")
check xml-threads-one-name "$S15" -X -l
check xml-events-cpus "$S12" -X -d
# -%: per-address lines of -d against all samples, not the symbol's
check details-global "$S1" -d -% image:$T
# ties as OProfile's opreport leaves them (its text, checked by hand
# against OProfile 1.4.0 on this session), a module's long name "/NAME"
check ties "$S13"
check ties-reverse "$S13" -r
check ties-merge-cpu "$S13" --merge=cpu -f
check ties-merge-lib "$S13" --merge=lib
check ties-x "$S13" -x

# -c: callers above each symbol, callees and [self] below; -t cuts
# blocks by their own share and lines by their share of the block; -x
# keeps the arcs within the application alone; the flat views never read
# the arc files
check callgraph "$S14" -c
check callgraph-threshold "$S14" -c -t 5 -%
check callgraph-x "$S14" -c -x
check callgraph-flat "$S14" -l
# -c -X: <callers> and <callees> in each <symbol>, a callee "[self]" as
# self="true", the library's block in a <module> whose callers and
# callees name their own modules (checked against OProfile 1.4's opreport
# on this session, as are the per-CPU columns of S16)
check callgraph-xml "$S14" -c -X
check callgraph-xml-cpus "$S16" -c -X
check callgraph-xml-lines "$S14" -c -X -g -t 5

[ $nr_fail -eq 0 ] || fail "$nr_fail golden check(s) failed"
echo "PASS: golden reports"
