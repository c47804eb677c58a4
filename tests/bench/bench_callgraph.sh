#!/usr/bin/env bash
# bench_callgraph.sh: the overhead, disk, report and CPU-per-sample
# benchmarks again with call chains: ours with --callgraph=DEPTH against
# perf record --call-graph=fp,DEPTH, opreport -c against perf report -g, in
# the same runs. Every figure is named cg_<the flat benchmark's name>.
# BENCH_CALLGRAPH sets the depth (default 32).
here=$(dirname "$0")
export BENCH_CALLGRAPH=${BENCH_CALLGRAPH:-32}
[ "$BENCH_CALLGRAPH" != 0 ] || BENCH_CALLGRAPH=32
status=0
for b in bench_overhead.sh bench_disk_report.sh bench_cpu_per_sample.sh; do
	echo "# $b with call chains (depth $BENCH_CALLGRAPH)"
	bash "$here/$b" || status=1
done
exit $status
