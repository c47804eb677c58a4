# Sourced by the accuracy tests after tests/e2e/lib.sh: one system-wide
# opcontrol session on $SESSION_DIR with the cpu-clock event, and helpers to
# read opreport's tables.
#
# The period is 100 us (10 kHz per CPU): enough samples in a few seconds for
# a 2-point tolerance to be several standard deviations wide, few enough for
# the daemon under ASan to keep up.
ACC_PERIOD=${ACC_PERIOD:-100000}

op() { "$OPCONTROL" --session-dir="$SESSION_DIR" "$@"; }

acc_cleanup() {
	local status=$?
	if [ -S "$SESSION_DIR/opd_ctl" ]; then
		op --shutdown >/dev/null 2>&1 || true
	fi
	e2e_cleanup "$status"
}
trap acc_cleanup EXIT

# acc_start SEPARATE: set up and start a system-wide session.
acc_start() {
	op --setup --no-vmlinux --event="cpu-clock:$ACC_PERIOD" --separate="$1" ||
		fail "opcontrol --setup --separate=$1 failed"
	op --start || fail "opcontrol --start failed"
}

# acc_stop: flush everything to the sample files and end the daemon.
acc_stop() {
	op --dump || fail "opcontrol --dump failed"
	op --shutdown || fail "opcontrol --shutdown failed"
}

# acc_report OUT ARGS...: opreport ARGS on the session into OUT; fails the
# test when opreport fails (a crash or a refusal is a bug here).
acc_report() {
	local out=$1
	shift
	"$OPREPORT" --session-dir="$SESSION_DIR" "$@" >"$out" 2>"$out.err" || {
		cat "$out" "$out.err" >&2
		fail "opreport $* failed"
	}
}

# sym_count FILE SYMBOL [FIELD]: the sum of FIELD (default 1, the samples
# column) over the table lines of FILE whose last field is SYMBOL.
sym_count() {
	awk -v s="$2" -v f="${3:-1}" '$NF == s && $1 ~ /^[0-9]+$/ { n += $f }
		END { print n + 0 }' "$1"
}

# table_total FILE [FIELD]: the sum of FIELD over every table line of FILE.
table_total() {
	awk -v f="${2:-1}" '$1 ~ /^[0-9]+$/ && NF >= 3 { n += $f } END { print n + 0 }' "$1"
}

# share_of FILE NAME: the "share NAME PERCENT" a workload printed.
share_of() {
	awk -v s="$2" '$1 == "share" && $2 == s { print $3 }' "$1"
}

# check EXPR MESSAGE: fails the test with MESSAGE unless the awk expression
# EXPR is true; prints the comparison either way for the log.
check() {
	if awk "BEGIN { exit !($1) }"; then
		echo "ok: $2"
	else
		fail "$2 ($1)"
	fi
}

# cpu_seconds PID: user+system time of PID so far, in seconds.
cpu_seconds() {
	awk -v tck="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.3f\n", ($12 + $13) / tck }' "/proc/$1/stat"
}

# stats_value NAME: a counter of the session's stats directory (0 if absent).
stats_value() {
	cat "$SESSION_DIR/samples/current/stats/$1" 2>/dev/null || echo 0
}

# dep_count FILE APP IMAGE: in opreport's image summary (with
# --separate=lib or kernel), the samples of dependent IMAGE listed under
# application APP (the tab-indented block after APP's line).
dep_count() {
	awk -v app="$2" -v img="$3" '
		/^[^\t]/ { in_app = ($1 ~ /^[0-9]+$/ && $NF == app); next }
		in_app && $1 ~ /^[0-9]+$/ && $NF == img { n += $1 }
		END { print n + 0 }' "$1"
}

# app_count FILE APP: the samples of application APP in the image summary.
app_count() {
	awk -v app="$2" '/^[^\t]/ && $1 ~ /^[0-9]+$/ && $NF == app { n += $1 }
		END { print n + 0 }' "$1"
}

# cg_block FILE SYMBOL WHICH [APP]: the lines of SYMBOL's block in opreport -c
# (of application APP when given),
# WHICH "callers" (the indented lines above its own line) or "callees"
# (those below it, [self] left out), as "COUNT IMAGE SYMBOL"
cg_block() {
	awk -v sym="$2" -v which="$3" -v app="${4:-}" '
		/^-+$/ { if (found) exit; n = 0; next }
		/^ / { line[n++] = $0; next }
		$1 ~ /^[0-9]+$/ && $NF == sym && (app == "" || $(NF - 1) == app) {
			found = 1; split_at = n; next }
		END {
			if (!found) exit
			for (i = 0; i < n; i++) {
				if ((which == "callers") != (i < split_at)) continue
				if (line[i] ~ /\[self\]$/) continue
				split(line[i], f, " ")
				print f[1], f[3], f[length(f)]
			}
		}' "$1"
}
# kernel_image NAME: true for the names opreport gives the kernel itself.
ACC_KERNEL_RE='^(kallsyms|vmlinux.*|no-vmlinux|\[kernel.*\])$'

