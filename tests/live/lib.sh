# Sourced by optop's end-to-end tests after tests/e2e/lib.sh and
# tests/accuracy/acclib.sh: the program, and how to read its tables.
OPTOP=$top_builddir/pp/optop

# live_tables OUT: optop --batch's output OUT as "TABLE SAMPLES IMAGE SYMBOL"
# lines, TABLE counting the tables from 1.
live_tables() {
	awk '/^optop: [0-9]+: / { t = $2 + 0; next }
		t && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ && NF >= 4 { print t, $1, $(NF - 1), $NF }' "$1"
}

# live_judge COUNTS OUT TOLERANCE: COUNTS holds "SYMBOL SAMPLES" lines for
# ratio's four functions; each one's share of the four must be within
# TOLERANCE points of the share the program printed (OUT), with enough
# samples for that tolerance (acclib.sh's ratio_judge, on optop's figures).
live_judge() {
	local counts=$1 out=$2 tol=$3 total f n want got
	total=$(awk '{ n += $2 } END { print n + 0 }' "$counts")
	check "$total >= 5000" "$total samples in the four functions (>= 5000 needed for the $tol-point test)"
	for f in func_a50 func_b30 func_c15 func_d05; do
		n=$(awk -v f="$f" '$1 == f { n += $2 } END { print n + 0 }' "$counts")
		want=$(share_of "$out" $f)
		got=$(awk -v n="$n" -v t="$total" 'BEGIN { printf "%.3f", 100 * n / t }')
		check "$got - $want <= $tol && $want - $got <= $tol" "$f: optop $got %, program $want %"
	done
}
