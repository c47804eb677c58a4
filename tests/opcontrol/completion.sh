#!/usr/bin/env bash
# The bash completion script (doc/opsampler.bash): long options come from
# each command's own --help, so a new option completes without touching
# the script, and only one match that takes a value leaves the cursor
# after its '='.
set -euo pipefail
: "${top_builddir:?run through make check}" "${top_srcdir:?}"
export PATH="$top_builddir/daemon:$top_builddir/pp:$PATH"
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=/dev/null
source "$top_srcdir/doc/opsampler.bash"
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_opsampler
	echo "${COMPREPLY[*]}"
}
[ "$(complete_words opreport --symb)" = --symbols ] || fail "opreport --symb: '$(complete_words opreport --symb)'"
[ "$(complete_words opcontrol --callg)" = --callgraph= ] || fail "opcontrol --callg: '$(complete_words opcontrol --callg)'"
[ "$(complete_words opexport --form)" = --format= ] || fail "opexport --form"
words=" $(complete_words operf --s) "
case $words in *" --system-wide "*) ;; *) fail "operf --s lacks --system-wide: '$words'" ;; esac
case $words in *" --session-dir= "*) ;; *) fail "operf --s lacks --session-dir=: '$words'" ;; esac
[ "$(complete_words optop --bat)" = --batch ] || fail "optop --bat: '$(complete_words optop --bat)'"
[ "$(complete_words optop --caller)" = --callers ] || fail "optop --caller: '$(complete_words optop --caller)'"
[ "$(complete_words optop --sort=n)" = --sort=name ] || fail "optop --sort=n: '$(complete_words optop --sort=n)'"
[ "$(complete_words optop --separate=)" = "--separate=cpu --separate=none" ] ||
	fail "optop --separate=: '$(complete_words optop --separate=)'"
[ "$(complete_words opexport --demangle=s)" = --demangle=smart ] || fail "opexport --demangle=s"
echo "PASS: completion"
