#!/usr/bin/env bash
# Libraries and kernel: tests/workloads/libcall spends its time in
# app_burn() (its own image), opwl_lib_burn() (libopwl.so, built by the
# tests and loaded with dlopen) and the kernel (read(2) of /dev/zero), and
# prints the share of each as its thread CPU clock measured it. With
# --separate=lib,kernel the library's and the kernel's samples must appear
# under the application in opreport's image summary: the library's and the
# application's shares of the app's samples within 5 points of the
# program's figures, the kernel's at least half its figure (read(2) is not
# all the kernel does for it: interrupts and scheduling land there too, and
# the kernel's share is the smallest, so only a floor is firm), and
# `opreport -l` names opwl_lib_burn in libopwl.so and read_zero or another
# kernel symbol under the app; the symbols the daemon saved with the
# session name the kernel samples as /proc/kallsyms does.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
e2e_need_perf

acc_start lib,kernel
"$WORKLOADS/libcall" "$WORKLOADS/libopwl.so" 3 >"$E2E_TMP/libcall.out" ||
	fail "libcall workload failed"
acc_stop
cat "$E2E_TMP/libcall.out"
acc_report "$E2E_TMP/summary"
sed -n '/^ *[0-9].* libcall$/,/^ *[0-9][^\t]*$/p' "$E2E_TMP/summary" | head -12

total=$(app_count "$E2E_TMP/summary" libcall)
napp=$(dep_count "$E2E_TMP/summary" libcall libcall)
nlib=$(dep_count "$E2E_TMP/summary" libcall libopwl.so)
nkern=0
for k in kallsyms vmlinux no-vmlinux; do
	nkern=$((nkern + $(dep_count "$E2E_TMP/summary" libcall $k)))
done
check "$total >= 5000" "libcall: $total samples (>= 5000)"
for part in app:$napp lib:$nlib; do
	name=${part%%:*} n=${part#*:}
	want=$(share_of "$E2E_TMP/libcall.out" "$name")
	got=$(awk -v n="$n" -v t="$total" 'BEGIN { printf "%.3f", 100 * n / t }')
	check "$got - $want <= 5 && $want - $got <= 5" "$name under libcall: $n samples, $got %, program $want %"
done
want=$(share_of "$E2E_TMP/libcall.out" kernel)
got=$(awk -v n="$nkern" -v t="$total" 'BEGIN { printf "%.3f", 100 * n / t }')
check "$got >= $want / 2" "kernel under libcall: $nkern samples, $got %, program $want %"

acc_report "$E2E_TMP/symbols" -l "image:$WORKLOADS/libcall"
head -12 "$E2E_TMP/symbols"
awk '$1 ~ /^[0-9]+$/ && $3 == "libopwl.so" && $4 == "opwl_lib_burn" { f = 1 } END { exit !f }' \
	"$E2E_TMP/symbols" || fail "opwl_lib_burn in libopwl.so not listed under libcall"
awk -v re="$ACC_KERNEL_RE" '$1 ~ /^[0-9]+$/ && $3 ~ re { f = 1 } END { exit !f }' \
	"$E2E_TMP/symbols" || fail "no kernel symbol listed under libcall"
echo "ok: opwl_lib_burn and kernel symbols listed under libcall"

# The daemon saved the sampled kernel symbols with the session at the stop's
# dump, and opreport names the kernel samples from them exactly as from
# /proc/kallsyms.
[ -s "$SESSION_DIR/samples/current/stats/kallsyms" ] ||
	fail "no saved kernel symbols in samples/current/stats/kallsyms"
acc_report "$E2E_TMP/symbols-proc" -l "image:$WORKLOADS/libcall" --kallsyms=/proc/kallsyms
diff "$E2E_TMP/symbols-proc" "$E2E_TMP/symbols" ||
	fail "the saved kernel symbols name samples unlike /proc/kallsyms"
echo "ok: $(grep -vc '^#' "$SESSION_DIR/samples/current/stats/kallsyms") saved kernel symbol lines name the samples as /proc/kallsyms does"