# ratio_judge REPORT OUT TOLERANCE: tests/workloads/ratio's verdict. In
# `opreport -l image:.../ratio` (REPORT), each of the four functions' share
# of their samples must be within TOLERANCE percentage points of the share
# the program printed (OUT), with enough samples for that tolerance.
ratio_judge() {
	local report=$1 out=$2 tol=$3 total=0 f n want got
	for f in func_a50 func_b30 func_c15 func_d05; do
		total=$((total + $(sym_count "$report" $f)))
	done
	check "$total >= 5000" "$total samples in the four functions (>= 5000 needed for the $tol-point test)"
	for f in func_a50 func_b30 func_c15 func_d05; do
		n=$(sym_count "$report" $f)
		want=$(share_of "$out" $f)
		got=$(awk -v n="$n" -v t="$total" 'BEGIN { printf "%.3f", 100 * n / t }')
		check "$got - $want <= $tol && $want - $got <= $tol" "$f: opreport $got %, program $want %"
	done
}

# pair_judge A B OUT NAME_A NAME_B WHO: the call-graph workloads' verdict
# on two callers. A and B are the samples through each as WHO (the
# message's start) counted them: A's share of the two must be within 2
# points of NAME_A's share of NAME_A and NAME_B as the program printed
# them (OUT's "share" lines).
pair_judge() {
	local a=$1 b=$2 out=$3 who=$6 want_a want_b want got
	want_a=$(share_of "$out" "$4")
	want_b=$(share_of "$out" "$5")
	want=$(awk -v a="$want_a" -v b="$want_b" 'BEGIN { printf "%.3f", 100 * a / (a + b) }')
	got=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", 100 * a / (a + b) }')
	check "$got - $want <= 2 && $want - $got <= 2" "$who $got %, program $want %"
}

# shortlived_judge SUMMARY SYMBOLS OUT: tests/workloads/forker's verdict,
# from opreport's image summary (SUMMARY, with --separate=lib,kernel), its
# `-l image:.../forker` (SYMBOLS) and the program's output (OUT):
#  - at least 95 % of the app's user-mode samples (all its images but the
#    kernel; the parent's calib_burn left out), plus every sample the run
#    lost for want of a mapping, are child_burn samples in the forker image;
#  - the app's samples are at least 90 % of what the children's measured
#    CPU time (user + system, RUSAGE_CHILDREN) stands for at ACC_PERIOD.
shortlived_judge() {
	local summary=$1 symbols=$2 out=$3 total user burn calib nomap cu cs want
	total=$(app_count "$summary" forker)
	user=$(awk -v re="$ACC_KERNEL_RE" '
		/^[^\t]/ { in_app = ($1 ~ /^[0-9]+$/ && $NF == "forker"); next }
		in_app && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ {
			name = $0; sub(/^[\t ]*[0-9]+[ ]+[0-9.]+[ ]+/, "", name)
			if (name !~ re) n += $1 }
		END { print n + 0 }' "$summary")
	burn=$(awk '$1 ~ /^[0-9]+$/ && $3 == "forker" && $4 == "child_burn" { n += $1 } END { print n + 0 }' "$symbols")
	calib=$(awk '$1 ~ /^[0-9]+$/ && $3 == "forker" && $4 == "calib_burn" { n += $1 } END { print n + 0 }' "$symbols")
	nomap=$(( $(stats_value lost_no_mapping) + $(stats_value lost_no_task) ))
	read -r cu cs < <(awk '{ for (i = 1; i < NF; i++) {
		if ($i == "children_user_s") u = $(i + 1); if ($i == "children_sys_s") s = $(i + 1) } }
		END { print u, s }' "$out")
	want=$(awk -v u="$cu" -v s="$cs" -v p="$ACC_PERIOD" 'BEGIN { printf "%d", (u + s) * 1e9 / p }')

	# enough samples to judge by: three a child (the children's CPU time
	# varies with the machine's load: 1.1 to 3 s here, 10k to 30k samples)
	check "$burn >= 4500" "child_burn: $burn samples (>= 4500, three a child)"
	check "$burn >= 0.95 * ($user - $calib + $nomap)" \
		"child_burn $burn of $user user-mode samples (less $calib calib_burn) + $nomap lost_no_mapping and lost_no_task"
	check "$total >= 0.9 * $want" "forker: $total samples, children's CPU time stands for $want"
}
