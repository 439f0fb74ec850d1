#!/bin/sh
# merge.sh - several hosts' files read as one trace against one file: the
# browser's first full screen (vxreplay --bench) and the time to the first
# row of the events report, K files of N events each (hosts with their own
# seeds and clock offsets) merged, against one of those files alone.
#   env: VXT_BENCH_MERGE_EVENTS (default 10000000), VXT_BENCH_MERGE_FILES (8)
set -e
B=${VXT_BUILD:?}
n=${VXT_BENCH_MERGE_EVENTS:-10000000}
k=${VXT_BENCH_MERGE_FILES:-8}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
i=1
while [ "$i" -le "$k" ]; do
	"$B/vxrecord" -q -s sim -c "$n" --seed "$i" --host "host$i" --clock-offset "${i}00ms" \
		-o "$T/h$i.vxt"
	i=$((i + 1))
done
files=$(ls "$T"/h*.vxt)
# "WALL CPU": the first full screen's ms of wall-clock and of CPU time
screen() { "$B/vxreplay" "$@" --bench |
	sed -n 's/^first full screen: \([0-9.]*\) ms (\([0-9.]*\) ms CPU.*/\1 \2/p'; }
first_row() {	# ms from start to the first event row of the events report
	t0=$(date +%s%N)
	"$B/vxreplay" "$@" --report events --format csv | head -n 2 > /dev/null
	echo $((($(date +%s%N) - t0) / 1000000))
}
s1=$(screen "$T/h1.vxt")
# shellcheck disable=SC2086
sk=$(screen $files)
r1=$(first_row "$T/h1.vxt")
# shellcheck disable=SC2086
rk=$(first_row $files)
echo "merge: $k files of $n events, $(du -ch $files | tail -n 1 | cut -f1) in all"
echo "$s1 $sk" | awk -v k="$k" '{ printf "merge: first full screen: one file %.1f ms, %d merged %.1f ms (%.1fx; the target is 2x); CPU %.1f ms and %.1f ms (%.1fx)\n", $1, k, $3, $3 / $1, $2, $4, $4 / $2 }'
awk -v a="$r1" -v b="$rk" -v k="$k" 'BEGIN { printf "merge: first row of the events report: one file %d ms, %d merged %d ms (%.1fx)\n", a, k, b, (a ? b / a : 0) }'
