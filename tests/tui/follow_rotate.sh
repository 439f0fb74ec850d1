#!/bin/sh
# follow_rotate.sh - the browser's follow mode follows the path as tail -F
# does: when vxrecord --rotate renames the file away, the new file of that
# name is opened, a message says so, and its events keep coming.
. "$VXT_TOP/tests/tui/tmux.inc"

"$B/vxrecord" --source sim --realtime --rate 5000 -d 8s --rotate 3s -o "$T/r.vxt" -q &
rec=$!
sleep 1
start 120 40 "$B/vxreplay" --follow "$T/r.vxt"
wait_for 'following'
i=0
while [ ! -e "$T/r.1.vxt" ] && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$T/r.1.vxt" ] || fail "the recorder did not rotate"
wait_for 'r\.vxt was rotated: following the new file' 3
count() { screen | sed -n 's/.*events \([0-9]*\)\/.*/\1/p'; }
sleep 1
n1=$(count)
sleep 1.5
n2=$(count)
[ "$n2" -gt "$n1" ] || fail "after the rotation: $n1 then $n2 events"
ok "after the rotation the new file is followed: $n1 -> $n2 events"
wait "$rec" || fail "vxrecord failed"
[ -e "$T/r.1.vxt" ] || fail "the recorder did not rotate"
keys q
wait_for '^\[exit 0\]'
