#!/bin/sh
# vxtop_live.sh - the live view in a real terminal (tmux): the simulator's
# objects at their configured rates, sorting keys reorder the table, the error
# ticker shows the scheduled errors, pause freezes the table while counting
# goes on, the other screens open, and q / SIGTERM restore the terminal.
. "$VXT_TOP/tests/tui/tmux.inc"

header_total() { screen | sed -n '1s/.* total \([^ ]*\).*/\1/p'; }
num() {	# "7.5k" -> 7500
	echo "$1" | awk '{ v = $1; m = 1; if (v ~ /k$/) m = 1000; if (v ~ /M$/) m = 1e6;
		sub(/[kM]$/, "", v); printf "%d\n", v * m }'
}
near() {	# near VALUE WANT PERCENT
	awk -v v="$1" -v w="$2" -v p="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }'
}

# 24000 events/s = 12000 I/O/s: alpha 2400 (reads), beta 7200 (writes), gamma
# 2400; 1 in 200 I/Os is a flush. Errors at 1 s, 1.5 s and, during the pause, 6 s.
OBJS="alpha:rand:100:4k:1ms:1,beta:rand:0:8k:2ms:3,gamma:seq:50:64k:3ms:1"
ERRS="beta@1s+7:EIO,alpha@1500ms+3:ENOSPC,gamma@6s+4:EIO"
start 150 40 "$B/vxtop -s sim --seed 3 --rate 24000 --sim-objects '$OBJS' --sim-errors '$ERRS'" \
	"--sort r/s; echo EXIT=\$? >$T/exit"

# --- objects and rates
wait_for "^alpha " 5
sleep 2.5
r=$(row alpha); set -- $r
near "$(num "$2")" $((2400 * 995 / 1000)) 10 || fail "alpha r/s $2, want ~2388"
r=$(row beta); set -- $r
near "$(num "$3")" $((7200 * 995 / 1000)) 10 || fail "beta w/s $3, want ~7164"
row gamma | grep -q . || fail "gamma missing"

# --- the header: source, interval, uptime of the view, events/s, lost
screen | sed -n 1p | grep -Eq '^vxtop sim +interval 1\.00s +up 0:00:0[1-9] +events 2[0-9.]+k/s +lost 0 ' ||
	fail "header lacks source, interval, uptime, events/s or lost"
