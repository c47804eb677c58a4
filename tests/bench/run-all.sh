#!/usr/bin/env bash
# run-all.sh PROG... -- SCRIPT...: runs every benchmark program, then every
# benchmark script, passing their `BENCH <name> <value> <unit>` lines through.
# A failing benchmark is reported and the others still run.
set -u
status=0
phase=prog
for b in "$@"; do
	if [ "$b" = -- ]; then phase=script; continue; fi
	echo "# $b"
	if [ $phase = prog ]; then ./"$b" || { echo "# $b failed" >&2; status=1; }
	else bash "$b" || { echo "# $b failed" >&2; status=1; }; fi
done
exit $status
