#!/usr/bin/env bash
# opreport's options beyond the golden layouts: --demangle, --include- and
# --exclude-symbols, --threshold, --sort/--reverse-sort, --accumulated,
# --global-percent, --exclude-dependent, --merge=lib, --long-filenames,
# --image-path, --root, --no-header, --dynamic-symbols, and JIT maps for
# anonymous regions.
. "$top_srcdir/tests/pp/lib.sh"

run() {
	"$OPREPORT" --session-dir="$S" --kallsyms="$KALLSYMS" "$@" >"$OUT" 2>"$E2E_TMP/err" ||
		{ cat "$E2E_TMP/err" >&2; fail "opreport $* exited $?"; }
}
has() { grep -q -- "$1" "$OUT" || { cat "$OUT" >&2; fail "output of '$ARGS' lacks '$1'"; }; }
lacks() { ! grep -q -- "$1" "$OUT" || { cat "$OUT" >&2; fail "output of '$ARGS' has '$1'"; }; }
line() { sed -n "${1}p" "$OUT"; }

"$MKS" "$S" <<EOF
header 4 1000
file f:$T f:$T TIMER 100000 0 all all all
sym $T func_a50 0 60
sym $T func_b30 0 30
sym $T _ZN2ns5scaleEi 0 8
file k:/proc/kallsyms f:$T TIMER 100000 0 all all all
ksym $KALLSYMS schedule 0 2
EOF
"$MKS" "$E2E_TMP/jit" <<EOF
header 4 1000
file a:anon:4242:7f0000001000:7f0000001fff f:$T TIMER 100000 0 all all all
off 24 5
EOF
printf '7f0000001000 20 jitted_a\n7f0000001020 10 jitted_b\n' >"$E2E_TMP/perf-4242.map"

ARGS="-l"; run -l
has "ns::scale(int)"
ARGS="-l --demangle"; run -l --demangle
has "ns::scale(int)"
ARGS="-l --demangle=none"; run -l --demangle=none
has "_ZN2ns5scaleEi"

# the anonymous region named from its JIT map, when there is one
S=$E2E_TMP/jit
ARGS="-l --jit-dir"; run -l --jit-dir="$E2E_TMP"
has "^5 *100.000  .* jitted_b\$"
ARGS="(no map)"; run --jit-dir="$E2E_TMP/none"
has " anon (tgid:4242 range:0x7f0000001000-0x7f0000001fff)\$"
# as OProfile names an image it has no symbols for: by its own name
ARGS="-l (no map)"; run -l --jit-dir="$E2E_TMP/none"
# (checked with OProfile 1.4's opreport on the same file written by mkoprof)
has "^5 *100.000  anon (tgid:4242 range:0x7f0000001000-0x7f0000001fff) anon (tgid:4242 range:0x7f0000001000-0x7f0000001fff)\$"
S=$E2E_TMP/s

# a library stripped to .dynsym: one row named after it, as OProfile
# prints; --dynamic-symbols names its exported functions and keeps the
# rest (here _init, in no .dynsym entry) on that row
LIBD=$PP/libppalias_dynsym.so
"$MKS" "$E2E_TMP/dynsym" <<EOF
header 4 1000
file f:$LIBD f:$LIBD TIMER 100000 0 all all all
sym $PP/libppalias.so __libc_thing 0 6
sym $PP/libppalias.so _init 0 2
EOF
S=$E2E_TMP/dynsym
ARGS="-l (.dynsym)"; run -l
has "^8 *100.000  $LIBD\$"
lacks "thing"
ARGS="-l --dynamic-symbols"; run -l --dynamic-symbols
has "^6 *75.0000  thing\$"
has "^2 *25.0000  $LIBD\$"
S=$E2E_TMP/s

