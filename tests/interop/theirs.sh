#!/usr/bin/env bash
# Sessions written by OProfile's own code read by our opreport. mkoprof
# (built with the peer: OProfile 1.4.0's op_mangle_filename(), libdb and
# opd_header, filled as operf fills them) writes the sessions operf would
# write for the fixture programs, at offsets taken from their own symbols:
# timer and hardware-event ("hw": CPU_CLK_UNHALTED on arch_perfmon)
# sessions, not separated, separated by CPU, and by thread. On each, every
# opreport mode of OProfile and ours must print the same text, and our XML
# pass OProfile's schema wherever OProfile's does.
#
# These replace the golden files of "operf layout" sessions that our own
# writer made: a test of a shared format runs the other tool.
. "$top_srcdir/tests/interop/lib.sh"

interop_need_peer

PP=$top_builddir/tests/pp
T=$PP/pp_target_pie
T2=$PP/pp_target_nopie
[ -x "$T" ] && [ -x "$T2" ] || fail "fixtures not built"

# fileoff ELF SYMBOL [DELTA]: the file offset of SYMBOL + DELTA, which is
# what operf keys a user-space sample by (vma - segment vaddr + offset)
fileoff() {
	local vma v type off va fsz msz rest
	vma=$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$vma" ] || fail "no symbol $2 in $1"
	v=$((0x$vma + ${3:-0}))
	while read -r type off va _ fsz msz rest; do
		[ "$type" = LOAD ] || continue
		if [ "$v" -ge $((va)) ] && [ "$v" -lt $((va + msz)) ]; then
			echo $((v - va + off))
			return
		fi
	done < <(readelf -lW "$1")
	fail "$2 of $1 is in no LOAD segment"
}
# kernoff SYMBOL: a kernel symbol's offset from _text, as operf keys
# samples in /proc/kallsyms (the live table: both tools read it)
kernoff() {
	local t x
	t=$(awk '$3 == "_text" { print $1; exit }' /proc/kallsyms)
	x=$(awk -v s="$1" '$3 == s { print $1; exit }' /proc/kallsyms)
	[ -n "$t" ] && [ -n "$x" ] && [ "$t" != 0000000000000000 ] && echo $((0x$x - 0x$t))
}

# records SPLIT: mkoprof's input for the fixture programs. SPLIT names the
# EVENT.COUNT.UM.TGID.TID.CPU suffix of each group of samples:
#   none    all in one file per image
#   cpu     func_a50 and the kernel on CPU 1, the rest on CPU 0
#   thread  two threads of one process, and another process
records() {
	local ev=TIMER.1000000.0 speed=2596.13 a b c mt mt2 k
	case $1 in
	none) a=all.all.all b=all.all.all c=all.all.all ;;
	cpu) a=all.all.1 b=all.all.0 c=all.all.0 ;;
	thread) a=100.101.all b=100.100.all c=200.200.all ;;
	esac
	mt=$(stat -c %Y "$T")
	mt2=$(stat -c %Y "$T2")
	printf 'F\t{root}%s\t{root}%s\t%s.%s\t0\t0\t%s\t%s\n' "$T" "$T" $ev "$a" "$mt" $speed
	printf 'N\t%s\t%s\n' "$(fileoff "$T" func_a50)" 3000 "$(fileoff "$T" func_a50 4)" 48
	printf 'F\t{root}%s\t{root}%s\t%s.%s\t0\t0\t%s\t%s\n' "$T" "$T" $ev "$b" "$mt" $speed
	printf 'N\t%s\t%s\n' "$(fileoff "$T" func_b30 2)" 1828 "$(fileoff "$T" func_c15)" 911 \
		"$(fileoff "$T" func_d05 1)" 301
	# the kernel under the program (operf keeps --separate=kernel's layout)
	k=$(kernoff schedule)
	if [ -n "$k" ]; then
		printf 'F\t{root}%s\t{root}/proc/kallsyms\t%s.%s\t1\t0\t0\t%s\n' "$T" $ev "$a" $speed
		printf 'N\t%s\t%s\n' "$k" 7
	fi
	# an anonymous region of the program (the vdso), and another program
	printf 'F\t{root}%s\t{anon:[vdso]}/4242.0x7ffd1000.0x7ffd2fff\t%s.%s\t0\t%s\t0\t%s\n' \
		"$T" $ev "$b" $((0x7ffd1000)) $speed
	printf 'N\t%s\t%s\n' 16 5
	printf 'F\t{root}%s\t{root}%s\t%s.%s\t0\t0\t%s\t%s\n' "$T2" "$T2" $ev "$c" "$mt2" $speed
	printf 'N\t%s\t%s\n' "$(fileoff "$T2" main)" 9
}

t0=$SECONDS
for mode in timer hw; do
	for split in none cpu thread; do
		k=mkoprof-$mode-$split
		s=$E2E_TMP/$k
		records $split >"$E2E_TMP/$k.tsv"
		"$PEER/mkoprof" "$s" $mode <"$E2E_TMP/$k.tsv" 2>"$E2E_TMP/$k.log" ||
			{ cat "$E2E_TMP/$k.log" >&2; fail "mkoprof $mode ($split) failed"; }
		# operf leaves a stats directory even when it lost nothing
		mkdir -p "$s/samples/current/stats"
		opreport_cells "$k" "$s" "image:$T"
	done
done
echo "interop: compared in $((SECONDS - t0)) s"
interop_summary
