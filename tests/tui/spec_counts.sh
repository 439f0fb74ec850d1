#!/bin/sh
# spec_counts.sh - the speculation figures in the header add up: "K of M
# events kept = C from the committed buffers + A after their triggers + T
# traced", C the engine's committed events, K the events shown,
# M every event of the file, K what --profile errors-in-context keeps in
# batch; and the header names what s runs when no profile was given.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
total=$("$B/vxreplay" "$T/s.vxt" --report events --format csv | tail -n +2 | wc -l)
batch=$("$B/vxreplay" "$T/s.vxt" --profile errors-in-context --report events --format csv |
	tail -n +2 | wc -l)
[ "$total" = 300000 ] && [ "$batch" -gt 0 ] || fail "references: total $total, batch $batch"

start 250 30 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
screen | grep -q 'profile none' || fail "the header before s: $(screen | head -3)"
keys s
sleep 0.5
screen | grep -q 'speculation is not available' && { echo "no speculation engine in this build"; exit 77; }
wait_for 'spec on errors-in-context: [0-9]+ committed' 30
wait_idle
screen | grep -q 'profile none (s runs errors-in-context)' ||
	fail "the header does not say what s runs: $(screen | head -3)"
line=$(screen | tr '\n' ' ')
set -- $(echo "$line" | sed -n 's/.* \([0-9]*\) of \([0-9]*\) events kept = \([0-9]*\) from the committed buffers + \([0-9]*\) after their triggers + \([0-9]*\) traced.*/\1 \2 \3 \4 \5/p')
[ $# = 5 ] || fail "no 'K of M events kept = C + A + T' in the header: $line"
k=$1 m=$2 c=$3 a=$4 t=$5
shown=$(echo "$line" | sed -n 's/.*events \([0-9]*\)\/300000.*/\1/p')
[ "$k" = $((c + a + t)) ] || fail "kept $k != $c from the buffers + $a after + $t traced"
[ "$m" = "$total" ] || fail "of $m events, the file has $total"
[ "$k" = "$shown" ] || fail "kept $k, the header shows $shown events"
[ "$k" = "$batch" ] || fail "kept $k, --profile errors-in-context keeps $batch"
# C and A against the batch summary's own count of committed events
want_c=$("$B/vxreplay" "$T/s.vxt" --profile errors-in-context --report summary --format json |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["speculation"]["committed_events"])')
[ "$want_c" = "$c" ] || fail "from the buffers $c, the summary says '$want_c' committed events"
ok "kept $k of $m = $c from the buffers + $a after their triggers + $t traced, as shown and as in batch"
keys q
wait_for '^\[exit 0\]'