ARGS="-l -i"; run -l -i func_b30,schedule
has "func_b30"; has "schedule"; lacks "func_a50"
ARGS="-l -e"; run -l -e func_b30
lacks "func_b30"; has "func_a50"
ARGS="-l -t 10"; run -l -t 10
has "func_a50"; has "func_b30"; lacks "scale"; lacks "schedule"
# --threshold: applications by the first column only, every dependent
# image of a shown application, symbols in -l by any column (OProfile's
# opreport.cpp output_summaries and profile_container::select_symbols)
T2=$PP/pp_target_nopie
"$MKS" "$E2E_TMP/thr" <<EOF
header 4 1000
file f:$T f:$T TIMER 100000 0 all all 0
sym $T func_a50 0 90
file k:/proc/kallsyms f:$T TIMER 100000 0 all all 0
ksym $KALLSYMS schedule 0 1
file f:$T f:$T TIMER 100000 0 all all 1
sym $T func_a50 0 1
file f:$T2 f:$T2 TIMER 100000 0 all all 0
sym $T2 main 0 2
file f:$T2 f:$T2 TIMER 100000 0 all all 1
sym $T2 main 0 50
EOF
S=$E2E_TMP/thr
ARGS="-t 5"; run -t 5
has " pp_target_pie\$"; lacks "pp_target_nopie"
has "^	.* kallsyms\$"
ARGS="-l -t 5"; run -l -t 5
has " main\$"; has " func_a50\$"; lacks " schedule\$"
S=$E2E_TMP/s
ARGS="-l -s symbol"; run -l -n -s symbol --demangle=none
[ "$(line 1 | awk '{print $NF}')" = _ZN2ns5scaleEi ] || fail "-s symbol: $(line 1)"
[ "$(line 2 | awk '{print $NF}')" = func_a50 ] || fail "-s symbol: $(line 2)"
ARGS="-l -r"; run -l -n -r
[ "$(line 1 | awk '{print $NF}')" = schedule ] || fail "-r: $(line 1)"
# -n hides the header block and the column titles: rows from the first line
ARGS="-l -n"; run -l -n
[ "$(line 1)" = "60       60.0000  pp_target_pie            func_a50" ] || fail "-n: $(line 1)"
lacks "symbol name"
ARGS="-l"; run -l
has "^samples  %        image name               symbol name\$"
ARGS="-d -n"; run -d -n
lacks "^vma"
[ "$(line 1 | awk '{print $NF}')" = func_a50 ] || fail "-d -n: $(line 1)"
ARGS="-n (summary)"; run -n
lacks "samples|"; lacks "-----"
[ "$(line 1)" = "      100 100.000 pp_target_pie" ] || fail "-n summary: $(line 1)"
ARGS="-l -a"; run -l -a
has "^samples  cum. samples  %        cum. %     image name               symbol name\$"
ARGS="-l -a -n"; run -l -n -a
[ "$(line 2)" = "30       90            30.0000  90.0000    pp_target_pie            func_b30" ] ||
	fail "-a: $(line 2)"
ARGS="-f"; run -f
has "^ *100 100.000 $T\$"
ARGS="summary"; run -n
has "^	 *2  2.0000 kallsyms\$"
ARGS="-x"; run -n -x
lacks "kallsyms"
has "^ *98 100.000 pp_target_pie\$"
ARGS="--merge=lib"; run -n --merge=lib
has "^ *2  2.0000 kallsyms\$"
lacks "	"

# --global-percent: dependent images against the whole profile
"$MKS" "$E2E_TMP/two" <<EOF
header 4 1000
file f:$T f:$T TIMER 100000 0 all all all
sym $T func_a50 0 98
file k:/proc/kallsyms f:$T TIMER 100000 0 all all all
ksym $KALLSYMS schedule 0 2
file f:$PP/pp_target_nopie f:$PP/pp_target_nopie TIMER 100000 0 all all all
sym $PP/pp_target_nopie main 0 25
EOF
S=$E2E_TMP/two
ARGS="two apps"; run -n
has "^	 *2  2.0000 kallsyms\$"
has "^ *25 20.0000 pp_target_nopie\$"
ARGS="-%"; run -n -%
has "^	 *2  1.6000 kallsyms\$"
ARGS="-l two apps"; run -l
has "^samples  %        image name               app name                 symbol name\$"

# binaries found elsewhere: --image-path by basename, --root as a prefix
mkdir -p "$E2E_TMP/moved" "$E2E_TMP/root$(dirname "$T")"
"$MKS" "$E2E_TMP/s2" <<EOF
header 4 1000
mtime 0
file f:/opt/gone/pp_target_pie f:/opt/gone/pp_target_pie TIMER 100000 0 all all all
sym $T func_c15 0 7
EOF
cp "$T" "$E2E_TMP/moved/"
cp "$T" "$E2E_TMP/root/opt/gone/" 2>/dev/null || { mkdir -p "$E2E_TMP/root/opt/gone"; cp "$T" "$E2E_TMP/root/opt/gone/"; }
S=$E2E_TMP/s2
ARGS="-l (missing)"; run -l
has "^7 .*  /opt/gone/pp_target_pie\$"
grep -q "/opt/gone/pp_target_pie could not be found" "$E2E_TMP/err" || fail "no warning for a missing binary"
ARGS="-l -p"; run -l -p "$E2E_TMP/nothing,$E2E_TMP/moved"
has "func_c15"
ARGS="-l -R"; run -l -R "$E2E_TMP/root"
has "func_c15"

