#!/usr/bin/env bash
# Hardware events, where a PMU is usable: tests/workloads/ipc's two
# functions take the same CPU time at very different instructions per
# cycle, and the program measures both splits itself (its thread CPU clock;
# its own instruction counter). A session of cycles alone must split the two
# functions' samples like their time, a session of instructions alone like
# their instruction counts, each within 2 percentage points. A machine
# without a usable PMU has nothing to measure here: the test says so and
# passes (the timer path's accuracy is the other acc_*.sh tests').
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"

if [ "$(e2e_event_modes)" = timer ]; then
	echo "acc_hw: no hardware PMU usable here (ophelp -d: $("$OPHELP" -d)): nothing to measure"
	exit 0
fi
e2e_need_perf

# hw_session EVENT OUT: one system-wide session of EVENT while ipc runs;
# its opreport -l of the workload into OUT.report, the program's own
# figures into OUT.out
hw_session() {
	SESSION_DIR=$2.session
	op --setup --no-vmlinux --event="$1" --separate=none || fail "opcontrol --setup --event=$1 failed"
	op --start || fail "opcontrol --start failed"
	"$WORKLOADS/ipc" 4 >"$2.out" || fail "the ipc workload failed ($1)"
	acc_stop
	cat "$2.out"
	acc_report "$2.report" -l "image:$WORKLOADS/ipc"
	cat "$2.report"
}

# hw_judge REPORT OUT KEY: the two functions' shares of their samples in
# REPORT within 2 points of the program's KEY figures (share: time,
# ishare: instructions)
hw_judge() {
	local chase alu total got want
	chase=$(sym_count "$1" ipc_chase)
	alu=$(sym_count "$1" ipc_alu)
	total=$((chase + alu))
	check "$total >= 4000" "$total samples in the two functions (>= 4000 needed for a 2-point test)"
	got=$(awk -v n="$chase" -v t="$total" 'BEGIN { printf "%.3f", 100 * n / t }')
	want=$(awk -v k="$3" '$1 == k && $2 == "ipc_chase" { print $3 }' "$2")
	check "$got - $want <= 2 && $want - $got <= 2" "ipc_chase ($3): opreport $got %, program $want %"
}

# rates well under the kernel's sampling-rate limit (which it may lower to
# a few thousand a second): a throttled event stops sampling for the rest
# of a tick, which would weigh the two functions' slices unevenly.
# cycles at 500000: 6 kHz at 3 GHz
hw_session CPU_CLK_UNHALTED:500000 "$E2E_TMP/cycles"
grep -q "^Counted CPU_CLK_UNHALTED events" "$E2E_TMP/cycles.report" ||
	fail "the cycles report does not say it counted CPU_CLK_UNHALTED"
hw_judge "$E2E_TMP/cycles.report" "$E2E_TMP/cycles.out" share
# instructions at 1000000: the ALU loop retires billions a second, the
# pointer chase a few percent of that
hw_session instructions:1000000 "$E2E_TMP/insns"
grep -qE "^Counted (INST_RETIRED|RETIRED_INSTRUCTIONS) events" "$E2E_TMP/insns.report" ||
	fail "the instructions report does not name the event as OProfile does"
hw_judge "$E2E_TMP/insns.report" "$E2E_TMP/insns.out" ishare
echo "acc_hw: passed"
