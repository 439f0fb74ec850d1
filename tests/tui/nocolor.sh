#!/bin/sh
# nocolor.sh - colours by default; none with NO_COLOR or on a terminal without
# colours (attributes only); the ASCII fallback without UTF-8; TERM=dumb gets
# the batch summary.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 50000
colours() { screen_esc | grep -Ec '\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5;[0-9]+|48;5;[0-9]+)(;[0-9;]*)?m'; }

start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 50000/50000'
wait_idle
[ "$(colours)" -gt 0 ] || fail "no colour on a colour terminal"
ok "colours by default"
keys q
wait_for '^\[exit 0\]'

start 120 40 env NO_COLOR=1 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 50000/50000'
wait_idle
[ "$(colours)" = 0 ] || fail "colour escapes with NO_COLOR"
screen_esc | grep -q "$(printf '\033')\[[0-9;]*7m" || fail "NO_COLOR: no reverse video for the selection"
screen | grep '^sdb ' | grep -q '×' || fail "NO_COLOR: errors overlaid on the heatmap"
ok "NO_COLOR: attributes only"
keys q
wait_for '^\[exit 0\]'

start 120 40 env LC_ALL=C LANG=C "$B/vxreplay" "$T/s.vxt"
wait_for 'events 50000/50000'
wait_idle
screen | LC_ALL=C grep -q "$(printf '\342')" && fail "UTF-8 bytes in the C locale"
screen | grep '^sdb ' | grep -q 'x' || fail "ASCII: errors overlaid on the heatmap"
screen | grep -q '^errors *|*-' || fail "ASCII: the timeline axis"
ok "C locale: ASCII drawing"
keys q
wait_for '^\[exit 0\]'

# TERM=dumb cannot hold the browser: the batch summary, as through a pipe
start 120 40 env TERM=dumb "$B/vxreplay" "$T/s.vxt"
wait_for '^\[exit 0\]'
screen | grep -q '^events: *50000 ' || fail "TERM=dumb: no summary"
screen_esc | grep -q "$(printf '\033')\[[0-9;]*[Hm]" && fail "TERM=dumb: escape sequences"
ok "TERM=dumb: the summary, no escape sequences"

# a terminal without colours gets the monochrome scheme
start 120 40 env TERM=vt100 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 50000/50000'
wait_idle
[ "$(colours)" = 0 ] || fail "colour escapes on a vt100"
screen | grep -q '^sdb ' || fail "vt100: heatmap rows"
ok "TERM=vt100: monochrome"
keys q
wait_for '^\[exit 0\]'
