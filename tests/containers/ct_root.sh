#!/usr/bin/env bash
# Containers, profiled system-wide: three roots made of what Debian has,
# run at once with a host program, and reported after they are gone.
#   C1, an overlayfs root (unmounted and deleted before the reports), in
#     a cgroup of its own: tests/workloads/ratio at /app/prog, a path the
#     host does not have. opreport -l gives its four functions' shares
#     within 1 point of the program's own, and names the image as the
#     container knew it, with its container: "/app/prog (container:C1)";
#     image:/app/prog selects it; opannotate --source annotates it;
#     OProfile 1.4's opreport finds its symbols too (the sample files
#     name the image after its copy in the session's kept/).
#   C2, a chroot in another cgroup: a different program (burn) at the
#     same /app/prog: two images, each with its own functions, told apart
#     by their containers. The host runs burn too, the same build: one
#     image.
#   C3, a chroot whose /app/prog is a link to an absolute path where the
#     host keeps a secret (and the container its own program): nothing
#     of the host file is opened (inotify watches it), kept or shown.
. "$top_srcdir/tests/interop/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
. "$top_srcdir/tests/containers/ctlib.sh"
ct_need
interop_need_peer
command -v inotifywait >/dev/null || fail "no inotifywait (inotify-tools)"

OPANNOTATE=$top_builddir/pp/opannotate
R=$E2E_TMP/roots
SECRET_DIR=$E2E_TMP/secret
token="opsampler-secret-$RANDOM$RANDOM"
mkdir -p "$SECRET_DIR"
printf 'host secret %s\n' "$token" >"$SECRET_DIR/prog"
chmod 755 "$SECRET_DIR/prog"

ct_cgroup "opsampler-c1-$$"
CG1=$CT_CG n1=opsampler-c1-$$
ct_cgroup "opsampler-c2-$$"
CG2=$CT_CG n2=opsampler-c2-$$
ct_root "$R/lower1" "$WORKLOADS/ratio" /app/prog
ct_overlay "$R/lower1" "$R/c1"
ct_root "$R/c2" "$WORKLOADS/burn" /app/prog
ct_root "$R/c3" "$WORKLOADS/hotlines" "$SECRET_DIR/prog"
ln -s "$SECRET_DIR/prog" "$R/c3/app/prog" 2>/dev/null ||
	{ mkdir -p "$R/c3/app"; ln -s "$SECRET_DIR/prog" "$R/c3/app/prog"; }

inotifywait -m -q -e open,access,modify,close "$SECRET_DIR/prog" >"$E2E_TMP/inotify" 2>&1 &
watcher=$!
# a failure before the watch is read still ends it
CT_PIDS+=("$watcher")
sleep 0.5

acc_start none
ct_run_in "$CG1" "$R/c1" /app/prog 3 >"$E2E_TMP/ratio.out" & p1=$!
ct_run_in "$CG2" "$R/c2" /app/prog -t 3 1 >/dev/null & p2=$!
ct_run "$R/c3" /app/prog 2 >/dev/null & p3=$!
"$WORKLOADS/burn" -t 3 1 >/dev/null & p4=$!
wait $p1 || fail "ratio in C1 failed"
wait $p2 || fail "burn in C2 failed"
wait $p3 || fail "hotlines in C3 failed"
wait $p4 || fail "burn on the host failed"
acc_stop
cat "$E2E_TMP/ratio.out"

# the containers are gone before anyone reports
ct_unmount "$R/c1"
rm -rf "$R"

acc_report "$E2E_TMP/sym" -l --long-filenames
acc_report "$E2E_TMP/sym-short" -l
cat "$E2E_TMP/sym.err" >&2

# img_of FILE SYMBOL: the image and app name columns of FILE's first line
# for SYMBOL (opreport -l, no classes: samples, %, image name, app name,
# symbol name); names of kept images hold spaces, so callers match the
# image's at the start
img_of() {
	awk -v s="$2" '$NF == s && $1 ~ /^[0-9]+$/ {
		$1 = ""; $2 = ""; $NF = ""; sub(/^ +/, ""); sub(/ +$/, ""); print; exit }' "$1"
}

# C1: the program's functions and their shares, without its root; the
# image named as the container knew it, and the container
ratio_judge "$E2E_TMP/sym-short" "$E2E_TMP/ratio.out" 1
img1=$(img_of "$E2E_TMP/sym" func_a50)
case $img1 in
"/app/prog (container:$n1) /app/prog (container:$n1)") ;;
*) fail "C1's program is named '$img1', not '/app/prog (container:$n1)' (image and app)" ;;
esac
img1s=$(img_of "$E2E_TMP/sym-short" func_a50)
case $img1s in
"prog (container:$n1) prog (container:$n1)") ;;
*) fail "C1's program is named '$img1s' without --long-filenames, not 'prog (container:$n1)'" ;;
esac
echo "ok: C1's program is '$img1'"
kept1=$(find "$SESSION_DIR/kept" -type f -path '*/app/prog' | while read -r f; do
	cmp -s "$f" "$WORKLOADS/ratio" && echo "$f"; done | head -1)
