#!/bin/sh
# run.sh - run every benchmark script tests/bench/*.sh (make bench)
# A benchmark that measures against a goal says so in lines starting with
# "goal "; they are repeated together at the end.
#   usage: tests/bench/run.sh BUILD_DIR
build=$(cd "${1:-build}" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
goals=$(mktemp /tmp/vxt-goals.XXXXXX)
trap 'rm -f "$goals"' EXIT INT TERM
for b in "$top"/tests/bench/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo "== $(basename "$b" .sh)"
	{ VXT_BUILD=$build VXT_TOP=$top VXT_SHARED=$top/../shared sh "$b" ||
		echo "(benchmark $(basename "$b") failed)"; } | tee -a "$goals"
	echo
done
if grep -q '^goal ' "$goals"; then
	echo "== goals"
	grep '^goal ' "$goals"
fi
