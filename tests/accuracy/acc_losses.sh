#!/usr/bin/env bash
# Every lost sample counted once, at the stage that lost it. A session at
# the kernel's fastest cpu-clock period (10 us) with the smallest rings and
# event buffer opcontrol takes, while burn keeps both CPUs busy, loses at
# the ring (lost_records_by_kernel) and at the event buffer
# (event_lost_overflow). Then:
#  - recorded + counted lost is at most what the kernel can have offered,
#    CPUs x elapsed / period (a loss counted twice would exceed it), and
#    at least 80 % of it unless the kernel throttled the event;
#  - the per-CPU sample_lost_overflow files add up to lost_records_by_kernel
#    (a breakdown, not a second count);
#  - opreport's loss line gives counted lost / (recorded + lost upstream).
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
e2e_need_perf

period=10000
t0=$(date +%s.%N)
op --setup --no-vmlinux --event="cpu-clock:$period" --cpu-buffer-size=4096 \
	--buffer-size=1024 --buffer-watershed=512 || fail "opcontrol --setup failed"
op --start || fail "opcontrol --start failed"
t1=$(date +%s.%N)
"$WORKLOADS/burn" -t 2 >/dev/null || fail "burn failed"
t2=$(date +%s.%N)
acc_stop
t3=$(date +%s.%N)

recorded=$(stats_value total_samples)
ring=$(stats_value lost_records_by_kernel)
evbuf=$(stats_value event_lost_overflow)
notask=$(stats_value lost_no_task)
lost=$((ring + evbuf + notask + $(stats_value lost_no_mapping) + $(stats_value lost_samplefile)))
upstream=$((ring + evbuf + notask))
ncpu=$(nproc)
most=$(awk -v n="$ncpu" -v a="$t0" -v b="$t3" -v p="$period" 'BEGIN { printf "%d", n * (b - a) * 1e9 / p }')
least=$(awk -v n="$ncpu" -v a="$t1" -v b="$t2" -v p="$period" 'BEGIN { printf "%d", n * (b - a) * 1e9 / p }')
echo "recorded $recorded, lost $lost (ring $ring, event buffer $evbuf, no task $notask); offered $least to $most"

check "$ring > 0 && $evbuf > 0" "both stages lost samples (ring $ring, event buffer $evbuf)"
check "$recorded + $upstream <= $most" "recorded + lost upstream $((recorded + upstream)) <= $most offered"
if [ -d "$SESSION_DIR/samples/current/stats/throttled" ]; then
	echo "ok: the kernel throttled the event: no lower bound"
else
	check "$recorded + $upstream >= 0.8 * $least" "recorded + lost upstream $((recorded + upstream)) >= 80 % of $least offered"
fi
percpu=0
for f in "$SESSION_DIR"/samples/current/stats/cpu*/sample_lost_overflow; do
	percpu=$((percpu + $(cat "$f")))
done
check "$percpu == $ring" "the per-CPU sample_lost_overflow files sum to lost_records_by_kernel ($percpu)"
acc_report "$E2E_TMP/summary"
line=$(grep "were lost while profiling" "$E2E_TMP/summary.err") || {
	cat "$E2E_TMP/summary.err" >&2; fail "opreport says nothing of the losses"; }
echo "$line"
want=$(awk -v l="$lost" -v r="$recorded" -v u="$upstream" 'BEGIN { printf "%.4f", 100 * l / (r + u) }')
case $line in
*" $lost of $((recorded + upstream)) samples ($want%)"*) echo "ok: opreport's loss line is counted lost / (recorded + lost upstream)" ;;
*) fail "opreport's loss line, want $lost of $((recorded + upstream)) ($want%)" ;;
esac
