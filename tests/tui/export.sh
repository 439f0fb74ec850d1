#!/bin/sh
# export.sh - x writes the view as CSV equal to `vxreplay FILE --report events
# --format csv`, and as JSON with the same events.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 120000 3
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/want.csv"
start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 120000/120000'
keys x
wait_for 'Export view to'
keys C-u
text "$T/view.csv"
keys Enter
wait_for "exported 120000 events to $T/view.csv" 20
cmp -s "$T/want.csv" "$T/view.csv" || { diff "$T/want.csv" "$T/view.csv" | head; fail "CSV differs"; }
ok "x: CSV equals --report events --format csv"

keys x
wait_for 'Export view to'
keys C-u
text "$T/view.json"
keys Enter
wait_for "exported 120000 events to $T/view.json" 20
if command -v python3 >/dev/null 2>&1; then
	n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$T/view.json") ||
		fail "JSON export does not parse"
	[ "$n" = 120000 ] || fail "JSON export has $n events"
fi
ok "x: JSON export"

keys x
wait_for 'Export view to'
keys C-u
text "$T/no/such/dir/v.csv"
keys Enter
wait_for 'cannot write'
keys Escape
ok "x: an unwritable path is reported"
keys q
wait_for '^\[exit 0\]'
