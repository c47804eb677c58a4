#!/usr/bin/env bash
# layout/lengths.sh: no file of the tree over 1,000 lines, and no product
# source over 800 without a line in its opening comment saying why it is
# one room ("one room": STYLE.md, a file past ~800 lines is two rooms).
set -euo pipefail
: "${top_srcdir:?}"
cd "$top_srcdir"

status=0
while IFS= read -r f; do
	n=$(wc -l < "$f")
	if [ "$n" -gt 1000 ]; then
		echo "FAIL: $f has $n lines (at most 1000)"
		status=1
	elif [ "$n" -gt 800 ]; then
		case $f in
		daemon/* | kmod/* | libop/* | pp/*)
			# the comment before the first #include
			if ! sed '/^#include/,$d' "$f" | grep -qi 'one room'; then
				echo "FAIL: $f has $n lines and its opening comment does not say why it is one room"
				status=1
			fi ;;
		esac
	fi
done < <(find daemon kmod libop pp tests scripts -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.am' -o -name '*.py' \) \
	! -name '*.pb-c.*' | sort)
[ $status -eq 0 ] && echo "ok: no file over 1000 lines, none over 800 without its reason"
exit $status