# kernel symbols from an ELF image (--vmlinux) instead of kallsyms: kernel
# offsets count from the image's text start (here the non-PIE fixture
# stands in for a vmlinux: its lowest PT_LOAD is the start)
N=$PP/pp_target_nopie
base=$(readelf -lW "$N" | awk '$1 == "LOAD" { print $3; exit }')
a50=$(nm "$N" | awk '$3 == "func_c15" { print $1 }')
"$MKS" "$E2E_TMP/kern" <<EOF
header 4 1000
file k:/proc/kallsyms k:/proc/kallsyms TIMER 100000 0 all all all
off $(printf '%x' $((0x$a50 - base + 1))) 4
EOF
S=$E2E_TMP/kern
ARGS="-l --vmlinux"; run -l --vmlinux="$N"
has "^4 *100.000  func_c15\$"
ARGS="-l kallsyms"; run -l
lacks "func_c15"

# -l's name columns as OProfile's: "app name" when a column holds several
# applications, "image name" only when a listed symbol lies outside its
# application's image
"$MKS" "$E2E_TMP/apps" <<EOF
header 4 1000
file f:$T f:$T TIMER 100000 0 all all all
sym $T func_a50 0 60
file f:/opt/other/app f:/opt/other/app TIMER 100000 0 all all all
off 10 3
EOF
S=$E2E_TMP/apps
ARGS="-l (two apps)"; run -l
has "^samples  %        app name                 symbol name\$"
ARGS="-l -t 50 (one shown)"; run -l -t 50
has "^samples  %        app name                 symbol name\$"
ARGS="-l image: (one app)"; run -l image:$T
has "^samples  %        symbol name\$"
S=$E2E_TMP/s
ARGS="-l (app and kernel)"; run -l image:$T
has "^samples  %        image name               symbol name\$"

# --version in OProfile's shape, with our name and version
ARGS="--version"; run --version
grep -q "^$OPREPORT: opsampler [0-9][0-9.]* compiled on " "$OUT" ||
	{ cat "$OUT" >&2; fail "--version: no version line"; }
ARGS="-v"; run -v
grep -q "^$OPREPORT: opsampler " "$OUT" || fail "-v: no version line"

# archive:DIR, oparchive's layout: the session under DIR/var/lib/oprofile
# whatever --session-dir says, binaries under DIR
A=$E2E_TMP/archive
"$MKS" "$A/var/lib/oprofile" <<EOF
header 4 1000
mtime $(stat -c %Y "$T")
file f:/opt/archived/pp_target_pie f:/opt/archived/pp_target_pie TIMER 100000 0 all all all
sym $T func_b30 0 9
EOF
mkdir -p "$A/opt/archived" && cp -p "$T" "$A/opt/archived/"
ARGS="archive:"; run -l archive:"$A"
has "^9 *100.000  func_b30\$"
[ -s "$E2E_TMP/err" ] && { cat "$E2E_TMP/err" >&2; fail "archive: warned"; }
# an image the archive lacks, named as OProfile names it: under the
# archive's real path
"$MKS" "$A/var/lib/oprofile" <<EOF
header 4 1000
file f:/opt/lost f:/opt/archived/pp_target_pie TIMER 100000 0 all all all
off 10 1
EOF
ARGS="archive: (missing)"; run -l archive:"$A"
grep -qx "warning: $(cd "$A" && pwd -P)/opt/lost could not be found." "$E2E_TMP/err" ||
	{ cat "$E2E_TMP/err" >&2; fail "archive: no warning for an image it lacks"; }
ARGS="archive: session:"; run archive:"$A" session:current
has " pp_target_pie\$"
# opexport reads the archive by the same rule (pp_archive.h)
ARGS="opexport archive:"
"$top_builddir/pp/opexport" --format=folded archive:"$A" >"$OUT" 2>"$E2E_TMP/err" ||
	{ cat "$E2E_TMP/err" >&2; fail "opexport archive: failed"; }
has "^func_b30 9\$"

echo "PASS: opreport options"
