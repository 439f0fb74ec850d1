#!/bin/sh
# resize.sh - the browser follows resizes to 80x24 and 200x60 with every
# panel in place and nothing left over from the previous size.
. "$VXT_TOP/tests/tui/tmux.inc"

check_layout() { # W H
	w=$1 h=$2
	[ "$(screen | wc -l)" -le "$h" ] || fail "${w}x$h: more than $h lines"
	[ "$(screen | wc -L)" -le "$w" ] || fail "${w}x$h: a line wider than $w"
	line 1 | grep -q '^vxreplay s.vxt ' || fail "${w}x$h: header on line 1"
	line 4 | grep -q '^ Errors ' || fail "${w}x$h: timeline title on line 4"
	[ "$(screen | grep -c '^ Heatmap ')" = 1 ] || fail "${w}x$h: one heatmap title"
	[ "$(screen | grep -c '^ Events')" = 1 ] || fail "${w}x$h: one event list title"
	[ "$(screen | grep -c 'TIME .*OBJECT .*PHASE')" = 1 ] || fail "${w}x$h: one column header"
	[ "$(screen | grep -c 'errors [0-9]')" = 1 ] || fail "${w}x$h: one header count line"
	line "$h" | grep -q '^?Help' || fail "${w}x$h: key bar on the last line"
	# every list row is a whole event row: time, object, phase
	screen | sed -n '/TIME .*OBJECT/,$p' | sed '1d;$d' | grep -v '^ *$' |
		grep -Evq '^ +[0-9]+\.[0-9]{6} +. *[a-z0-9-]+ +(start|done) ' &&
		fail "${w}x$h: a broken list row"
	ok "${w}x$h layout"
}

make_trace "$T/s.vxt" 100000
start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 100000/100000'
wait_idle
check_layout 120 40
resize 80 24
sleep 0.3
wait_idle
check_layout 80 24
# the errors are still on the timeline at the narrower width
screen | sed -n '5,9p' | grep -q '█' || fail "80x24: timeline bars"
resize 200 60
sleep 0.3
wait_idle
check_layout 200 60
screen | grep -q 'COMM' || fail "200x60: all columns"
[ "$(screen | grep -c '^ *[0-9]*\.[0-9]\{6\} ')" -ge 30 ] || fail "200x60: the list uses the height"
resize 80 24
sleep 0.3
check_layout 80 24
keys q
wait_for '^\[exit 0\]'
