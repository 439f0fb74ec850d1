#!/bin/sh
# sql_prompt.sh - vxreplay --sql - on a terminal: the prompt, a statement over
# two lines, a long query showing its running time and stopped by Ctrl-C
# (the prompt goes on), Ctrl-C at the prompt dropping the line, .quit.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 20000 3
start 120 40 "$B/vxreplay" "$T/s.vxt" --sql -
wait_for '^vxsql>'
text "SELECT count(*) AS n"
keys Enter
wait_for '   \.\.\.>'
text 'FROM events\;'
keys Enter
wait_for '^20000'
ok "a statement over two lines"
text 'SELECT count(*) FROM events a, events b WHERE a.bytes + b.bytes = 1\;'
keys Enter
wait_for 'running [0-9.]+ s; Ctrl-C interrupts' 10
ok "a long query shows its running time"
keys C-c
wait_for 'sql:1:1: interrupted' 10
wait_for '^vxsql>$'
ok "Ctrl-C stops it and the prompt goes on"
# an unclosed quote kept in the buffer would swallow the next statement
text "SELECT 'dropped"
keys C-c
text 'SELECT 6 * 7\;'
keys Enter
wait_for '^42'
ok "Ctrl-C at the prompt drops the line"
text ".quit"
keys Enter
wait_for '^\[exit 0\]'
ok ".quit leaves with status 0"
