#!/bin/sh
# heatmap_many.sh - objects past the heatmap's 64 rows are never left out
# without a word: two hosts of 40 objects each (80 as host:object), the
# title says how many objects are not in it and their errors, against a
# brute-force count from the events (the 64 busiest by starts are rows).
. "$VXT_TOP/tests/tui/tmux.inc"

spec=$(i=1; while [ $i -le 40 ]; do printf 'd%d:rand:70:4096:100us:%d,' $i $((50 - i)); i=$((i + 1)); done)
spec=${spec%,}
"$B/vxrecord" -q -s sim -c 100000 --host ha --sim-objects "$spec" --sim-errors 'd40@1+5:EIO' \
	-o "$T/a.vxt" || fail "vxrecord a"
"$B/vxrecord" -q -s sim -c 100000 --seed 2 --host hb --sim-objects "$spec" \
	--sim-errors 'd40@1+7:EIO' -o "$T/b.vxt" || fail "vxrecord b"
"$B/vxreplay" "$T/a.vxt" "$T/b.vxt" --report events --format csv > "$T/ev.csv" || fail "events"
# objects by starts, busiest first; past the 64th: how many, and their errors
set -- $(awk -F, 'NR > 1 && $3 == "start" { s[$2]++ } NR > 1 && $3 == "done" && $9 != 0 { e[$2]++ }
	END { for (o in s) print s[o], o, e[o] + 0 }' "$T/ev.csv" | sort -rn |
	awk 'NR > 64 { n++; err += $3 } END { print n + 0, err + 0 }')
left=$1 lerr=$2
[ "$left" = 16 ] && [ "$lerr" -gt 0 ] || fail "reference: $left objects past 64, $lerr errors"

start 200 50 "$B/vxreplay" "$T/a.vxt" "$T/b.vxt"
wait_for 'Heatmap by object'
screen | grep -q "+$left objects not in it ($lerr errors; o lists them)" ||
	fail "the heatmap does not say +$left objects ($lerr errors): $(screen | grep Heatmap)"
ok "+$left objects past the heatmap's rows, $lerr errors among them, said in its title"
keys q
wait_for '^\[exit 0\]'
