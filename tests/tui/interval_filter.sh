#!/bin/sh
# interval_filter.sh - the browser's filter prompt on the interval fields:
# `/ q2c > X` shows exactly the completions whose own queue-to-completion
# time awk finds above X (tests/cli/ivpair.awk over the events CSV of the
# imported real blktrace capture), every row a completion; `/ !(q2d <= X)`
# keeps every earlier phase (an interval is unknown there: false).
. "$VXT_TOP/tests/tui/tmux.inc"

centos7_intervals
total=$(($(wc -l <"$T/ev.csv") - 1))
median() {
	awk -v c="$1" '$c != "-" { print $c }' "$T/iv" | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}
q2c=$(median 6) q2d=$(median 4)
big=$(awk -v x="$q2c" '$6 != "-" && $6 > x' "$T/iv" | wc -l)
small=$(awk -v x="$q2d" '$4 != "-" && $4 <= x' "$T/iv" | wc -l)
[ "$big" -gt 10 ] || fail "awk: only $big completions with q2c > $q2c"

start 160 60 "$B/vxreplay" "$T/c.vxt"
wait_for "events $total/$total"
keys /
wait_for '^Filter:'
text "q2c > ${q2c}ns"
keys Enter
wait_for "events $big/$total" 20
rows=$(screen | sed -n '/TIME .*OBJECT/,$p' | sed '1d;$d' | grep -v '^ *$')
[ -n "$rows" ] || fail "no row listed"
printf '%s\n' "$rows" | grep -vq ' done ' && fail "a row other than a completion is listed"
ok "/ q2c > ${q2c}ns: $big of $total events, completions only"

keys /
wait_for '^Filter:'
keys C-u
text "!(q2d <= ${q2d}ns)"
keys Enter
wait_for "events $((total - small))/$total" 20
ok "/ !(q2d <= ${q2d}ns): $((total - small)) of $total events"

# the filter the browser starts with (--filter)
start 160 60 "$B/vxreplay" "$T/c.vxt" --filter "'q2c > ${q2c}ns'"
wait_for "events $big/$total" 20
ok "--filter 'q2c > ${q2c}ns' at start: $big of $total events"
keys q
wait_for '^\[exit 0\]'
