#!/bin/sh
# histogram.sh - b: the latency histogram of the cursor's object over the
# window, a row per log2 bucket; its counts and the p50 / p99 marks against
# brute force over `--report events --format csv`; Left/Right go through the
# objects and "all objects"; Q2C and the queue time say they are not available.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv"
# want OBJ: "count count ... | p50-row p99-row" for the done events of OBJ
# ("" = all), buckets from the fastest to the slowest non-empty one
want() {
	awk -F, -v o="$1" 'NR > 1 && $3 == "done" && (o == "" || $2 == o) {
		k = 0; while (2 ^ (k + 1) <= $8 && k < 31) k++; h[k]++; n++
		if (lo == "" || k < lo) lo = k; if (k > hi) hi = k }
	END { for (k = lo; k <= hi; k++) printf "%d ", h[k] + 0
		r50 = n * 0.5; r50 = r50 == int(r50) ? r50 : int(r50) + 1
		r99 = n * 0.99; r99 = r99 == int(r99) ? r99 : int(r99) + 1
		for (k = lo; k <= hi; k++) { c += h[k]
			if (c >= r50 && !p50) p50 = k - lo + 1; if (c >= r99 && !p99) p99 = k - lo + 1 }
		printf "| %d %d\n", p50, p99 }' "$T/ev.csv"
}
# got: the same from the screen
got() {
	screen | awk '/^  LATENCY / { on = 1; next } on && /I\/OS|^ *$/ { exit }
		on { r++; printf "%s ", $4; if (/<- p50/) p50 = r; if (/p99/) p99 = r }
		END { printf "| %d %d\n", p50, p99 }'
}

start 120 50 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
wait_idle
keys b
wait_for '^ Latency D2C  nvme0n1  '
w=$(want nvme0n1) g=$(got)
[ "$g" = "$w" ] || fail "nvme0n1: got [$g] want [$w]"
n=$(awk -F, '$2 == "nvme0n1" && $3 == "done"' "$T/ev.csv" | wc -l)
screen | grep -q "^ Latency D2C  nvme0n1  .*  $n I/Os" || fail "nvme0n1: $n I/Os in the title"
ok "nvme0n1: buckets and p50/p99 rows [$g]"
keys Right
wait_for '^ Latency D2C  dm-0  '
w=$(want dm-0) g=$(got)
[ "$g" = "$w" ] || fail "dm-0: got [$g] want [$w]"
ok "Right: dm-0 [$g]"
keys Left Left
wait_for '^ Latency D2C  all objects  '
w=$(want "") g=$(got)
[ "$g" = "$w" ] || fail "all: got [$g] want [$w]"
ok "all objects [$g]"
keys 2
wait_for '^ Latency Q2C  '
screen | grep -q 'breakdown not available: the trace holds issue and completion only' || fail "Q2C: not available"
keys 3
wait_for '^ Latency queue \(Q2D\)  '
screen | grep -q 'breakdown not available' || fail "queue: not available"
ok "Q2C and queue time: not available"
keys Escape
wait_for '^ Events'
keys q
wait_for '^\[exit 0\]'
