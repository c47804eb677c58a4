#!/usr/bin/env bash
# Symbols from elsewhere: a stripped copy of tests/workloads/ratio whose
# split debug file only a debuginfod server holds (elfutils' own, started
# here on the loopback over a directory with the debug file), profiled
# system-wide.
#   - without DEBUGINFOD_URLS, opreport -l has no function of it, names its
#     build-id on stderr, and nothing asks the server (its log shows no
#     request);
#   - with DEBUGINFOD_URLS pointing at it, opreport -l names the four
#     functions, with the shares the program measured (2 points), and the
#     debug file lands in the client's cache (DEBUGINFOD_CACHE_PATH).
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/accuracy/acclib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
e2e_need_perf
command -v debuginfod >/dev/null || fail "no debuginfod (Debian's debuginfod package)"
command -v debuginfod-find >/dev/null || fail "no debuginfod-find"

SRV=$E2E_TMP/srv
BIN=$E2E_TMP/bin
mkdir -p "$SRV" "$BIN"
objcopy --only-keep-debug "$WORKLOADS/ratio" "$SRV/ratio.debug" || fail "objcopy --only-keep-debug failed"
objcopy --strip-all "$WORKLOADS/ratio" "$BIN/ratio" || fail "objcopy --strip-all failed"
bid=$(readelf -n "$BIN/ratio" | awk '/Build ID:/ { print $3 }')
[ -n "$bid" ] || fail "the stripped ratio has no build-id"
[ ! -e "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ] ||
	fail "this machine has the debug file already: the test would prove nothing"

# the server, on a port of its own choosing range; ready once it serves
# the debug file
srv_pid=
for try in 1 2 3 4 5; do
	port=$((20000 + RANDOM % 20000))
	debuginfod -p "$port" -F -d "$E2E_TMP/db.sqlite" -vv "$SRV" >"$E2E_TMP/srv.log" 2>&1 &
	srv_pid=$!
	sleep 1
	kill -0 "$srv_pid" 2>/dev/null && break
	srv_pid=
done
[ -n "$srv_pid" ] || { cat "$E2E_TMP/srv.log" >&2; fail "debuginfod did not start"; }
dbg_cleanup() {
	local status=$?
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
	(exit "$status")
	acc_cleanup
}
trap dbg_cleanup EXIT
URL=http://127.0.0.1:$port
for i in $(seq 1 60); do
	# a fresh cache each try: the client remembers a miss for 10 minutes
	DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$E2E_TMP/probe.$i \
		debuginfod-find debuginfo "$bid" >/dev/null 2>&1 && break
	sleep 0.5
done
[ "$i" -lt 60 ] || { tail "$E2E_TMP/srv.log" >&2; fail "debuginfod never served $bid"; }

acc_start none
"$BIN/ratio" 3 >"$E2E_TMP/ratio.out" || fail "ratio failed"
acc_stop
cat "$E2E_TMP/ratio.out"
requests() { grep -c "buildid/$bid/debuginfo" "$E2E_TMP/srv.log" || true; }
before=$(requests)

# without DEBUGINFOD_URLS: no symbols, the build-id named, no request
( unset DEBUGINFOD_URLS
  acc_report "$E2E_TMP/plain" -l "image:$BIN/ratio" )
cat "$E2E_TMP/plain" "$E2E_TMP/plain.err"
grep -q 'func_a50' "$E2E_TMP/plain" && fail "symbols without DEBUGINFOD_URLS: the test's debug file is somewhere local"
grep -q "^warning: no symbols for $BIN/ratio (build-id $bid)" "$E2E_TMP/plain.err" ||
	fail "opreport does not name the build-id of the image without symbols"
[ "$(requests)" = "$before" ] || fail "opreport asked the server without DEBUGINFOD_URLS"
echo "ok: without DEBUGINFOD_URLS, no symbols, build-id $bid named, no request"

# with it: the functions, their shares, and the client's cache
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$E2E_TMP/cache \
	acc_report "$E2E_TMP/remote" -l "image:$BIN/ratio"
cat "$E2E_TMP/remote"
ratio_judge "$E2E_TMP/remote" "$E2E_TMP/ratio.out" 2
grep -q "no symbols for $BIN/ratio" "$E2E_TMP/remote.err" &&
	fail "opreport still warns of no symbols with the server's debug file"
[ -s "$E2E_TMP/cache/$bid/debuginfo" ] || fail "the debug file is not in the client's cache"
cmp -s "$E2E_TMP/cache/$bid/debuginfo" "$SRV/ratio.debug" || fail "the cached debug file is not the server's"
echo "ok: with DEBUGINFOD_URLS, symbols from the server, cached in DEBUGINFOD_CACHE_PATH"
