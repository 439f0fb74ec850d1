#!/bin/sh
# keys.sh - e / E land on the errors (time and object), Enter shows the whole
# I/O, j jumps to a time (absolute, relative either way, wall clock), ? shows
# the help, q leaves the terminal sane.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv"
# relative time (6 decimals, truncated) and object of the first two errors
awk -F, 'NR == 2 { t0 = $1 } NR > 1 && $9 != 0 && n < 2 { d = $1 - t0;
	printf "%d.%06d %s\n", d / 1000000000, (d % 1000000000) / 1000, $2; n++ }' \
	"$T/ev.csv" >"$T/errs"
set -- $(cat "$T/errs")
t1=$1 o1=$2 t2=$3

start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
keys e
wait_for "cursor $t1"s
ok "e: cursor at the first error's time $t1"
keys Enter
wait_for '^ Event #'
screen | grep -Eq "object +$o1 " || fail "detail: object $o1"
screen | grep -Eq 'status +EIO' || fail "detail: status EIO"
screen | grep -Eq '^ +start +#[0-9]+ ' || fail "detail: the I/O's start"
screen | grep -Eq '^ +done +#[0-9]+ .*latency .*EIO' || fail "detail: the I/O's completion"
ok "Enter: detail of the error and its whole I/O on $o1"
keys Escape
wait_for '^ Events'
keys e
wait_for "cursor $t2"s
keys E
wait_for "cursor $t1"s
ok "E: back to the first error"

keys g
wait_for 'cursor 0.000000s'
keys j
wait_for 'Jump to:'
text '2.5'
keys Enter
wait_for 'cursor 2.500[0-9]*s'
ok "j 2.5"
keys j
text '+500ms'
keys Enter
wait_for 'cursor 3.000[0-9]*s'
ok "j +500ms"
# wall clock: the simulator's trace starts at 00:00:00 (its clock anchor, UTC)
keys j
text '00:00:04.25'
keys Enter
wait_for 'cursor 4\.250[0-9]*s 00:00:04\.25'
ok "j 00:00:04.25 (wall clock)"
keys j
text '3'
keys Enter
wait_for 'cursor 3\.000[0-9]*s'
keys j
text 'yesterday'
keys Enter
wait_for "not a time: 'yesterday'"
keys Escape
wait_for 'cursor 3.000[0-9]*s'
ok "j: a bad time is refused, the cursor stays"
keys j
tm send-keys -t t -l -- '-500ms'	# text() would read it as a flag
keys Enter
wait_for 'cursor 2\.500[0-9]*s'
ok "j -500ms"

keys G
wait_for 'cursor 6.011[0-9]*s'
ok "G: the end"
keys Home
wait_for 'cursor 0\.000000s'
keys NPage
wait_for 'cursor 0\.[0-9]*[1-9][0-9]*s'
keys NPage
wait_for 'cursor 0\.[0-9]*[1-9][0-9]*s'
c2=$(screen | grep -o 'cursor [0-9.]*s')
keys PPage
sleep 0.3
c1=$(screen | grep -o 'cursor [0-9.]*s')
[ "$c1" != "$c2" ] && [ "$c1" != 'cursor 0.000000s' ] || fail "PgUp from '$c2' gave '$c1'"
keys PPage
wait_for 'cursor 0\.000000s'
keys End
wait_for 'cursor 6.011[0-9]*s'
ok "Home, PgDn, PgUp ($c2 -> $c1 -> 0), End"

keys '?'
wait_for 'vxreplay help'
screen | grep -q 'next / previous error' || fail "help lists e/E"
screen | grep -q 'filter expression' || fail "help lists /"
keys x
wait_for '^ Events'
ok "? help, any key closes"

keys q
wait_for '^\[exit 0\]'
wait_for '^-?icanon'
screen | grep -Eq '(^| )icanon( |$)' || fail "terminal left without icanon"
screen | grep -Eq '(^| )echo( |$)' || fail "terminal left without echo"
screen | grep -q 'Help' && fail "the browser's screen was not cleared"
ok "q: exit 0, terminal sane"
