#!/bin/sh
# filter_progress.sh - a new filter over a large file is counted in steps:
# the key bar shows how far the count is (never 100% while the header's count
# is still a lower bound), Esc cancels it (the count stays a lower bound, the
# decoding threads stop, keys work), and a count run to the end equals the
# batch report's.
. "$VXT_TOP/tests/tui/tmux.inc"

N=6000000
F='op == write && latency > 1ms'
make_trace "$T/s.vxt" $N
want=$("$B/vxreplay" "$T/s.vxt" --filter "$F" --report events --format csv | wc -l)
want=$((want - 1))

start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for "events $N/$N"
wait_idle
pid=$(tm list-panes -t t -F '#{pane_pid}')
app=$(ps -o pid= --ppid "$pid" | head -n 1 | tr -d ' ')
[ -n "$app" ] || fail "no vxreplay process"

# progress while counting
keys /
text "$F"
keys Enter
seen=0 k=0
while [ $k -lt 300 ]; do
	s=$(screen)
	if printf '%s\n' "$s" | tail -n 1 | grep -q 'Esc:cancel'; then
		p=$(printf '%s\n' "$s" | tail -n 1 | sed -n 's/.*counting \([0-9]*\)%.*/\1/p')
		if [ -n "$p" ] && printf '%s\n' "$s" | grep -q "events >=[0-9]*/$N"; then
			[ "$p" -lt 100 ] || fail "counting $p% while the count is a lower bound"
			seen=$((seen + 1))
		fi
	else
		[ $seen -gt 0 ] && break
	fi
	k=$((k + 1))
done
[ $seen -gt 0 ] || { echo "the count ended before a frame showed it"; exit 77; }
wait_idle
wait_for "events $want/$N"
ok "progress shown $seen times; count $want as the batch report"

# Esc while a new filter is counted
keys /
keys C-u
text 'op == read && latency > 1ms'
keys Enter
# Esc while the count is well under way, so it cannot end before the key
k=0
until screen | tail -n 1 | grep -Eq 'counting [0-4]?[0-9]%'; do
	k=$((k + 1))
	[ $k -lt 300 ] || { echo "the count ended before Esc"; exit 77; }
done
keys Escape
wait_for 'cancelled'
screen | grep -q "events >=[0-9]*/$N" || fail "a cancelled count should stay a lower bound"
screen | tail -n 1 | grep -q 'Esc:cancel' && fail "still busy after Esc"
th=$(awk '/^Threads:/ { print $2 }' /proc/$app/status)
[ "$th" = 1 ] || fail "$th threads after Esc: the decoding threads did not stop"
ok "Esc cancels the count and stops its threads"
keys G
wait_for 'cursor 1[0-9][0-9]\.'
ok "keys work after the cancel"
keys q
wait_for '^\[exit 0\]'
