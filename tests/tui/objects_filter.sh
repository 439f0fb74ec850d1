#!/bin/sh
# objects_filter.sh - the o table under a filter: its figures are those of the
# events the filter shows, gathered by the filter's counting (the reference
# counts the done events of the batch CSV with awk), the status says which
# figures they are, and Enter adds the object to the filter instead of
# replacing it.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
"$B/vxreplay" "$T/s.vxt" --report events --format csv > "$T/all.csv" || fail "csv"
# done events with latency > 5ms, per object: ios and errors
awk -F, 'NR > 1 && $3 == "done" && $8 > 5000000 { n[$2]++; if ($9 != 0) e[$2]++ }
	END { for (o in n) print o, n[o], e[o] + 0 }' "$T/all.csv" | sort -k2,2nr > "$T/want"
read -r obj ios errs < "$T/want" || fail "no slow I/O in the trace"
both=$(awk -F, -v o="$obj" 'NR > 1 && $8 > 5000000 && $2 == o' "$T/all.csv" | wc -l)
slow=$(awk -F, 'NR > 1 && $8 > 5000000' "$T/all.csv" | wc -l)

start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
# zoomed in: the window's chunks are counted by the binning, the others by
# the filter's counting; both feed the figures
keys + + + + +
wait_idle
keys /
wait_for '^Filter:'
text 'latency > 5ms'
keys Enter
wait_for "events $slow/300000" 60	# counted to the end: the figures are complete
keys o
wait_for 'filtered: latency > 5ms'
while read -r o n e; do
	screen | grep -Eq "^.?$o +[a-z]+ +$n +.* $e +[0-9.]+[mun]?s" ||
		fail "o under the filter: $o should show $n I/Os and $e errors"
done < "$T/want"
ok "o under 'latency > 5ms': the filtered figures of every object"
# the busiest row is first: Enter adds it to the filter
keys Enter
wait_for "filter \\(latency > 5ms\\) && object == \"$obj\""
wait_idle
wait_for "events $both/300000" 20
ok "Enter on $obj: (latency > 5ms) && object == \"$obj\", $both events"
