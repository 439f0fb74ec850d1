#!/bin/sh
# spec_filter.sh - the speculation view over a / filter: filter first, then
# speculation (formats/profile.md), so the events shown and the header's
# counts are those of `vxreplay --profile errors-in-context --filter EXPR`;
# a new filter with the view on recomputes it, clearing it restores the whole.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
# expected counts from the batch path (the CSV has a header line)
kept() {
	"$B/vxreplay" "$T/s.vxt" --profile errors-in-context ${1:+--filter "$1"} \
		--report events --format csv >"$T/k.csv" || { echo "batch report failed"; exit 1; }
	echo $(($(wc -l <"$T/k.csv") - 1))
}
n_all=$(kept "")
n_sdb=$(kept "object == sdb")
n_wr=$(kept "op == write")
[ "$n_sdb" -gt 0 ] && [ "$n_sdb" -lt "$n_all" ] && [ "$n_wr" -lt "$n_all" ] ||
	{ echo "FAIL: unexpected batch counts $n_all $n_sdb $n_wr"; exit 1; }

start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
keys /
text 'object == sdb'
keys Enter
wait_for 'filter object == sdb'
keys s
sleep 0.5
screen | grep -q 'speculation is not available' && { echo "no speculation engine in this build"; exit 77; }
wait_for 'spec on errors-in-context: [0-9]+ committed' 30
wait_idle
wait_for "events $n_sdb/300000"
ok "filter then speculation: $n_sdb events, as the batch path"
# every row listed is on sdb
for k in 1 2 3; do
	screen | sed -n '/SPEC .*TIME .*OBJECT/,$p' | sed '1d;$d' | awk '$2 ~ /^[0-9]/ { print $3 }' |
		grep -v '^sdb$' && fail "a row not on sdb"
	keys NPage NPage
	sleep 0.3
done
ok "only sdb rows"

# a new filter with the view on: the view is recomputed
keys /
keys C-u
text 'op == write'
keys Enter
wait_for 'filter op == write'
wait_for 'spec on errors-in-context: [0-9]+ committed' 30
wait_idle
wait_for "events $n_wr/300000"
ok "new filter: $n_wr events"

# no filter: the whole speculation view
keys /
keys C-u
keys Enter
wait_for 'filter none'
wait_for 'spec on errors-in-context: [0-9]+ committed' 30
wait_idle
wait_for "events $n_all/300000"
ok "filter cleared: $n_all events"
keys q
wait_for '^\[exit 0\]'
