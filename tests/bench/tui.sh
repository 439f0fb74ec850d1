#!/bin/sh
# tui.sh - the browser's speed and memory (vxreplay --bench): first full
# screen after start, redraw after each navigation key, the stepped work
# (exact timeline, a filter over the whole file) and resident memory, on the
# simulator's workload at two sizes, so memory growth with the file shows.
# The --bench mode draws to a virtual 120x40 terminal through ncurses; its
# keys go through every panel (timeline metrics and lanes, the latency
# histogram, the per-process view, the I/O listing), and "redraw after End"
# times End from the first screen. The first screen reads the index only, so
# it grows with the number of chunks (a chunk holds about 22k events): for
# 1000M events set VXT_BENCH_TUI_EVENTS=1000000000 (a 10 GB file, about 15
# minutes of recording here).
# VXT_BENCH_TUI_FILE=F benches an existing file F instead (e.g. a 1000M-event
# file recorded once: vxrecord -s sim -c 1000000000 -o F).
#   env: VXT_BENCH_TUI_EVENTS (default 100000000), VXT_BENCH_TUI_SMALL (default 10000000),
#        VXT_BENCH_TUI_FILE (none)
set -e
B=$VXT_BUILD
big=${VXT_BENCH_TUI_EVENTS:-100000000}
small=${VXT_BENCH_TUI_SMALL:-10000000}
if [ -n "${VXT_BENCH_TUI_FILE:-}" ]; then
	[ -r "$VXT_BENCH_TUI_FILE" ] || { echo "tui bench: cannot read $VXT_BENCH_TUI_FILE"; exit 1; }
	echo "-- $VXT_BENCH_TUI_FILE, $(du -h "$VXT_BENCH_TUI_FILE" | cut -f1) file"
	"$B/vxreplay" "$VXT_BENCH_TUI_FILE" --bench | sed 1d
	exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for n in "$small" "$big"; do
	"$B/vxrecord" --source sim -c "$n" -o "$T/t.vxt" -q -f
	echo "-- $n events, $(du -h "$T/t.vxt" | cut -f1) file"
	# cold start as a user gets it after another program read the file: a warm page cache
	"$B/vxreplay" "$T/t.vxt" --bench | sed 1d
	rm -f "$T/t.vxt"
done
