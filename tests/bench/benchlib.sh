# Sourced by the benchmark scripts that put opsampler side by side with
# perf. Gives them the built programs, a scratch directory removed on exit,
# medians, ratios, `BENCH <name> <value> <unit>` lines, and one function per
# way of profiling a command: bench_op_run (opcontrol system-wide) and
# bench_perf_run (perf record -a), both at a fixed cpu-clock period so the
# two tools take the same number of samples.
#
# Environment: BENCH_RUNS (runs per measurement, default 3), top_builddir
# (default: the build directory make runs us from), BENCH_TMPDIR.
set -euo pipefail

bench_src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -z "${top_builddir:-}" ]; then
	# make -C tests bench runs us from the build's tests/ directory
	if [ -x ../daemon/opcontrol ] || [ -d ../tests/workloads ]; then
		top_builddir=$(cd .. && pwd)
	else
		top_builddir=$bench_src/build
	fi
fi
OPCONTROL=$top_builddir/daemon/opcontrol
OPREPORT=$top_builddir/pp/opreport
WORKLOADS=$top_builddir/tests/workloads
BURN=$WORKLOADS/burn
CPUTIME=$top_builddir/tests/bench/cputime
BENCH_RUNS=${BENCH_RUNS:-3}
# BENCH_CALLGRAPH=DEPTH: every profiler run collects call chains (ours
# --callgraph=DEPTH, perf record -g, frame pointers both), every report is
# the call-graph one (opreport -c, perf report -g), and every figure's name
# starts with cg_.
BENCH_CALLGRAPH=${BENCH_CALLGRAPH:-0}
# BENCH_UNWIND=STACK_BYTES (with BENCH_CALLGRAPH): the user part of chains by
# DWARF unwinding of a stack copy that size, both tools (ours
# --unwind=dwarf,BYTES, perf record --call-graph=dwarf,BYTES); the figures
# start with dw_.
BENCH_UNWIND=${BENCH_UNWIND:-0}
NCPU=$(nproc)
CLK_TCK=$(getconf CLK_TCK)

bench_die() { echo "bench: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || bench_die "needs root (system-wide profiling)"
"$bench_src/scripts/install-deps.sh" --bench >&2 || bench_die "cannot install linux-perf"
command -v perf >/dev/null || bench_die "perf not found after install-deps.sh --bench"
[ -x "$BURN" ] || bench_die "$BURN not built (make first)"

# What every figure ran under: the event both tools sample (a fixed
# cpu-clock period, so that they take the same samples whether or not a
# hardware PMU exists), whether one does, and the kernel's limit on
# sampling rates, which it lowers after slow sampling interrupts and which
# throttles every high-rate figure.
bench_pmu=$("$top_builddir/daemon/ophelp" -d 2>/dev/null | cut -d: -f1)
echo "# event: cpu-clock at a fixed period, both tools; hardware PMU: $([ "${bench_pmu:-TIMER}" = TIMER ] && echo none usable || echo "usable (default event $bench_pmu)")"
echo "# kernel.perf_event_max_sample_rate: $(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo unknown) /s, perf_cpu_time_max_percent: $(cat /proc/sys/kernel/perf_cpu_time_max_percent 2>/dev/null || echo unknown)"
[ -x "$CPUTIME" ] || bench_die "$CPUTIME not built (make -C tests bench builds it)"

if grep -q '^OP_SAN_CFLAGS = -fsanitize' "$top_builddir/Makefile" 2>/dev/null; then
	echo "# warning: $top_builddir is built with sanitizers; its figures are not opsampler's"
fi

# Profilers of the whole system take turns on a machine (tests/e2e/lib.sh
# takes the same lock): two at once would each sample the other's work and
# slow it, and every figure here would be wrong. Held until the script
# exits; the daemons it starts inherit it.
BENCH_LOCK=${TMPDIR:-/tmp}/opsampler-system-wide.lock
exec {BENCH_LOCK_FD}>>"$BENCH_LOCK"
if ! flock -n "$BENCH_LOCK_FD"; then
	echo "# waiting for $BENCH_LOCK (another profiler of the whole system)" >&2
	flock -w "${BENCH_LOCK_WAIT:-3600}" "$BENCH_LOCK_FD" ||
		bench_die "waited ${BENCH_LOCK_WAIT:-3600} s for $BENCH_LOCK"
fi

BENCH_TMP=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/opsampler-bench.XXXXXX")
SESSION_DIR=$BENCH_TMP/session

# op_kill_daemon: end this session's oprofiled by the pid in its lock file
# (SIGTERM, then SIGKILL after 10 s), for when it no longer answers.
op_kill_daemon() {
	local pid i
	pid=$(cat "$SESSION_DIR/lock" 2>/dev/null || true)
	[ -n "$pid" ] && [ -d "/proc/$pid" ] || return 0
	grep -q oprofiled "/proc/$pid/comm" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq 100); do
		[ -d "/proc/$pid" ] || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
}

