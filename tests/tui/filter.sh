#!/bin/sh
# filter.sh - / applies a filter and the counts follow it; a bad filter shows
# its error and keeps the old one; an empty one clears it; n finds matches.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
total=300000
sdb=$("$B/vxreplay" "$T/s.vxt" --report events --objects sdb --format csv | sed 1d | wc -l)
[ "$sdb" -gt 0 ] && [ "$sdb" -lt "$total" ] || fail "sdb has $sdb events"

start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for "events $total/$total"
keys /
wait_for '^Filter:'
text 'object == sdb'
keys Enter
wait_for "events $sdb/$total" 20
screen | grep -q 'filter object == sdb' || fail "header shows the filter"
screen | sed -n '/TIME .*OBJECT/,$p' | sed '1d;$d' | grep -v '^ *$' | grep -vq ' sdb ' &&
	fail "a row of another object is listed"
ok "/ object == sdb: $sdb of $total events"

keys /
wait_for '^Filter: object == sdb'
keys C-u
text 'op == wrte'
keys Enter
wait_for "filter:1:7: unknown op 'wrte'"
screen | grep -q "events $sdb/$total" || fail "the count changed after a bad filter"
screen | grep -q 'filter object == sdb' || fail "the old filter was lost"
keys Escape
wait_for '^\?Help'
screen | grep -q 'filter object == sdb' || fail "the old filter was lost after Esc"
ok "a bad filter shows its error and keeps the old one"

keys e
wait_for 'cursor 1\.00'
screen | grep -E '^ +1\.00[0-9]+ ' | grep -q ' sdb .*EIO' || fail "e: the first sdb error"
ok "e under a filter"

keys g '\'
wait_for '^Search:'
text 'error == EIO && bytes == 64k'
keys Enter
wait_for 'cursor 1\.00'
n1=$(screen | grep -o 'cursor [0-9.]*s')
keys n
sleep 0.3
n2=$(screen | grep -o 'cursor [0-9.]*s')
[ "$n1" != "$n2" ] || fail "n did not move"
keys N
wait_for "$n1"
ok "search with n / N"

keys /
keys C-u Enter
wait_for "events $total/$total"
screen | grep -q 'filter none' || fail "the filter was not cleared"
ok "an empty filter clears it"

keys /
wait_for '^Filter:'
keys Up
wait_for '^Filter: object == sdb'
keys Enter
wait_for "events $sdb/$total" 20
ok "Up recalls the last filter"
keys q
wait_for '^\[exit 0\]'
