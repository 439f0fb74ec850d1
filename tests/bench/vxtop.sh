#!/bin/sh
# vxtop.sh - vxtop's own cost: CPU time over a fixed run with the simulator at
# 200k events/s and a 1 s interval, in batch mode and in the live view (tmux),
# and the events lost (the target: under 10% of one core, nothing lost).
#   usage: tests/bench/vxtop.sh [BUILD_DIR]   (or VXT_BUILD in the environment)
# The simulator runs inside vxtop, so its cost of making the events is counted.
# Environment: VXT_BENCH_RATE (events/s, 200000), VXT_BENCH_SECONDS (10).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
build=$(cd "$build" && pwd)
rate=${VXT_BENCH_RATE:-200000}
secs=${VXT_BENCH_SECONDS:-10}
T=$(mktemp -d)
SOCK=vxtop-bench-$$
cleanup() {
	command -v tmux >/dev/null 2>&1 && tmux -L "$SOCK" kill-server 2>/dev/null
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
	rm -rf "$T"
}
trap cleanup EXIT
hz=$(getconf CLK_TCK)

# cpu_ticks PID: user + system clock ticks of PID so far
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }

report() {	# report MODE TICKS SECONDS LOST EVENTS_PER_S [NOTE]
	awk -v m="$1" -v t="$2" -v s="$3" -v hz="$hz" -v l="$4" -v e="$5" -v note="${6:-}" 'BEGIN {
		pct = 100 * t / hz / s
		if (note == "")
			note = (pct < 10 && l == 0) ? "(target met)" : "(TARGET MISSED)"
		printf "vxtop %-7s %7.0f events/s  cpu %.2fs over %ds = %5.2f%% of a core  lost %s  %s\n",
			m, e, t / hz, s, pct, l, note
	}'
}

# --- batch: SECONDS of a run of SECONDS + 2 intervals
"$build/vxtop" -b -c $((secs + 2)) -i 1s -s sim --rate "$rate" -F json </dev/null \
	>"$T/b.json" 2>"$T/b.err" &
pid=$!
sleep 0.5
t0=$(cpu_ticks $pid)
sleep "$secs"
t1=$(cpu_ticks $pid)
wait $pid || { echo "vxtop -b failed: $(cat "$T/b.err")"; exit 1; }
set -- $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d[-1]["lost_total"], sum(i["events_per_s"] for i in d) / len(d))' "$T/b.json")
report batch $((t1 - t0)) "$secs" "$1" "$2"

# --- the live view in a terminal, drawn once per interval
if ! command -v tmux >/dev/null 2>&1; then
	echo "vxtop live: skipped (no tmux)"
	exit 0
fi
tmux -L "$SOCK" -f /dev/null new-session -d -x 160 -y 50 \
	"sh -c 'echo \$\$ >$T/pid; exec $build/vxtop -s sim --rate $rate'; sleep 30"
i=0; while [ ! -s "$T/pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
pid=$(cat "$T/pid")
sleep 1.5
t0=$(cpu_ticks "$pid")
sleep "$secs"
t1=$(cpu_ticks "$pid")
screen=$(tmux -L "$SOCK" capture-pane -p -t 0)
lost=$(echo "$screen" | sed -n '1s/.* lost \([0-9]*\).*/\1/p')
evs=$(echo "$screen" | sed -n '1s/.* events \([^ ]*\)\/s.*/\1/p' |
	awk '{ v = $1; m = 1; if (v ~ /k$/) m = 1000; if (v ~ /M$/) m = 1e6; sub(/[kM]$/, "", v); print v * m }')
tmux -L "$SOCK" send-keys -t 0 q
report live $((t1 - t0)) "$secs" "${lost:-?}" "${evs:-0}"

# --- the tracefs source on a loop device under fio (root only): the source's
# parsing runs in vxtop's process and dominates here
if [ "$(id -u)" -ne 0 ] || ! grep -qw tracefs /proc/filesystems ||
   ! command -v fio >/dev/null 2>&1 || ! command -v losetup >/dev/null 2>&1; then
	echo "vxtop tracefs: skipped (needs root, tracefs, losetup and fio)"
	exit 0
fi
truncate -s 256M "$T/disk.img"
loop=$(losetup -f --show "$T/disk.img") || { echo "vxtop tracefs: skipped (no loop device)"; exit 0; }
trap 'losetup -d "$loop" 2>/dev/null; cleanup' EXIT
"$build/vxtop" -b -c $((secs + 4)) -i 1s -F json -s tracefs -O "${loop#/dev/}" \
	</dev/null >"$T/t.json" 2>"$T/t.err" &
pid=$!
sleep 1.5
t0=$(cpu_ticks $pid)
fio --name=r --filename="$loop" --direct=1 --rw=randread --bs=4k --ioengine=psync \
	--numjobs=2 --time_based --runtime="$secs" --size=200M --group_reporting \
	--output-format=json >"$T/fio.json" 2>"$T/fio.err"
t1=$(cpu_ticks $pid)
wait $pid || { echo "vxtop tracefs failed: $(cat "$T/t.err")"; exit 1; }
set -- $(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = json.load(open(sys.argv[2]))["jobs"][0]["read"]
print(d[-1]["lost_total"], sum(i["events_per_s"] for i in d) / len(d) * len(d) / (len(d) - 4), f["iops"])
' "$T/t.json" "$T/fio.json")
report tracefs $((t1 - t0)) "$secs" "$1" "$2" "(no target: the source's parsing)"
awk -v i="$3" 'BEGIN { printf "  fio: %.0f reads/s on %s\n", i, "'"$loop"'" }'
