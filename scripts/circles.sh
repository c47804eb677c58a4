#!/usr/bin/env bash
# circles.sh SRCDIR BUILDDIR DIR...: the import circles between the product's
# source files, read from the built objects.  File A uses file B when one of
# A's undefined symbols (nm -u) is defined by B (nm -g --defined-only); a
# circle is a chain of uses that comes back to where it started, and it means
# a helper lives in the wrong file (STYLE.md: dependencies run one way).
#
# The objects are BUILDDIR/DIR/**/*.o; automake's per-target objects
# (libfoo_a-bar.o, prog-bar.o) count as bar.c's.  Only objects of a source
# that exists (SRCDIR/DIR/.../bar.c) are read, and of several objects of one
# source the newest, so an object left behind by an older tree is not.
# Every DIR is read into one graph: a circle across folders counts too.
#
# Prints each circle found (its files, then for each use in it the symbols
# that make it) and exits 1; prints "circles: none among N files" and exits 0
# when there are none; exits 2 on a usage error or when no object was found.
set -euo pipefail
export LC_ALL=C

if [ $# -lt 3 ]; then
	echo "usage: circles.sh SRCDIR BUILDDIR DIR..." >&2
	exit 2
fi
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
shift 2

tmp=$(mktemp -d "${TMPDIR:-/tmp}/circles.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# source file (relative to SRCDIR) -> its newest object
: > "$tmp/objects"
for d in "$@"; do
	[ -d "$build/$d" ] || { echo "circles: no folder $build/$d" >&2; exit 2; }
	find "$build/$d" -name '*.o' -printf '%T@ %p\n'
done | sort -rn | while read -r _ obj; do
	rel=${obj#"$build"/}
	dir=$(dirname "$rel")
	base=$(basename "$rel" .o)
	for cand in "$base" "${base#*-}"; do
		if [ -f "$src/$dir/$cand.c" ]; then
			echo "$dir/$cand.c $obj"
			break
		fi
	done
done | awk '!seen[$1]++' > "$tmp/objects"

nr_files=$(wc -l < "$tmp/objects")
if [ "$nr_files" -eq 0 ]; then
	echo "circles: no object of a source in $* under $build (build first)" >&2
	exit 2
fi

# "file symbol" rows: what each file defines, and what it uses
: > "$tmp/defs"
: > "$tmp/uses"
while read -r file obj; do
	nm -P -g --defined-only "$obj" | awk -v f="$file" '{ print f, $1 }' >> "$tmp/defs"
	nm -P -u "$obj" | awk -v f="$file" '{ print f, $1 }' >> "$tmp/uses"
done < "$tmp/objects"

# "user definer symbol" for every use of another file's symbol
awk 'NR == FNR { def[$2] = $1; next }
     ($2 in def) && def[$2] != $1 { print $1, def[$2], $2 }' \
	"$tmp/defs" "$tmp/uses" | sort -u > "$tmp/edges"

# tsort(1) names the files of each loop it has to break to finish its order
awk '{ print $1, $2 }' "$tmp/edges" | sort -u > "$tmp/pairs"
# every file is a node even when it uses nothing
awk '{ print $1, $1 }' "$tmp/objects" >> "$tmp/pairs"
if tsort "$tmp/pairs" > /dev/null 2> "$tmp/loops"; then
	echo "circles: none among $nr_files files"
	exit 0
fi

# tsort prints "tsort: FILE: input contains a loop:" then one "tsort: NODE"
# a line; the nodes of a loop come in order, each using the next
awk -v edges="$tmp/edges" '
	BEGIN {
		while ((getline line < edges) > 0) {
			split(line, e, " ")
			k = e[1] " " e[2]
			if (k in syms)
				syms[k] = syms[k] ", " e[3]
			else
				syms[k] = e[3]
		}
	}
	function flush(   i, j, k) {
		if (n == 0)
			return
		printf "circle:"
		for (i = 1; i <= n; i++)
			printf " %s", node[i]
		printf "\n"
		for (i = 1; i <= n; i++) {
			j = i % n + 1
			k = node[i] " " node[j]
			if (k in syms)
				printf "  %s -> %s: %s\n", node[i], node[j], syms[k]
		}
		n = 0
	}
	/input contains a loop/ { flush(); nr_loops++; next }
	{ sub(/^tsort: /, ""); node[++n] = $0 }
	END { flush(); printf "circles: %d found\n", nr_loops }
' "$tmp/loops"
exit 1
