#!/bin/sh
# header_timeline.sh - the header's counts and the error timeline's marks
# sit where the simulator's scheduled errors are.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
wait_idle
screen | grep -q 'errors 45 ' || fail "header: errors 45"
screen | grep -Eq 'lost 0( |$)' || fail "header: lost 0"
screen | grep -q 'filter none' || fail "header: no filter"
screen | grep -q 'spec off' || fail "header: speculation off"
ok "header counts"

# Expected columns of the error bins: 111 bins (120 - label column) over the span.
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv"
awk -F, 'NR == 2 { t0 = $1 } NR > 1 { last = $1 } NR > 1 && $9 != 0 { e[NR] = $1 }
	END { span = last + 1 - t0; for (k in e) printf "%d\n", int((e[k] - t0) * 111 / span) }' \
	"$T/ev.csv" | sort -un >"$T/want"
[ -s "$T/want" ] || fail "no errors in the trace"
# The bottom bar row is the line above the axis ("errors" label), after 9 label columns.
screen | grep -n '^errors ' | head -n 1 | cut -d: -f1 >"$T/axis"
axis=$(cat "$T/axis")
[ -n "$axis" ] || fail "no timeline axis"
bars=$(line $((axis - 1)) | sed 's/[▁▂▃▄▅▆▇█]/#/g' | cut -c10-)
got=$(printf '%s\n' "$bars" | awk '{ n = split($0, c, ""); for (i = 1; i <= n; i++) if (c[i] != " ") print i - 1 }')
[ "$(echo "$got" | tr '\n' ' ')" = "$(tr '\n' ' ' <"$T/want")" ] ||
	fail "error bins: got [$(echo "$got" | tr '\n' ' ')] want [$(tr '\n' ' ' <"$T/want")]"
ok "timeline marks at the error bins: $(tr '\n' ' ' <"$T/want")"

# The heatmap lists the four simulated objects and overlays the errors.
for o in nvme0n1 dm-0 sdb sda; do
	screen | grep -q "^$o " || fail "heatmap row $o"
done
screen | grep '^sdb ' | grep -q '×' || fail "heatmap: sdb errors overlaid"
ok "heatmap rows"
keys q
wait_for '^\[exit 0\]'
