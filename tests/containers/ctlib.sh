# Sourced by the container tests after tests/accuracy/acclib.sh: roots to
# run programs in, made of what Debian has (unshare, chroot, overlayfs).

# Leak reports are the unit tests' business: here they would only add to
# what the tools print for a reason that is not the containers'.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

# ct_need: what every container test needs: perf_event_open (the
# machine-wide lock taken, tests/e2e/lib.sh), and unshare for ct_run.
ct_need() {
	e2e_need_perf
	command -v unshare >/dev/null || fail "no unshare (util-linux)"
}

# ct_root DIR PROG DEST...: make DIR a root holding PROG at DEST (one or
# more PROG DEST pairs) and the libraries they load, at their paths.
ct_root() {
	local dir=$1 prog dest lib
	shift
	mkdir -p "$dir"
	while [ $# -ge 2 ]; do
		prog=$1 dest=$2
		shift 2
		mkdir -p "$dir$(dirname "$dest")"
		cp "$prog" "$dir$dest"
		for lib in $(ldd "$prog" | grep -o '/[^ ]*'); do
			mkdir -p "$dir$(dirname "$lib")"
			cp -L "$lib" "$dir$lib"
		done
	done
}

# ct_overlay LOWER MERGED: an overlayfs at MERGED over LOWER (its upper
# and work directories beside MERGED); ct_unmount MERGED takes it down.
ct_overlay() {
	mkdir -p "$2" "$2.upper" "$2.work"
	mount -t overlay overlay -o "lowerdir=$1,upperdir=$2.upper,workdir=$2.work" "$2" ||
		fail "cannot mount an overlay on $2"
	CT_MOUNTS+=("$2")
}
ct_unmount() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		umount "$1" 2>/dev/null && return 0
		sleep 0.5
	done
	fail "cannot unmount $1 (is a descriptor of it still open?)"
}
CT_MOUNTS=()
CT_CGROUPS=()
CT_PIDS=()
ct_cleanup() {
	local status=$? m
	for m in "${CT_PIDS[@]}"; do
		kill "$m" 2>/dev/null || true
	done
	for m in "${CT_MOUNTS[@]}"; do
		mountpoint -q "$m" 2>/dev/null && umount -l "$m"
	done
	for m in "${CT_CGROUPS[@]}"; do
		rmdir "$m" 2>/dev/null || true
	done
	(exit "$status")
	acc_cleanup
}
trap ct_cleanup EXIT

# ct_run ROOT PROG ARGS...: PROG run in ROOT as a container runs: its own
# mount and pid namespaces, ROOT for /.
ct_run() {
	local root=$1
	shift
	unshare --mount --pid --fork chroot "$root" "$@"
}

# ct_cgroup NAME: a cgroup of the test's own under the cgroup v2 mount,
# its path in CT_CG (removed at exit, once its processes are gone).
ct_cgroup() {
	local cg2
	cg2=$(findmnt -n -t cgroup2 -o TARGET | head -1)
	[ -n "$cg2" ] || fail "no cgroup v2 hierarchy mounted"
	CT_CG=$cg2/$1
	mkdir "$CT_CG" || fail "cannot make the cgroup $CT_CG"
	CT_CGROUPS+=("$CT_CG")
}

# ct_run_in CGROUP ROOT PROG ARGS...: ct_run in a cgroup (a directory
# under the cgroup v2 mount), as a container runtime starts one.
ct_run_in() {
	local cg=$1
	shift
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec unshare --mount --pid --fork chroot "$@"' \
		sh "$cg" "$@"
}
