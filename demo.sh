#!/usr/bin/env bash
# ./demo.sh: build opsampler, profile a bundled demo workload system-wide with
# per-CPU separation, and print the reports. Run as root from the source tree
# (a fresh clone is enough: it installs what it needs with apt-get).
#
#   DEMO_SECONDS=N   how long the workload runs (default 4)
#   DEMO_EVENT=SPEC  the event to sample (default "default": cycles with a
#                    hardware PMU, the cpu-clock timer otherwise)
set -euo pipefail
cd "$(dirname "$0")"
src=$PWD

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: system-wide profiling needs root: sudo ./demo.sh" >&2
	exit 1
fi

scripts/install-deps.sh
scripts/build.sh build

bin=$src/build
opcontrol=$bin/daemon/opcontrol
opreport=$bin/pp/opreport
workload=$bin/tests/workloads/demo_spin
for p in "$opcontrol" "$bin/daemon/oprofiled" "$workload"; do
	[ -x "$p" ] || { echo "demo: $p was not built" >&2; exit 1; }
done

session=$(mktemp -d "${TMPDIR:-/tmp}/opsampler-demo.XXXXXX")
opc() { "$opcontrol" --session-dir="$session" "$@"; }
cleanup() {
	opc --shutdown >/dev/null 2>&1 || true
	rm -rf "$session"
}
trap cleanup EXIT

step() { printf '\n==> %s\n' "$*"; }

step "ophelp -d: this machine's default event is $("$bin/daemon/ophelp" -d) (cycles where a hardware PMU is usable, the cpu-clock timer otherwise); the demo samples ${DEMO_EVENT:-default}"
step "opcontrol --setup --event=${DEMO_EVENT:-default} --separate=cpu (session in $session)"
opc --setup --event="${DEMO_EVENT:-default}" --separate=cpu
step "opcontrol --start"
opc --start
step "demo_spin ${DEMO_SECONDS:-4}: one thread per CPU, demo_crc on even CPUs, demo_sqrt on odd ones"
"$workload" "${DEMO_SECONDS:-4}"
step "opcontrol --dump"
opc --dump
step "opcontrol --stop"
opc --stop
step "opcontrol --status"
opc --status

# first lines of a report (written to a file: a pipe into head would end
# opreport with SIGPIPE, which set -o pipefail turns into a failure)
report() {
	local lines=$1
	shift
	"$opreport" --session-dir="$session" "$@" > "$session/report.txt"
	head -n "$lines" "$session/report.txt"
}

if [ -x "$opreport" ]; then
	step "opreport (first lines)"
	report 40
	step "opreport -l (first lines)"
	report 30 -l
	step "opreport -l image:$workload (the workload's symbols, one column per CPU)"
	report 40 -l "image:$workload"
else
	step "opreport is not built yet: the sample files written"
	(cd "$session/samples/current" && find . -type f -name '*.*.*' ! -path './stats/*' |
		sort | head -n 40)
	step "stats"
	(cd "$session/samples/current/stats" && grep -r . . | sort)
fi

step "opcontrol --shutdown"
opc --shutdown
