#!/usr/bin/env bash
# Installs the Debian packages opsampler builds and tests with, when missing.
# Used by ./demo.sh and ./check.sh; safe to run again.
set -euo pipefail

# procps: pgrep, which the tests use to find the daemon; util-linux: flock,
# which makes the tests that profile the system take turns; libxml2-utils:
# xmllint, which checks our XML against OProfile's schema (tests/interop;
# the OProfile those tests build installs its own build dependencies);
# opexport: libprotobuf-c-dev, protobuf-c-compiler and zlib1g-dev build
# its pprof output, and its tests read what it writes with the other
# tools: golang-go (go tool pprof), librsvg2-bin (rsvg-convert);
# libdebuginfod-dev: symbols of stripped binaries from a debuginfod
# server, whose own program (debuginfod) the tests run on the loopback;
# libcapstone-dev: opannotate --assembly's disassembler; inotify-tools:
# inotifywait, which watches that no host file is opened for a container's
# (tests/containers); python3: Debian's own, built without frame pointers,
# which tests/accuracy/acc_unwind.sh profiles; libncurses-dev: optop's
# terminal view, which its tests drive in tmux
pkgs=(gcc make autoconf automake libtool pkg-config binutils elfutils
      libpfm4-dev libdw-dev libelf-dev libdebuginfod-dev debuginfod
      libpopt-dev libcmocka-dev
      clang libclang-rt-dev procps util-linux libxml2-utils
      libprotobuf-c-dev protobuf-c-compiler zlib1g-dev golang-go librsvg2-bin
      libcapstone-dev inotify-tools python3 libncurses-dev tmux)
# bench: perf to measure against, bc for the benchmarks' arithmetic,
# time for opreport's peak memory
[ "${1:-}" = --bench ] && pkgs+=(linux-perf bc time)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing Debian packages: ${missing[*]}" >&2
	echo "install-deps: run as root, or: apt-get install -y ${missing[*]}" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# another apt-get (a peer's build, unattended upgrades) may hold the locks:
# wait for it rather than fail
lock=(-o DPkg::Lock::Timeout=600)
apt-get "${lock[@]}" update -qq
apt-get "${lock[@]}" install -y -qq "${missing[@]}"
