#!/bin/sh
# tui.sh - the browser's speed and memory (vxreplay --bench) on a 1000M-event
# file of the simulator (vxrecord -s sim -c 1000000000, about 10 GB): first
# full screen after start, redraw after End, resident memory, each against
# its target, then the rest of --bench's figures (every navigation key
# through every panel, the stepped work: exact timeline, a filter over the
# whole file). A smaller file first shows how the figures grow with the file.
# The --bench mode draws to a virtual 120x40 terminal through ncurses; "first
# full screen" runs from the browser's start (after the program's own
# start-up) to the first screen drawn; "redraw after End" times End from the
# first screen; resident memory is the peak (VmHWM) over the whole run.
# The file goes to the file system of VXT_BENCH_TUI_DIR (default: the one
# of TMPDIR or /tmp); the bench says so and stops when it has not the room.
# VXT_BENCH_TUI_FILE=F benches an existing file F instead.
#   env: VXT_BENCH_TUI_EVENTS (default 1000000000), VXT_BENCH_TUI_SMALL (default 10000000),
#        VXT_BENCH_TUI_FILE (none), VXT_BENCH_TUI_DIR (default ${TMPDIR:-/tmp})
set -e
B=$VXT_BUILD
big=${VXT_BENCH_TUI_EVENTS:-1000000000}
small=${VXT_BENCH_TUI_SMALL:-10000000}

# the figures of one --bench run, then the three against their targets
bench() {
	out=$("$B/vxreplay" "$1" --bench) || { echo "tui bench: vxreplay --bench failed on $1"; return 1; }
	echo "$out" | sed 1d
	echo "$out" | awk '
		/^first full screen:/ { first = $4 }
		/^redraw after End:/ { end = $4 }
		/^resident memory:/ { peak = $(NF - 2) }
		END {
			printf "target: first full screen %.1f ms (<= 200 ms: %s)\n", first, first <= 200 ? "met" : "NOT met"
			printf "target: redraw after End %.1f ms (<= 50 ms: %s)\n", end, end <= 50 ? "met" : "NOT met"
			printf "target: resident memory peak %.1f MiB (<= 64 MiB: %s)\n", peak, peak <= 64 ? "met" : "NOT met"
		}'
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}

if [ -n "${VXT_BENCH_TUI_FILE:-}" ]; then
	[ -r "$VXT_BENCH_TUI_FILE" ] || { echo "tui bench: cannot read $VXT_BENCH_TUI_FILE"; exit 1; }
	echo "-- $VXT_BENCH_TUI_FILE, $(du -h "$VXT_BENCH_TUI_FILE" | cut -f1) file"
	bench "$VXT_BENCH_TUI_FILE"
	exit 0
fi
T=$(mktemp -d "${VXT_BENCH_TUI_DIR:-${TMPDIR:-/tmp}}/vxt-tui.XXXXXX")
trap 'rm -rf "$T"' EXIT
for n in "$small" "$big"; do
	# about 10.5 bytes an event; room for the file and 1 GB to spare
	need=$(awk -v n="$n" 'BEGIN { printf "%d", n * 10.5 / 1024 + 1048576 }')
	free=$(df -Pk "$T" | awk 'NR == 2 { print $4 }')
	if [ "$free" -lt "$need" ]; then
		echo "-- $n events: skipped, $((free / 1024)) MiB free in $T, $((need / 1024)) MiB needed (VXT_BENCH_TUI_DIR)"
		continue
	fi
	"$B/vxrecord" --source sim -c "$n" -o "$T/t.vxt" -q -f
	echo "-- $n events, $(du -h "$T/t.vxt" | cut -f1) file"
	# as a user gets it after another program read the file: a warm page cache
	bench "$T/t.vxt"
	rm -f "$T/t.vxt"
done
