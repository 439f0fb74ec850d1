#!/bin/sh
# vxtop_procs.sh - vxtop's P screen (vxreplay's key): the last interval's I/O
# per process and object, busiest first, each row a (pid, command, object)
# vxreplay --report processes finds in the same file, at most its I/Os; P
# again returns to the object table.
. "$VXT_TOP/tests/tui/tmux.inc"

"$B/vxrecord" -q -s sim --seed 3 -d 3s --rate 20000 -o "$T/s.vxt" || fail "vxrecord"
"$B/vxreplay" "$T/s.vxt" --report processes --format csv >"$T/all.csv" || fail "processes report"
start 120 30 "$B/vxtop" --follow "$T/s.vxt" -i 1s
wait_for 'source ended'
keys P
wait_for '^\[processes\]'
wait_for '^ +PID COMM +OBJECT +I/Os +KiB +AVG +P99'
screen | awk '/^ +PID COMM/ { f = 1; next } f && NF == 7 { print $1, $2, $3, $4 }' >"$T/rows"
n=$(wc -l <"$T/rows")
[ "$n" -ge 3 ] || fail "only $n process rows"
prev=
while read -r pid comm obj ios; do
	all=$(awk -F, -v p="$pid" -v c="$comm" -v o="$obj" '$1 == p && $2 == c && $3 == o { print $4 }' \
		"$T/all.csv")
	[ -n "$all" ] || fail "row $pid $comm $obj: no such process in the file"
	[ "$ios" -le "$all" ] || fail "row $pid $comm $obj: $ios I/Os in an interval, $all in the file"
	[ -z "$prev" ] || [ "$ios" -le "$prev" ] || fail "rows not busiest first: $ios after $prev"
	prev=$ios
done <"$T/rows"
ok "P: $n rows, each a process of the file, busiest first"
keys P
wait_for '^OBJECT '
ok "P again: the object table"
keys q
