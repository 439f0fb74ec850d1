#!/bin/sh
# export.sh - x writes the view as CSV equal to `vxreplay FILE --report events
# --format csv` (with the same --filter or --profile when one is applied), and
# as JSON with the same events.
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

# the view is what is shown: under a filter, the filtered events
"$B/vxreplay" "$T/s.vxt" --report events --format csv --filter 'object == sdb' >"$T/want-sdb.csv"
keys /
wait_for 'Filter:'
keys C-u
text 'object == sdb'
keys Enter
wait_for "events $(($(wc -l <"$T/want-sdb.csv") - 1))/120000" 20
keys x
wait_for 'Export view to'
keys C-u
text "$T/view-sdb.csv"
keys Enter
wait_for "exported [0-9]+ events to $T/view-sdb.csv" 20
cmp -s "$T/want-sdb.csv" "$T/view-sdb.csv" ||
	{ diff "$T/want-sdb.csv" "$T/view-sdb.csv" | head; fail "filtered CSV differs"; }
ok "x under a filter: CSV equals --report events --filter"

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

# with a speculation profile: the committed events, as the batch report keeps them
"$B/vxreplay" "$T/s.vxt" --report events --format csv --profile errors-in-context >"$T/want-ctx.csv"
start 120 40 "$B/vxreplay" "$T/s.vxt" --profile errors-in-context
wait_for 'spec on errors-in-context: [0-9]+ committed' 30
keys x
wait_for 'Export view to'
keys C-u
text "$T/view-ctx.csv"
keys Enter
wait_for "exported [0-9]+ events to $T/view-ctx.csv" 20
cmp -s "$T/want-ctx.csv" "$T/view-ctx.csv" ||
	{ diff "$T/want-ctx.csv" "$T/view-ctx.csv" | head; fail "speculation view CSV differs"; }
ok "x with errors-in-context: CSV equals --report events --profile"
keys q
wait_for '^\[exit 0\]'

# an existing file is replaced only when the user says so
echo precious >"$T/keep.csv"
start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 120000/120000'
keys x
wait_for 'Export view to'
keys C-u
text "$T/keep.csv"
keys Enter
wait_for "keep.csv exists: Enter again replaces it, Esc keeps it"
keys Escape
[ "$(cat "$T/keep.csv")" = precious ] || fail "x replaced an existing file without asking"
ok "x: an existing file is kept unless confirmed"
keys x
wait_for 'Export view to'
keys C-u
text "$T/keep.csv"
keys Enter
wait_for "keep.csv exists"
keys Enter
wait_for "exported 120000 events to $T/keep.csv" 20
cmp -s "$T/want.csv" "$T/keep.csv" || fail "the confirmed export differs"
[ "$(stat -c %a "$T/view.csv")" = 600 ] || fail "export not created 0600"
ok "x: Enter again replaces it"
keys x
wait_for 'Export view to'
keys C-u
text "$T/s.vxt"
keys Enter
wait_for "s.vxt: is the input file"
keys Escape
ok "x: never over the trace itself"
keys q
wait_for '^\[exit 0\]'
