#!/bin/sh
# vxtop_narrow.sh - vxtop's header at 60 columns: every field is whole (a
# label with its value, never cut or painted over), the counts that must
# never be hidden (source, interval, uptime, events/s, lost) are on the first
# line, PAUSED takes its own place, and a resize gives the long labels back.
. "$VXT_TOP/tests/tui/tmux.inc"

# fields LINE: the line's fields, one per line (separated by two spaces)
fields() { screen | sed -n "${1}p" | sed 's/^vxtop //; s/   */  /g; s/ *$//' | awk -F '  ' '{ for (i = 1; i <= NF; i++) print $i }'; }
# whole LINE: every field of LINE is one the header draws, complete
whole() {
	fields "$1" | while IFS= read -r f; do
		echo "$f" | grep -Eq '^(sim|(iv|interval) [0-9.]+m?s|up [0-9]+:[0-9]{2}:[0-9]{2}|(ev|events) [0-9.]+[kM]?/s|lost [0-9]+|(err|errors) [0-9]+|(tot|total) [0-9.]+[kM]?|\[objects\]|sort [^ ]+ (asc|desc)|filter [^ ]+|(obj|objects) [0-9]+ \([0-9]+ idle\)|shown [0-9:]{8}|PAUSED)$' ||
			{ echo "$f"; return 1; }
	done
}

start 60 20 "$B/vxtop" -s sim --seed 2
wait_for '^OBJECT' 5
sleep 1.2
bad=$(whole 1) || fail "line 1 has a cut or garbled field: '$bad'"
bad=$(whole 2) || fail "line 2 has a cut or garbled field: '$bad'"
for f in 'sim' 'iv ' 'up ' 'ev ' 'lost '; do
	fields 1 | grep -q "^$f" || fail "line 1 lacks '$f'"
done
[ "$(screen | sed -n 1p | cut -c1-10)" = "vxtop sim " ] || fail "line 1 does not start with the program and source"
ok "60 columns: whole fields, source, interval, uptime, events/s and lost on line 1"

keys ' '
wait_for 'PAUSED' 2
bad=$(whole 2) || fail "paused: line 2 has a cut field: '$bad'"
screen | sed -n 2p | grep -Eq ' PAUSED *$' || fail "PAUSED is not at the end of line 2"
ok "paused: PAUSED beside whole fields"

resize 150 30
wait_for '^vxtop sim  interval ' 3
bad=$(whole 1) || fail "150 columns: line 1 has a cut field: '$bad'"
screen | sed -n 2p | grep -q 'objects [0-9]* (' || fail "150 columns: no long labels on line 2"
ok "150 columns: the long labels"
keys q
wait_for '\[exit 0\]' 3
