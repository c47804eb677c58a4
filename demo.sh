#!/usr/bin/env bash
# ./demo.sh: build opsampler, profile a bundled demo workload system-wide with
# per-CPU separation, and print the reports.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
scripts/build.sh build
echo "demo: opsampler is built in ./build; the collection pipeline is not there yet"
exit 1
