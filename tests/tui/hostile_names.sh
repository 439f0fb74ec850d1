#!/bin/sh
# hostile_names.sh - the browser draws names from a crafted trace escaped
# (cli/mkhostile.c): an OSC title, OSC 52 and clear-screen sequences never
# reach the terminal, a newline in a name keeps its row, and the objects
# table and the detail overlay show the same escapes.
. "$VXT_TOP/tests/tui/tmux.inc"

build_tool mkhostile "$VXT_TOP/tests/cli/mkhostile.c"
"$T/mkhostile" "$T/h.vxt" || fail "mkhostile"
start 140 40 "$B/vxreplay" "$T/h.vxt"
wait_for 'events 60/60'
tm set-option -w -t t allow-rename off >/dev/null 2>&1
wait_for '\\e\]0;PWNED\\a'
ok "the OSC title name is drawn escaped"
tm display -p -t t '#{pane_title}' | grep -q PWNED && fail "the pane title was set by a name"
ok "the pane title is untouched"
screen | grep -q 'two\\nlines' || { keys End; wait_for 'two\\nlines'; }
# the row holding the newline name is one screen row: the next event follows
screen | grep -F 'two\nlines' | grep -q '107' || fail "the newline name's row lost its pid"
screen | grep -A1 -F 'two\nlines' | tail -n 1 | grep -q '108' ||
	fail "the row after the newline name is not the next event"
ok "a newline in a name keeps its row"
screen | grep -q 'PWNED$' && fail "a bare PWNED at a line end: the escape reached the screen"
keys o
wait_for 'sd,b"x\\nfor'
ok "the objects table shows the escaped object name"
keys Escape
keys q
wait_for '^\[exit 0\]'
