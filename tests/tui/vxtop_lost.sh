#!/bin/sh
# vxtop_lost.sh - lost events are never hidden: following a trace that is
# being written with lost records (1000 at 2.5 s, 234 at 7.5 s), the batch
# output counts them per interval and in total, and the live header shows
# the total, highlighted.
. "$VXT_TOP/tests/tui/tmux.inc"

build_tool mklost "$VXT_TOP/tests/tui/mklost.c"

# live_trace FILE: mklost writes FILE as it happens; returns once it exists
live_trace() {
	"$T/mklost" "$1" live &
	i=0
	while [ ! -s "$1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$1" ] || fail "mklost made no file"
}

# batch: 4 intervals of 1 s from about 0.1 s on see the first lost record
live_trace "$T/b.vxt"
"$B/vxtop" -b -c 4 -i 1s -F json --follow "$T/b.vxt" </dev/null >"$T/b.json" 2>"$T/err" ||
	fail "vxtop -b --follow: $(cat "$T/err")"
python3 - "$T/b.json" <<'PY' || fail "batch lost counts"
import json, sys
doc = json.load(open(sys.argv[1]))
lost = [iv["lost"] for iv in doc]
print("lost per interval:", lost, "total", doc[-1]["lost_total"])
assert sum(lost) == 1000 and lost.count(1000) == 1, lost
assert doc[-1]["lost_total"] == 1000, doc[-1]["lost_total"]
PY
ok "batch: 1000 lost in one interval and in the total"

# live: the header's count, highlighted, then the second record adds up
live_trace "$T/l.vxt"
start 120 30 "$B/vxtop" --follow "$T/l.vxt"
wait_for 'lost 1000 ' 5
screen_esc | sed -n 1p | grep -q "lost .*$(printf '\033')\\[[0-9;]*m1000" ||
	fail "lost count not highlighted"
wait_for 'lost 1234 ' 9
ok "header: lost 1000, highlighted, then 1234"
keys q
wait_for '^\[exit 0\]'
wait
