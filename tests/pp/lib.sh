# Sourced by the opreport script tests (tests/pp/*.sh): the end-to-end
# helpers, the fixtures their sessions are written with (pp_mksession, the
# binary pp_target_pie, a kallsyms file) and the default session and
# output paths in the test's temporary directory.
. "$top_srcdir/tests/e2e/lib.sh"

PP=$top_builddir/tests/pp
MKS=$PP/pp_mksession
T=$PP/pp_target_pie
KALLSYMS=$top_srcdir/tests/pp/kallsyms.txt
S=$E2E_TMP/s
OUT=$E2E_TMP/out
[ -x "$T" ] && [ -x "$MKS" ] || fail "fixtures not built"
