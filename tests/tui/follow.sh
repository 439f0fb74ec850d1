#!/bin/sh
# follow.sh - a file still being written opens with what is there and F
# follows new data; a truncated file opens with what can be recovered and
# says so.
. "$VXT_TOP/tests/tui/tmux.inc"

"$B/vxrecord" --source sim --realtime --rate 20000 -d 6s -o "$T/f.vxt" -q &
rec=$!
sleep 2
start 120 40 "$B/vxreplay" "$T/f.vxt"
wait_for 'events [0-9]+/[0-9]+'
screen | grep -q 'no footer: recovered by scan' || fail "a growing file is not marked as recovered"
count() { screen | sed -n 's/.*events \([0-9]*\)\/.*/\1/p'; }
n1=$(count)
keys F
wait_for 'following'
sleep 2
n2=$(count)
[ "$n2" -gt "$n1" ] || fail "following: $n1 then $n2 events"
ok "F follows a growing file: $n1 -> $n2 events"
wait "$rec" || fail "vxrecord failed"
sleep 1.5
total=$("$B/vxreplay" "$T/f.vxt" --report summary --format json |
	sed -n 's/.*"events": *\([0-9]*\).*/\1/p' | head -n 1)
wait_for "events $total/$total"
ok "all $total events once the recorder closed the file"
keys F q
wait_for '^\[exit 0\]'

# a file opened before its first chunk is written
"$B/vxrecord" --source sim --realtime --rate 20000 -d 4s -o "$T/g.vxt" -q &
rec=$!
n=0
while [ ! -s "$T/g.vxt" ] && [ $n -lt 50 ]; do sleep 0.02; n=$((n + 1)); done
start 120 40 "$B/vxreplay" "$T/g.vxt" --follow
wait_for 'following'
wait "$rec" || fail "vxrecord failed"
total=$("$B/vxreplay" "$T/g.vxt" --report summary --format json |
	sed -n 's/.*"events": *\([0-9]*\).*/\1/p' | head -n 1)
wait_for "events $total/$total" 10
screen | grep -Eq 'span 4\.0[0-9]*s|span 3\.99' || fail "the window does not cover the file"
screen | grep -q 'Errors  0\.000000\.\.[34]\.' || fail "the timeline does not start at the first event"
ok "--follow from an empty file: all $total events, the window over the whole file"
keys q
wait_for '^\[exit 0\]'

# a file cut in the middle of a chunk
"$B/vxrecord" --source sim -c 300000 -o "$T/s.vxt" -q
size=$(wc -c <"$T/s.vxt")
head -c $((size * 6 / 10)) "$T/s.vxt" >"$T/cut.vxt"
start 120 40 "$B/vxreplay" "$T/cut.vxt"
wait_for 'events [0-9]+/[0-9]+'
screen | grep -Eq 'damaged at [0-9]+|no footer: recovered by scan' || fail "damage not reported"
kept=$(count)
[ "$kept" -gt 0 ] && [ "$kept" -lt 300000 ] || fail "recovered $kept events"
keys G
wait_for "#$((kept - 1)) "
ok "a truncated file opens with $kept recovered events and says so"
keys q
wait_for '^\[exit 0\]'
