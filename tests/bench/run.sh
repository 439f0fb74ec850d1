#!/bin/sh
# run.sh - run every benchmark script tests/bench/*.sh (make bench)
#   usage: tests/bench/run.sh BUILD_DIR
build=$(cd "${1:-build}" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
for b in "$top"/tests/bench/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo "== $(basename "$b" .sh)"
	VXT_BUILD=$build VXT_TOP=$top VXT_SHARED=$top/../shared sh "$b" || echo "(benchmark $(basename "$b") failed)"
	echo
done
