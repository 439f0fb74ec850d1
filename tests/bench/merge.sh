#!/bin/sh
# merge.sh - several hosts' files read as one trace against one file, the
# case "merging 8 files of 10 M events: first screen <= 2x a single file's":
# the browser's first full screen (vxreplay --bench=first: start, open, index,
# first draw; its wall-clock time from exec, the goal's measure, and from
# main(), and its CPU time) with K files of N events each
# (hosts with their own seeds, clocks OFFSET apart) merged, against one of
# those files alone. Each is run RUNS times, one after the other in turn, and
# the medians are compared; the load average is printed with them (wall
# times on a busy machine are noisy, CPU times much less so). Then the time
# to the first row of the events report, once each.
#   env: VXT_BENCH_MERGE_EVENTS (default 10000000), VXT_BENCH_MERGE_FILES (8),
#        VXT_BENCH_MERGE_RUNS (5), VXT_BENCH_MERGE_OFFSET (100ms; 0: every
#        host starts at once, so the first events interleave all the files)
set -e
B=${VXT_BUILD:?}
n=${VXT_BENCH_MERGE_EVENTS:-10000000}
k=${VXT_BENCH_MERGE_FILES:-8}
runs=${VXT_BENCH_MERGE_RUNS:-5}
off=${VXT_BENCH_MERGE_OFFSET:-100ms}
goal=2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
i=1
while [ "$i" -le "$k" ]; do
	case $off in
	0|0ms) o=0ms ;;
	*ms) o=$((i * ${off%ms}))ms ;;
	*) echo "merge bench: VXT_BENCH_MERGE_OFFSET is a number of ms (e.g. 100ms)"; exit 1 ;;
	esac
	"$B/vxrecord" -q -s sim -c "$n" --seed "$i" --host "host$i" --clock-offset "$o" \
		-o "$T/h$i.vxt"
	i=$((i + 1))
done
files=$(ls "$T"/h*.vxt)
# "WALL CPU EXEC": the first full screen's ms of wall-clock time from
# main(), of CPU time, and of wall-clock time from before exec (the real-time
# clock noted here, then the one vxreplay prints: the dynamic loader and the
# libraries' start included, what a user waits for)
screen() {
	t0=$(date +%s%N)
	"$B/vxreplay" "$@" --bench=first | awk -v t0="$t0" '
		/^first full screen: / { w = $4; c = substr($6, 2) }
		/^first full screen at: / { x = ($5 - t0) / 1e6 }
		END { printf "%s %s %.1f\n", w, c, x }'
}
first_row() {	# ms from start to the first event row of the events report
	t0=$(date +%s%N)
	"$B/vxreplay" "$@" --report events --format csv | head -n 2 > /dev/null
	echo $((($(date +%s%N) - t0) / 1000000))
}
screen "$T/h1.vxt" > /dev/null	# the page cache warm for both
# shellcheck disable=SC2086
screen $files > /dev/null
r=0
while [ "$r" -lt "$runs" ]; do
	screen "$T/h1.vxt" >> "$T/one"
	# shellcheck disable=SC2086
	screen $files >> "$T/many"
	r=$((r + 1))
done
median() {	# median of column $2 of file $1
	cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END {
		print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
w1=$(median "$T/one" 1) c1=$(median "$T/one" 2) x1=$(median "$T/one" 3)
wk=$(median "$T/many" 1) ck=$(median "$T/many" 2) xk=$(median "$T/many" 3)
r1=$(first_row "$T/h1.vxt")
# shellcheck disable=SC2086
rk=$(first_row $files)
# shellcheck disable=SC2086
echo "merge: $k files of $n events (clocks ${off} apart), $(du -ch $files | tail -n 1 | cut -f1) in all; load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v k="$k" -v runs="$runs" -v g="$goal" -v w1="$w1" -v c1="$c1" -v wk="$wk" -v ck="$ck" \
    -v x1="$x1" -v xk="$xk" 'BEGIN {
	printf "merge: first full screen (median of %d): one file %.1f ms from exec (%.1f from main), %.1f ms CPU; %d merged %.1f ms from exec (%.1f from main), %.1f ms CPU\n", runs, x1, w1, c1, k, xk, wk, ck
	printf "merge: %d merged against one: %.2fx wall from exec, %.2fx from main, %.2fx CPU (the goal: at most %dx: %s wall from exec, %s CPU)\n", k, xk / x1, wk / w1, ck / c1, g, xk / x1 <= g ? "met" : "NOT met", ck / c1 <= g ? "met" : "NOT met" }'
awk -v a="$r1" -v b="$rk" -v k="$k" 'BEGIN { printf "merge: first row of the events report: one file %d ms, %d merged %d ms (%.1fx)\n", a, k, b, (a ? b / a : 0) }'
