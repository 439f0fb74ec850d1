#!/bin/sh
# small.sh - at 60x15 the panels share the height by priority: the event list
# keeps four events at least, the timeline its smallest plot, and
# the heatmap, squeezed out, is one row naming the objects with errors it
# would show (most first, counted from the batch CSV); a heatmap with fewer rows than objects says
# which rows with errors are out of sight; Left/Right scroll the list's
# columns sideways with the time column kept; the help wraps at word breaks
# and scrolls to its last line.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
"$B/vxreplay" "$T/s.vxt" --report events --format csv > "$T/ev.csv"
# errors per object, most first: "sdb 30, dm-0 10, sda 5"
errs() {
	awk -F, -v skip="$1" 'NR > 1 && $3 == "done" && $9 != 0 && index(" " skip " ", " " $2 " ") == 0 { e[$2]++ }
		END { for (o in e) print e[o], o }' "$T/ev.csv" | sort -k1,1nr -k2 |
		awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }'
}
all=$(errs "")
[ -n "$all" ] || fail "no errors in the trace"

start 60 15 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
wait_idle
rows=$(screen | sed -n '/TIME .*OBJECT/,$p' | grep -Ec '^ +[0-9]+\.[0-9]{6} ')
[ "$rows" -ge 4 ] || fail "60x15: $rows event rows, want at least 4 (was 2)"
screen | grep -q '^errors ' || fail "60x15: the timeline is gone"
first=$(echo "$all" | cut -d, -f1)
screen | grep -Fq "Heatmap hidden, 3 rows short; errors: $first" ||
	fail "60x15: the heatmap's row should say it is hidden and name '$first' first"
ok "60x15: $rows events, the timeline, 'Heatmap hidden ... errors: $first'"

screen | grep -q 'TIME .*STATUS' && fail "60x15: STATUS fits? the scroll test needs it cut"
screen | grep -Eq '^ Events .*[0-9]+ of [0-9]+ columns \(Left/Right\)' || fail "the list does not say columns are cut"
keys Right
wait_for 'TIME +PHASE'
keys Right Right Right Right Right Right Right Right
wait_for 'TIME +LATENCY +STATUS +PID +COMM'
screen | grep -Eq '^ +[0-9]+\.[0-9]{6} ' || fail "the time column scrolled away"
keys Left Left Left Left Left Left Left Left Left Left
wait_for 'TIME +OBJECT +PHASE'
ok "Left/Right scroll the columns, the time stays"

keys '?'
wait_for 'vxreplay help'
screen | grep -q 'squeezed out says so' || fail "help: a paragraph is not wrapped"
# every help row ends at a word: no row is cut at the screen's edge
screen | sed -n '3,13p' | awk 'length($0) >= 60 { bad = 1 } END { exit bad }' ||
	fail "help: a row runs to the edge (cut, not wrapped)"
keys NPage NPage NPage NPage NPage NPage NPage NPage NPage NPage
wait_for 'come back when it is opened again\.'
ok "help wraps at word breaks and scrolls to its end"
keys Escape

# a heatmap with fewer rows than objects names the rows with errors it hides
busy=$(awk -F, 'NR > 1 && $3 == "start" { n[$2]++ } END { for (o in n) print n[o], o }' "$T/ev.csv" |
	sort -k1,1nr | awk 'NR <= 2 { printf "%s ", $2 }')
hidden=$(errs "$busy")
start 100 20 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
wait_idle
if [ -n "$hidden" ]; then
	wait_for "2 of 4 rows, errors out of sight: $hidden"
	ok "100x20: '2 of 4 rows, errors out of sight: $hidden'"
else
	wait_for '2 of 4 rows'
	ok "100x20: '2 of 4 rows' (the rows out of sight have no errors)"
fi
