#!/usr/bin/env bash
# Containers that share a cgroup: two containers (unshare --mount --pid
# --fork, chroot into two roots) and a host process, all three in one
# cgroup of the test's own, separated by container. The containers are
# told apart by the roots they saw: three columns, NAME for the host's
# process, NAME+root:MAJ:MIN:INO for each container (the inode of its
# root directory); container:NAME+root:... selects one container, and
# container:/PATH (the cgroup) all three.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/containers/ctlib.sh"
ct_need

R=$E2E_TMP/roots
ct_cgroup "ctshared-$$"
CG=$CT_CG n=ctshared-$$
ct_root "$R/s1" "$WORKLOADS/burn" /app/prog
ct_root "$R/s2" "$WORKLOADS/ratio" /app/prog
ino1=$(stat -c %i "$R/s1") ino2=$(stat -c %i "$R/s2")

acc_start container
ct_run_in "$CG" "$R/s1" /app/prog -t 2 1 >/dev/null & p1=$!
ct_run_in "$CG" "$R/s2" /app/prog 2 >/dev/null & p2=$!
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -t 2 1' sh "$CG" "$WORKLOADS/burn" >/dev/null & p3=$!
CT_PIDS+=("$p1" "$p2" "$p3")
wait $p1 || fail "burn in the first container failed"
wait $p2 || fail "ratio in the second container failed"
wait $p3 || fail "burn on the host failed"
acc_stop

CGF=$SESSION_DIR/samples/current/stats/cgroups
grep -E "^root [0-9]+ [0-9]+ ($ino1|$ino2)\$" "$CGF" ||
	fail "stats/cgroups says no container's root (root directories $ino1, $ino2)"
acc_report "$E2E_TMP/sym" -l
grep "^Samples in container " "$E2E_TMP/sym"
c1=$(awk -v i="$ino1" '/^Samples in container / && $4 ~ ("\\+root:[0-9]+:[0-9]+:" i "$") { print $4; exit }' "$E2E_TMP/sym")
c2=$(awk -v i="$ino2" '/^Samples in container / && $4 ~ ("\\+root:[0-9]+:[0-9]+:" i "$") { print $4; exit }' "$E2E_TMP/sym")
[ -n "$c1" ] && [ -n "$c2" ] || fail "no column for each container sharing /$n (roots $ino1, $ino2)"
[ "${c1%%+*}" = "$n" ] && [ "${c2%%+*}" = "$n" ] || fail "the containers are not named after their cgroup: $c1, $c2"
grep -q "^Samples in container $n (cgroup /$n)\$" "$E2E_TMP/sym" || fail "no column for the host's process in /$n"
echo "ok: three columns for one cgroup: $n, $c1, $c2"

acc_report "$E2E_TMP/one" -l "container:$c2"
cat "$E2E_TMP/one"
[ "$(sym_count "$E2E_TMP/one" func_a50)" -gt 0 ] || fail "container:$c2 has no ratio samples"
[ "$(sym_count "$E2E_TMP/one" burn_loop)" -eq 0 ] || fail "container:$c2 has burn's samples (the other container's or the host's)"
acc_report "$E2E_TMP/all" -l "container:/$n" --merge=container
[ "$(sym_count "$E2E_TMP/all" func_a50)" -gt 0 ] && [ "$(sym_count "$E2E_TMP/all" burn_loop)" -gt 0 ] ||
	fail "container:/$n (the cgroup) does not select all three"
echo "ok: container:$c2 selects its container alone; the cgroup's path selects all three"