[ -n "$kept1" ] || fail "no copy of C1's program in $SESSION_DIR/kept"
[ -n "$(find "$SESSION_DIR/samples/current" -path "*{root}$kept1/*" -print -quit)" ] ||
	fail "the sample files do not name C1's program after its copy $kept1"
echo "ok: its sample files name its copy $kept1"
acc_report "$E2E_TMP/sel" -l image:/app/prog
[ "$(sym_count "$E2E_TMP/sel" func_a50)" -gt 0 ] || fail "image:/app/prog does not select C1's program"
acc_report "$E2E_TMP/sel" -l "image:$kept1"
[ "$(sym_count "$E2E_TMP/sel" func_a50)" -gt 0 ] || fail "image:$kept1 does not select C1's program"
echo "ok: image:/app/prog and image:COPY select it"

"$OPANNOTATE" --session-dir="$SESSION_DIR" --source "image:$kept1" >"$E2E_TMP/ann" 2>"$E2E_TMP/ann.err" ||
	{ cat "$E2E_TMP/ann.err" >&2; fail "opannotate --source failed"; }
grep -q 'Total samples for file : ".*ratio\.c"' "$E2E_TMP/ann" ||
	fail "opannotate --source: no block for ratio.c"
grep -q '/\* func_a50 total: ' "$E2E_TMP/ann" || fail "opannotate --source: no func_a50 total"
echo "ok: opannotate --source annotates C1's program"

# C2 and the host: another image at the same path; the host's burn is
# the same build as C2's, one image: named by C2's path and both who ran
# it when C2 mapped it first, else by the host's path
img2=$(awk '$NF == "burn_loop" && $1 ~ /^[0-9]+$/ {
	$1 = ""; $2 = ""; $NF = ""; sub(/^ +/, ""); sub(/ +$/, ""); print }' "$E2E_TMP/sym" | sort -u)
[ -n "$img2" ] || fail "no burn_loop samples (C2 and the host)"
[ "$(printf '%s\n' "$img2" | wc -l)" -eq 1 ] ||
	fail "burn, in C2 and on the host, is more than one image: $img2"
case $img2 in
"/app/prog (container:$n2,host) "* | "/app/prog (container:host,$n2) "* | "$WORKLOADS/burn "*) ;;
*) fail "burn, in C2 and on the host, is named '$img2'" ;;
esac
[ "$img2" != "$img1" ] || fail "C1's and C2's /app/prog are one image"
echo "ok: C2's /app/prog is another image ($img2), the host's burn the same one"
awk '$NF == "func_a50" || $NF == "func_b30"' "$E2E_TMP/sym" | grep "$n2" >/dev/null &&
	fail "ratio's functions under C2's container"

# C3: the link to the host's secret
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null || true
if [ -s "$E2E_TMP/inotify" ]; then
	cat "$E2E_TMP/inotify" >&2
	fail "the host's $SECRET_DIR/prog was opened"
fi
grep -rqs "$token" "$SESSION_DIR" && fail "the host's secret is in the session"
grep -qs "$token" "$E2E_TMP"/sym* && fail "the host's secret is in a report"
grep -q 'hot_a$' "$E2E_TMP/sym" || fail "C3's program (hotlines) has no samples under its own name"
img3=$(img_of "$E2E_TMP/sym" hot_a)
# the kernel names the file the link led to, inside C3: the path of the
# host's secret, but C3's file, which the report says
case $img3 in
"$SECRET_DIR/prog (container:"*")"*) ;;
*) fail "C3's program is named '$img3', not as C3's file" ;;
esac
echo "ok: C3's link to a host path: nothing of the host file opened, kept or shown ($img3)"

# OProfile 1.4 reads the session and finds the copies' symbols
"$PEER/opreport" --session-dir="$SESSION_DIR" -l >"$E2E_TMP/peer" 2>"$E2E_TMP/peer.err" ||
	{ cat "$E2E_TMP/peer.err" >&2; fail "OProfile's opreport failed"; }
for f in func_a50 burn_loop hot_a; do
	grep -q " $f\$" "$E2E_TMP/peer" || { cat "$E2E_TMP/peer.err" >&2; fail "OProfile's opreport -l has no $f"; }
done
echo "ok: OProfile 1.4's opreport finds the containers' symbols"

# nothing silent: what was kept is counted
kept=$(stats_value images_kept)
# burn is kept only when C2 mapped it before the host did
check "$kept >= 2" "images_kept $kept (ratio, hotlines, perhaps burn)"
