#!/usr/bin/env bash
# build.sh DIR [CONFIGURE-ARGS...]: configure (once) and build opsampler in
# DIR, relative to the source tree. Regenerates the build system when needed.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
shift
cd "$src"
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
	autoreconf -fi >/dev/null
fi
mkdir -p "$dir"
cd "$dir"
if [ ! -f Makefile ] || [ "$(cat .opsampler-configure 2>/dev/null)" != "$*" ]; then
	"$src/configure" -q "$@"
	echo "$*" > .opsampler-configure
fi
make -j"$(nproc)" -s
