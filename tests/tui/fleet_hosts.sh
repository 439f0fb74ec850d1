#!/bin/sh
# fleet_hosts.sh - the browser over two hosts' files: the header names both
# hosts and counts the events and errors of both, the heatmap lists each
# host's objects as host:object, the event list and object table name them
# whole.
. "$VXT_TOP/tests/tui/tmux.inc"

"$B/vxrecord" -q -s sim -c 60000 --seed 3 --host alpha -o "$T/a.vxt" || fail "vxrecord alpha"
"$B/vxrecord" -q -s sim -c 40000 --seed 5 --host beta --clock-offset 1s -o "$T/b.vxt" ||
	fail "vxrecord beta"
errs=$("$B/vxreplay" "$T/a.vxt" "$T/b.vxt" --report summary --format csv | tail -n 1 | cut -d, -f9)
[ "$errs" -gt 0 ] || fail "no errors in the two traces"
start 120 40 "$B/vxreplay" "$T/a.vxt" "$T/b.vxt"
wait_for 'events 100000/100000'
wait_idle
screen | grep -q 'alpha,beta' || fail "header: hosts alpha,beta"
screen | grep -q "errors $errs " || fail "header: errors $errs"
ok "header names both hosts and counts both"
# heatmap labels keep the object whole, the host cut first: 8 columns
for o in alph:sdb beta:sdb alph:sda a:nvme0n b:nvme0n; do
	screen | grep -q "^$o " || fail "heatmap row $o"
done
ok "heatmap rows host:object"
# the event list's object column holds whole host:object names
screen | grep -Eq ' (alpha|beta):(sda|sdb|nvme0n1|dm-0) +(start|done) ' ||
	fail "event list: no whole host:object name: $(screen | sed -n 20,22p)"
screen | grep -Eq ' (alpha|beta):(nvme0n|nvme0|dm-|sd)( |$)' &&
	fail "event list: a host:object name cut: $(screen | grep -E ' (alpha|beta):' | head -n 2)"
ok "event list names host:object whole"
keys o
wait_for 'OBJECT'
for o in alpha:sdb beta:sdb alpha:nvme0n1 beta:nvme0n1 alpha:dm-0 beta:dm-0; do
	screen | grep -q "^$o  " || fail "object table row $o"
done
ok "object table names host:object"
keys Escape
keys q
wait_for '^\[exit 0\]'