bench_cleanup() {
	if [ -x "$OPCONTROL" ] && [ -S "$SESSION_DIR/opd_ctl" ]; then
		"$OPCONTROL" --session-dir="$SESSION_DIR" --shutdown >/dev/null 2>&1 || true
		op_kill_daemon
	fi
	rm -rf "$BENCH_TMP"
}
trap bench_cleanup EXIT

# True when opsampler's collection and report commands are built. A
# benchmark prints only perf's side, and says so, when they are not.
bench_have_op() { [ -x "$OPCONTROL" ] && [ -x "$OPREPORT" ]; }

bench_line() {
	local prefix=
	[ "$BENCH_CALLGRAPH" = 0 ] || prefix=cg_
	[ "$BENCH_UNWIND" = 0 ] || prefix=dw_
	printf 'BENCH %s%s %s %s\n' "$prefix" "$1" "$2" "$3"
}
bench_note() { printf '# %s\n' "$*"; }

# median V...: the median of the numbers given (mean of the middle two).
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { if (NR == 0) { print "nan"; exit }
		      if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# calc EXPR: floating-point arithmetic, six significant digits; "nan" when
# the expression divides by zero.
calc() { awk "BEGIN { d = 0; r = ($1); printf \"%.6g\n\", r }" 2>/dev/null || echo nan; }

# cpu_of_pid PID: user+system seconds the process (all its threads) has
# used so far: the scheduler's nanosecond runtime where the kernel shows it
# (/proc/PID/task/*/sched), else the tick counts of /proc/PID/stat.
cpu_of_pid() {
	if [ -r "/proc/$1/sched" ]; then
		awk '$1 == "se.sum_exec_runtime" { ms += $3 } END { printf "%.6f\n", ms / 1000 }' \
			/proc/"$1"/task/*/sched
		return
	fi
	# fields after the ")" that ends comm: utime is the 12th, stime the 13th
	awk -v tck="$CLK_TCK" '{ sub(/.*\) /, ""); printf "%.3f\n", ($12 + $13) / tck }' "/proc/$1/stat"
}

# --- perf -----------------------------------------------------------------

# bench_perf_run PERIOD_NS OUT CMD...: perf record -a at a fixed cpu-clock
# period while CMD runs. PERF_BUILDID=1 runs perf record as users run it,
# with its final build-id pass (which reads every sample again); by default
# -B leaves that pass out (see below). Sets PERF_CPU (perf record's user+sys
# seconds), PERF_CPU_RUN (the part of it from CMD's start to perf's exit,
# free of its start-up),
# PERF_SAMPLES (samples written, from perf's own summary), PERF_LOST (lost
# records perf counted, from perf report --stats), PERF_BYTES (perf.data
# size), PERF_WINDOW (seconds from CMD's start to perf's stop), PERF_SPAN
# (from perf's launch to its stop: it samples from some time in it) and leaves
# CMD's stdout in $BENCH_TMP/cmd.out.
bench_perf_run() {
	local period=$1 out=$2 tpid ppid i
	shift 2
	rm -f "$out"
	# perf records in the background, not as CMD's parent, so that cputime
	# measures perf alone. -B: perf 6.1's final build-id pass dies here now
	# and then ("assertion failed at util/build-id.c:1010", "stack smashing
	# detected") and leaves a perf.data with a zero data size; without it
	# perf's CPU time is a little lower, which only flatters perf.
	local nobid=-B
	[ "${PERF_BUILDID:-0}" = 1 ] && nobid=
	local graph=
	[ "$BENCH_CALLGRAPH" = 0 ] || graph="--call-graph=fp,$BENCH_CALLGRAPH"
	[ "$BENCH_UNWIND" = 0 ] || graph="--call-graph=dwarf,$BENCH_UNWIND"
	local ts
	ts=$(date +%s.%N)
	"$CPUTIME" -o "$BENCH_TMP/perf.time" \
		perf record -q $nobid -a -e cpu-clock -c "$period" $graph -o "$out" \
		2>"$BENCH_TMP/perf.err" &
	tpid=$!
	ppid=
	for i in $(seq 50); do
		ppid=$(pgrep -P "$tpid" -x perf || true)
		[ -n "$ppid" ] && [ -s "$out" ] && break
		sleep 0.1
	done
	[ -n "$ppid" ] || { cat "$BENCH_TMP/perf.err" >&2; bench_die "perf record did not start"; }
	sleep 0.3
	local t0 cpu0
	cpu0=$(cpu_of_pid "$ppid")
	t0=$(date +%s.%N)
	"$@" >"$BENCH_TMP/cmd.out"
	kill -INT "$ppid"
	PERF_WINDOW=$(calc "$(date +%s.%N) - $t0")
	PERF_SPAN=$(calc "$(date +%s.%N) - $ts")
	wait "$tpid" || true
	[ -s "$BENCH_TMP/perf.time" ] || { cat "$BENCH_TMP/perf.err" >&2; bench_die "perf record failed"; }
	PERF_CPU=$(awk 'END { printf "%.6f\n", $1 + $2 }' "$BENCH_TMP/perf.time")
	PERF_CPU_RUN=$(calc "$PERF_CPU - $cpu0")
	PERF_BYTES=$(stat -c %s "$out")
	perf report -i "$out" --stats >"$BENCH_TMP/perf.stats" 2>>"$BENCH_TMP/perf.err" || true
	PERF_SAMPLES=$(awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }' "$BENCH_TMP/perf.stats")
	PERF_LOST=$(awk '$1 == "LOST" && $2 == "events:" { print $3; exit }' "$BENCH_TMP/perf.stats")
	# the samples perf knows it lost: LOST_SAMPLES in the event's own section
	PERF_LOST_SAMPLES=$(awk '/^cpu-clock stats:/ { s = 1; next } /stats:$/ { s = 0 }
		s && $1 == "LOST_SAMPLES" { print $3; exit }' "$BENCH_TMP/perf.stats")
	PERF_SAMPLES=${PERF_SAMPLES:-0}
	if [ "$PERF_SAMPLES" -eq 0 ]; then
		bench_note "perf report --stats found no samples in $out:"
		sed 's/^/#   /' "$BENCH_TMP/perf.err" "$BENCH_TMP/perf.stats" | head -20
	fi
	PERF_LOST=${PERF_LOST:-0}
	PERF_LOST_SAMPLES=${PERF_LOST_SAMPLES:-0}
	return 0
}

# perf_samples_of COMM DATA: sets PERF_OF to the samples perf recorded in the
# processes named COMM, and PERF_SAID_LOST to perf report's own warning about loss ("lost N
# chunks", "lost N%"), or "no" when it gave none.
perf_samples_of() {
	perf report -i "$2" --stdio --sort comm --show-nr-samples 2>"$BENCH_TMP/perf.report.err" >"$BENCH_TMP/perf.comm"
	PERF_SAID_LOST=$(grep -i 'lost' "$BENCH_TMP/perf.report.err" | tr -s ' \n' ' ' || true)
	PERF_SAID_LOST=${PERF_SAID_LOST:-no}
	PERF_OF=$(awk -v c="$1" '$0 !~ /^#/ && $NF == c { print $2; f = 1; exit }
		END { if (!f) print 0 }' "$BENCH_TMP/perf.comm")
}

# bench_perf_report DATA: seconds of wall time perf report takes to print the
# image/symbol table (--sort dso,sym), the closest to opreport -l; "nan" when
# perf report fails (its stderr's tail goes to ours).
bench_perf_report() {
	local t0 t1
	t0=$(date +%s.%N)
	local graph=
	[ "$BENCH_CALLGRAPH" = 0 ] || graph=-g
	if ! perf report -i "$1" --stdio --sort dso,sym $graph >"$BENCH_TMP/perf.report" \
		2>"$BENCH_TMP/perf.report.err"; then
		# perf 6.1 on this kernel sometimes dies in its build-id code
		tail -3 "$BENCH_TMP/perf.report.err" | sed 's/^/# perf report failed: /' >&2
		echo nan
		return 0
	fi
	t1=$(date +%s.%N)
	calc "$t1 - $t0"
}

# --- opsampler ------------------------------------------------------------

op() { "$OPCONTROL" --session-dir="$SESSION_DIR" "$@"; }

# bench_op_run PERIOD_NS CMD...: opcontrol system-wide at a fixed cpu-clock
# period while CMD runs, then --dump. Sets OP_CPU (the daemon's user+sys
# seconds, collection threads included, read after the dump), OP_CPU_RUN
# (the part of it from CMD's start to the end of the dump), OP_SAMPLES
# (stats/total_samples: every sample the daemon received), OP_LOST (the
# samples it never received, each counted once: lost_records_by_kernel,
# the rings' loss, + event_lost_overflow, the event buffer's, +
# lost_no_task, kmod's for samples of a process it never knew: the
# upstream losses opreport counts; the per-CPU sample_lost_overflow files
# break the first down and are not added),
# OP_BYTES (bytes of samples/current, directories included;
# OP_BYTES_OPROFILE of them in OProfile's layout: the sample and arc files
# and their directories), OP_FILES and OP_DIRS (the sample and arc files
# and the directories of that layout), OP_WINDOW (seconds from CMD's start
# to the end of the dump), OP_SPAN (from before --start to the end of the
# dump: it samples from some time in it) and leaves the daemon shut down and
# the session on disk. When the daemon does not answer the dump, it is
# killed, OP_FAILED says why (empty otherwise) and the figures are zero.
bench_op_run() {
	local period=$1 pid
	shift
	OP_FAILED= OP_CPU=0 OP_CPU_RUN=0 OP_SAMPLES=0 OP_LOST=0 OP_BYTES=0 OP_DISK=0 OP_WINDOW=0
	OP_BYTES_OPROFILE=0 OP_FILES=0 OP_DIRS=0
	if [ -S "$SESSION_DIR/opd_ctl" ]; then
		op --shutdown >/dev/null 2>&1 || op_kill_daemon
	fi
	rm -rf "$SESSION_DIR"
	local unwind=
	[ "$BENCH_UNWIND" = 0 ] || unwind="--unwind=dwarf,$BENCH_UNWIND"
	op --setup --no-vmlinux --event="cpu-clock:$period" --separate=none \
		--callgraph="$BENCH_CALLGRAPH" $unwind >/dev/null ||
		bench_die "opcontrol --setup failed"
	local ts t0 cpu0
	ts=$(date +%s.%N)
	op --start >/dev/null || bench_die "opcontrol --start failed"
	cpu0=$(cpu_of_pid "$(cat "$SESSION_DIR/lock")")
	t0=$(date +%s.%N)
	"$@" >"$BENCH_TMP/cmd.out"
	if ! op --dump >"$BENCH_TMP/op.err" 2>&1; then
		OP_FAILED="opcontrol --dump failed: $(tr '\n' ' ' <"$BENCH_TMP/op.err")"
		bench_note "$OP_FAILED"
		op_kill_daemon
		return 0
	fi
	OP_WINDOW=$(calc "$(date +%s.%N) - $t0")
	OP_SPAN=$(calc "$(date +%s.%N) - $ts")
	pid=$(cat "$SESSION_DIR/lock")
	OP_CPU=$(cpu_of_pid "$pid")
	OP_CPU_RUN=$(calc "$OP_CPU - $cpu0")
	# the counts of the dump, which the CPU time goes with: the stats
	# the shutdown writes count the samples taken after it too
	local stats=$SESSION_DIR/samples/current/stats
	OP_SAMPLES=$(cat "$stats/total_samples" 2>/dev/null || echo 0)
	OP_LOST=0
	local f
	for f in "$stats"/event_lost_overflow "$stats"/lost_records_by_kernel \
		"$stats"/lost_no_task; do
		[ -f "$f" ] && OP_LOST=$((OP_LOST + $(cat "$f")))
	done
	op --shutdown >/dev/null 2>&1 || { bench_note "opcontrol --shutdown failed"; op_kill_daemon; }
	OP_BYTES=$(du -sb --apparent-size "$SESSION_DIR/samples/current" | awk '{ print $1 }')
	# the part in OProfile's own layout: sample and arc files and the
	# directories that name them (a 4 KiB block each), which OProfile's
	# tools read (the rest: stats/ and the chain store)
	OP_BYTES_OPROFILE=$(find "$SESSION_DIR/samples/current" -mindepth 1 -maxdepth 1 \
		-name '{*' -exec du -scb --apparent-size {} + | awk 'END { print $1 + 0 }')
	OP_DISK=$(du -sB1 "$SESSION_DIR/samples/current" | awk '{ print $1 }')
	# what the daemon created for the images it sampled, each a cost of
	# its own whatever the rate (directories, a file, its msync at a dump)
	OP_FILES=$(find "$SESSION_DIR/samples/current" -mindepth 1 -maxdepth 1 \
		-name '{*' -exec find {} -type f \; | wc -l)
	OP_DIRS=$(find "$SESSION_DIR/samples/current" -mindepth 1 -maxdepth 1 \
		-name '{*' -exec find {} -type d \; | wc -l)
	return 0
}

# op_samples_of IMAGE: samples opreport attributes to the image named IMAGE
# (top-level lines of the default image summary).
op_samples_of() {
	"$OPREPORT" --session-dir="$SESSION_DIR" 2>/dev/null |
		awk -v c="$1" '$0 !~ /^[ \t]*$/ && $0 !~ /^\t/ && $NF == c { print $1; f = 1; exit } END { if (!f) print 0 }'
}

# bench_op_report: seconds of wall time opreport -l takes on the session.
bench_op_report() {
	local t0 t1
	t0=$(date +%s.%N)
	local view=-l
	[ "$BENCH_CALLGRAPH" = 0 ] || view=-c
	"$OPREPORT" --session-dir="$SESSION_DIR" $view >"$BENCH_TMP/op.report" 2>/dev/null ||
		bench_die "opreport $view failed"
	t1=$(date +%s.%N)
	calc "$t1 - $t0"
}

# burn_args SECONDS: burn's work size for about SECONDS of wall time on all
# CPUs, measured once per script without a profiler.
burn_args() {
	if [ -z "${BURN_RATE:-}" ]; then
		local out
		out=$("$BURN" 500)
		BURN_RATE=$(echo "$out" | awk '{ printf "%.6g\n", 500 / $3 }')
	fi
	calc "$BURN_RATE * $1"
}
