#!/bin/sh
# import.sh - blktrace import speed: events per second of
# `vxrecord --import blktrace` on a synthesised capture, against the time
# `blkparse -d` takes to read and dump the same input.
#   usage: tests/bench/import.sh [BUILD_DIR]   (VXT_BENCH_BLK_EVENTS, default 10000000)
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
cc=${CC:-cc}
n=${VXT_BENCH_BLK_EVENTS:-10000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
$cc -std=c11 -D_GNU_SOURCE -O2 -I"$top/include" -I"$top/src/lib" -o "$dir/blkgen" \
	"$top/tests/bench/blkgen.c" "$top/src/lib/blktrace.c"
"$dir/blkgen" "$dir/big" "$n" 2
sync
size=$(cat "$dir"/big.blktrace.* | wc -c)
cat "$dir"/big.blktrace.* >/dev/null	# both tools read from the page cache

now() { date +%s.%N; }
t0=$(now)
"$build/vxrecord" --import blktrace "$dir/big" -o "$dir/big.vxt" -q
t1=$(now)
vxt=$(stat -c %s "$dir/big.vxt")
rm -f "$dir/big.vxt"
echo "import: $n events, $((size / 1048576)) MiB of blktrace" \
	"-> $((vxt / 1048576)) MiB .vxt"
awk -v n="$n" -v a="$t0" -v b="$t1" 'BEGIN { printf "import: vxrecord --import blktrace: %.2f s, %.2f M events/s\n", b - a, n / (b - a) / 1e6 }'
if command -v blkparse >/dev/null; then
	t2=$(now)
	(cd "$dir" && blkparse -q -i big -d "$dir/dump.bin" -O >/dev/null)
	t3=$(now)
	awk -v n="$n" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" 'BEGIN {
		printf "import: blkparse -d: %.2f s, %.2f M events/s; vxrecord is %.1fx blkparse\n",
		d - c, n / (d - c) / 1e6, (d - c) / (b - a) }'
else
	echo "import: blkparse not installed, no comparison"
fi
