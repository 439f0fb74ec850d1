#!/bin/sh
# export.sh - speed of vxreplay's exports and HTML report: events per second
# of --export csv, jsonl, chrome and blktrace and of --report html on a
# simulated trace, and the output size per event.
#   usage: tests/bench/export.sh [BUILD_DIR]   (VXT_BENCH_EXPORT_SECONDS, default 20)
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
secs=${VXT_BENCH_EXPORT_SECONDS:-20}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$build/vxrecord" -q -s sim -d "${secs}s" --rate 100000 -o "$dir/t.vxt"
n=$("$build/vxreplay" "$dir/t.vxt" --report summary --format csv | tail -n 1 | cut -d, -f4)
echo "export: $n events, $(($(stat -c %s "$dir/t.vxt") / 1024)) KiB .vxt"
now() { date +%s.%N; }
for how in "--export csv" "--export jsonl" "--export chrome" "--export blktrace" "--report html"; do
	t0=$(now)
	"$build/vxreplay" "$dir/t.vxt" $how --force -o "$dir/out"
	t1=$(now)
	awk -v w="$how" -v n="$n" -v a="$t0" -v b="$t1" -v s="$(stat -c %s "$dir/out")" 'BEGIN {
		printf "export: %-17s %6.2f s  %6.2f M events/s  %7.1f bytes/event\n",
		w, b - a, n / (b - a) / 1e6, s / n }'
done
