#!/bin/sh
# navigate.sh - mouse clicks on the timeline and the heatmap jump there,
# + / - zoom, t / T step a bin, the object table filters to an object and
# shows its LBA heatmap, marks are listed and jumped to, Esc cancels work.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
wait_idle

# X10 mouse report of a button 1 press and release at 0-based (x, y)
click() {
	text "$(printf '\033[M %b%b' "\\$(printf '%03o' $(($1 + 33)))" "\\$(printf '%03o' $(($2 + 33)))")"
	text "$(printf '\033[M#%b%b' "\\$(printf '%03o' $(($1 + 33)))" "\\$(printf '%03o' $(($2 + 33)))")"
}
# timeline: 111 bins over 6.0115 s after a 9-column label; column 70 is bin 61
click 70 7
wait_for 'cursor 3\.30[0-9]*s'
ok "click on the timeline: bin 61 -> 3.30 s"
# heatmap row of sdb, column 9 + 18 = bin 18 (0.97 s)
y=$(( $(screen | grep -n '^sdb ' | cut -d: -f1) - 1 ))
click 27 "$y"
wait_for 'cursor 0\.97[0-9]*s'
ok "click on the heatmap: bin 18 -> 0.97 s"
# the click focused the heatmap: Down moves its row, Tab goes on to the list
keys Tab

bin() { screen | sed -n 's/.* bin \([0-9][0-9.]*[a-z]*\).*/\1/p' | head -n 1; }
[ "$(bin)" = 54.2ms ] || fail "bin width $(bin)"
keys +
wait_for ' bin 27.1ms'
keys +
wait_for ' bin 13.5ms'
screen | grep -q 'Errors  0\.000000\.\.' && fail "zoomed window still starts at 0"
keys - -
wait_for ' bin 54.2ms'
ok "+ / - zoom around the cursor"

keys L
wait_for '^ Errors by object'
# lanes sit in the timeline rows, one per object, errors at their bins
screen | sed -n '5,11p' | grep -E '^sdb ' | cut -c10- | grep -q '^ *[░▒▓█]' || fail "L: sdb lane"
screen | sed -n '5,11p' | grep -E '^nvme0n1 ' | cut -c10- | grep -q '[░▒▓█]' && fail "L: nvme0n1 has no errors"
keys L
wait_for '^ Errors  '
ok "L: error lanes per object"

keys g t t
wait_for 'cursor 0\.108[0-9]*s'
keys T
wait_for 'cursor 0\.054[0-9]*s'
ok "t / T: one bin"

keys o
wait_for '^ Objects'
screen | grep -Eq '^sdb +sim +[0-9]+ ' || fail "object table row sdb"
screen | grep -E '^sdb ' | grep -Eq ' 30 +[0-9.]+[mu]?s *$' || fail "object table: sdb has 30 errors"
keys Down Down
# busiest first: nvme0n1, dm-0, sdb, sda
n=sdb
[ "$(screen | grep -E '^(nvme0n1|dm-0|sdb|sda) ' | awk '{ print $1 }' | tr '\n' ' ')" = "nvme0n1 dm-0 sdb sda " ] ||
	fail "object table order"
keys Enter
wait_for "filter object == \"$n\""
ok "o, Enter: filter to $n"
keys o
wait_for '^ Objects'
# under the filter, the only object with I/O is the busiest: the first row
screen | sed -n '/^OBJECT/,$p' | sed -n 2p | grep -Eq "^.?$n " || fail "o under the filter: $n first"
keys Home l
wait_for "^ Heatmap $n by LBA"
keys H
wait_for '^ Heatmap by object'
ok "o, l: LBA heatmap of $n; H: back"
keys /
keys C-u Enter
wait_for 'filter none'

keys g m Down Down m
wait_for 'marked event #2'
keys "'"
wait_for '^ Marks'
screen | grep -Eq '^ +1 +#0 ' || fail "mark 1"
screen | grep -Eq '^ +2 +#2 ' || fail "mark 2"
keys Down Enter
wait_for '#2  300000 shown'
keys g "'" Enter
wait_for '#0  300000 shown'
ok "m, ': marks listed and jumped to"

# the wheel (X10 buttons 5 and 4) moves one event a notch
text "$(printf '\033[Ma5(')"
wait_for '#1  300000 shown'
text "$(printf '\033[Ma5(')"
wait_for '#2  300000 shown'
text "$(printf '\033[M`5(')"
wait_for '#1  300000 shown'
text "$(printf '\033[M`5(')"
wait_for '#0  300000 shown'
ok "mouse wheel: one event a notch"

keys /
text 'latency > 3ms && op == read'
keys Enter Escape
wait_for 'cancelled'
screen | grep -q 'events >=' || fail "a cancelled count is not shown as partial"
ok "Esc cancels the counting of a new filter"
keys q
wait_for '^\[exit 0\]'
