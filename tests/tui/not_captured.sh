#!/bin/sh
# not_captured.sh - the timeline of a capture a profile filtered shades the
# time it kept nothing of as "not captured" (said in its title), where a
# whole capture shows no such thing; as many shaded columns as bins without
# an event, by brute force over the events CSV and the title's bin.
. "$VXT_TOP/tests/tui/tmux.inc"

"$B/vxrecord" -q -s sim --seed 3 -d 6s --rate 5000 --profile errors-in-context -o "$T/p.vxt" ||
	fail "vxrecord --profile"
make_trace "$T/w.vxt" 20000

start 120 30 "$B/vxreplay" "$T/w.vxt"
wait_for 'events 20000/20000'
wait_idle
keys c
wait_for '^ IOPS '
screen | grep -q 'not captured' && fail "a whole capture says not captured"
ok "a whole capture: nothing said not captured"
keys q
wait_for '^\[exit 0\]'

start 120 30 "$B/vxreplay" "$T/p.vxt"
wait_for 'events [0-9]+/[0-9]+ '
wait_idle
keys c
wait_for '^ IOPS .* not captured'
# one bin per column here: the columns shaded in the bars' top row are the
# bins holding no event of the profile's
screen >"$T/scr"
set -- $(python3 -c 'import sys
rows = open(sys.argv[1], encoding="utf-8").read().split("\n")
top = [i for i, r in enumerate(rows) if r.startswith(" IOPS ")][0] + 1
axis = [r for r in rows if r.startswith("IOPS ")][0]
print(rows[top][9:].count("\u2591"), len(axis) - 9)' "$T/scr")
shaded=$1 bins=$2
"$B/vxreplay" "$T/p.vxt" --export csv -o "$T/p.csv" || fail "export"
want=$(awk -F, -v n="$bins" 'NR == 2 { t0 = $1 } NR > 1 { last = $1; t[NR] = $1 }
	END { span = last + 1 - t0; for (k in t) c[int((t[k] - t0) * n / span)]++
	for (i = 0; i < n; i++) if (!c[i]) e++; print e + 0 }' "$T/p.csv")
[ "$want" -gt 0 ] || fail "the profile kept every bin of $bins"
[ "$shaded" -eq "$want" ] && ok "$shaded of $bins columns not captured" ||
	fail "$shaded columns shaded, $want of $bins bins hold no event"
keys q
wait_for '^\[exit 0\]'