# --- every row has its trend of the last intervals under "IO/s trend"
trend() { screen | awk -v n="$1" '/^OBJECT/ { c = index($0, "IO/s trend") }
	c && $1 == n { s = substr($0, c); gsub(/ /, "", s); print s; exit }'; }
[ -n "$(trend alpha)" ] && [ -n "$(trend gamma)" ] || fail "no trend drawn for alpha or gamma"

# --- sorting: by r/s alpha leads; '>' sorts by w/s (beta leads); 'I' reverses
[ "$(first_row)" = alpha ] || fail "sorted by r/s, first row $(first_row)"
keys '>'
wait_for "sort w/s desc" 2
[ "$(first_row)" = beta ] || fail "sorted by w/s, first row $(first_row)"
keys 'I'
wait_for "sort w/s asc" 2
[ "$(first_row)" = alpha ] || fail "sorted by w/s ascending, first row $(first_row)"
keys '<' '<'
wait_for "sort OBJECT" 2
[ "$(first_row)" = alpha ] || fail "sorted by name, first row $(first_row)"
# F6: the sort menu; Esc leaves it unchanged, Enter picks (wMB/s: gamma
# writes ~78 MB/s, beta ~59)
keys F6
wait_for "Sort by \\(Enter, Esc\\)" 2
keys Down Escape
sleep 0.3
screen | grep -q "Sort by" && fail "Esc left the sort menu open"
screen | grep -q "sort OBJECT" || fail "Esc in the sort menu changed the sort"
keys F6
wait_for "Sort by \\(Enter, Esc\\)" 2
keys Down Down Down Down Enter
wait_for "sort wMB/s desc" 2
screen | grep -q "Sort by" && fail "Enter left the sort menu open"
[ "$(first_row)" = gamma ] || fail "sorted by wMB/s, first row $(first_row)"

# --- the error ticker
wait_for "errors since start: 10" 3
screen | grep -q "beta EIO x7" || fail "ticker lacks beta EIO x7"
screen | grep -q "alpha ENOSPC x3" || fail "ticker lacks alpha ENOSPC x3"
screen | grep -q "alpha .*read .*ENOSPC" || fail "ticker lacks an alpha read ENOSPC line"
# each with its sector: the same seeded simulator, recorded by vxrecord
"$B/vxrecord" -s sim --seed 3 --rate 24000 --sim-objects "$OBJS" --sim-errors "$ERRS" -d 2s \
	-o "$T/e.vxt" -q || fail "vxrecord of the same simulation failed"
secs=$("$B/vxreplay" "$T/e.vxt" --report errors | awk '$3 == "alpha" && $4 == "read" { print $5 }')
[ "$(echo $secs | wc -w)" = 3 ] || fail "the recorded simulation has alpha errors at [$secs]"
for s in $secs; do
	screen | grep -Eq "alpha +read +sector $s +[0-9.]+KiB +ENOSPC" ||
		fail "ticker lacks alpha's read error at sector $s"
done

# --- pause: the table freezes, the header keeps counting (gamma fails at 6 s)
keys ' '
wait_for "PAUSED" 2
before=$(screen | sed -n '3,7p')
total1=$(header_total)
# gamma's errors come at 6 s of the run: the header counts them while paused
wait_for "errors 14 " 8
sleep 1.2
screen | grep -q "PAUSED" || fail "pause lost"
[ "$(screen | sed -n '3,7p')" = "$before" ] || fail "table changed while paused"
total2=$(header_total)
[ "$(num "$total2")" -gt "$(num "$total1")" ] || fail "no counting while paused ($total1 -> $total2)"
keys ' '
sleep 0.5
screen | grep -q "PAUSED" && fail "still paused"
screen | grep -q "gamma EIO x4" || fail "ticker lacks the errors made during the pause"

# --- other screens
keys Enter
wait_for "op mix" 2
screen | grep -q "latency" || fail "detail without latency histogram"
screen | grep -q "LBA heatmap" || fail "detail without LBA heatmap"
keys Escape
wait_for "^OBJECT" 2
keys h
wait_for "heatmap of IO/s" 2
for o in alpha beta gamma; do
	# a cell per interval of the run so far (error marks take one or two)
	n=$(row $o | sed "s/^$o//" | tr -d ' ' | wc -m)
	[ "$n" -ge 6 ] || fail "the heatmap strip of $o has $n cells"
done
keys M
wait_for "heatmap of MiB/s" 2
keys e
wait_for "ENOSPC" 2
screen | grep -q "^TIME" || fail "error list without its table"
# e again: the next (older) error comes first, as vxreplay's e; E back
err_row() { screen | awk -v k="$1" '/^TIME/ { for (i = 0; i < k; i++) getline; print; exit }'; }
second=$(err_row 2)
first=$(err_row 1)
keys e
sleep 0.3
[ "$(err_row 1)" = "$second" ] || fail "e did not move to the next error"
keys E
sleep 0.3
[ "$(err_row 1)" = "$first" ] || fail "E did not move back to the previous error"
keys '?'
wait_for "Keys" 2
keys Escape
keys Escape
# --- filter
keys f
wait_for "filter \\(glob" 2
keys 'b' 'e' '*' Enter
wait_for "filter be\*" 2
row alpha | grep -q . && fail "alpha shown with filter be*"
row beta | grep -q . || fail "beta hidden with filter be*"
# --- interval
keys D
wait_for "interval 2.00s" 2
keys d d
wait_for "interval 500.0ms" 2
screen | grep -q "^vxtop .*interval 500.0ms" || fail "header does not show the new interval"

# --- q quits and restores the terminal
keys q
i=0; while [ ! -s "$T/exit" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "EXIT=0" "$T/exit" 2>/dev/null || fail "q: no clean exit ($(cat "$T/exit" 2>/dev/null))"
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] || fail "terminal left in the alternate screen"

# --- SIGTERM restores the terminal too
rm -f "$T/exit"
tm respawn-pane -k -t t "sh -c 'echo \$\$ >$T/pid; exec $B/vxtop -s sim'; echo EXIT=\$? >$T/exit; sleep 60"
wait_for "^OBJECT" 5
pid=$(cat "$T/pid" 2>/dev/null)
[ -n "$pid" ] || fail "no vxtop process"
kill -TERM "$pid"
i=0; while [ ! -s "$T/exit" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
grep -q "EXIT=" "$T/exit" 2>/dev/null || fail "SIGTERM: vxtop did not stop"
[ "$(tm display -p -t t '#{alternate_on}')" = 0 ] || fail "SIGTERM left the alternate screen on"
echo ok
