#!/bin/sh
# lost.sh - lost events are counted in the header (highlighted), marked
# under the timeline where they happened, and listed.
. "$VXT_TOP/tests/tui/tmux.inc"

build_tool mklost "$VXT_TOP/tests/tui/mklost.c"
"$T/mklost" "$T/lost.vxt" || fail "mklost failed"

start 120 40 "$B/vxreplay" "$T/lost.vxt"
wait_for 'lost 1234'
wait_idle
screen_esc | grep 'lost' | grep -q "$(printf '\033')\[[0-9;]*m1234" || fail "lost count not highlighted"
# 111 bins over 9.99 s: the records at 2.5 s and 7.5 s fall in bins 27 and 83
axis=$(screen | grep '^errors ' | head -n 1 | sed 's/[─┃]/-/g' | cut -c10-)
got=$(printf '%s\n' "$axis" | awk '{ n = split($0, c, ""); for (i = 1; i <= n; i++) if (c[i] == "!") print i - 1 }' | tr '\n' ' ')
[ "$got" = "27 83 " ] || fail "lost marks at [$got], want [27 83 ]"
ok "header: lost 1234, highlighted; marks under bins 27 and 83"
keys j
text 2.5
keys Enter
wait_for 'lost 1000'
screen | grep -Eq '^ +2\.500000 +- +lost +lost 1000 ' || fail "the lost record is listed"
ok "the lost record is listed"
keys q
wait_for '^\[exit 0\]'
