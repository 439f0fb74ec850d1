#!/bin/sh
# heat_bins.sh - a profile's `heatmap.bins: N` gives the heatmap N time bins
# over the window, each drawn as a block of equal columns (the error timeline
# keeps a bin per column); the title says how many bins of what width;
# `bins: auto` keeps a bin per column.
. "$VXT_TOP/tests/tui/tmux.inc"

W=120 NB=111	# plot columns: width - 8 (labels) - 1
make_trace "$T/s.vxt" 300000
mkdir "$T/prof"
cat >"$T/prof/tenbins.yaml" <<'YAML'
name: tenbins
heatmap: {rows: objects, metric: iops, bins: 10}
YAML
cat >"$T/prof/autobins.yaml" <<'YAML'
name: autobins
heatmap: {rows: objects, metric: iops, bins: auto}
YAML

# heatmap rows (ASCII), their plot columns only
rows() {
	screen | sed -n '/^ Heatmap /,/ errors$/p' | sed '1d;$d' | cut -c10-
}

start $W 40 "$B/vxreplay" --ascii --profile-dir "$T/prof" --profile tenbins "$T/s.vxt"
wait_for 'events 300000/300000'
wait_idle
rows >"$T/rows"
[ "$(wc -l <"$T/rows")" -ge 4 ] || fail "no heatmap rows"
grep -q x "$T/rows" || fail "no error overlay in the heatmap"
# every screen column shows its bin's cell: within a bin, one character
# (the cursor '|' may sit on an empty cell)
awk -v nb=$NB '{ for (x = 0; x < nb; x++) { b = int(x * 10 / nb); c = substr($0, x + 1, 1)
		if (c == "|") continue
		if ((NR, b) in cell && cell[NR, b] != c) { print "row " NR " bin " b ": " cell[NR, b] " then " c; bad = 1 }
		cell[NR, b] = c } } END { exit bad }' "$T/rows" || fail "a bin drawn with different cells"
# and the errors fill whole bins
awk -v nb=$NB '{ n = gsub(/x/, "x"); if (n && n < int(nb / 10)) { print "row " NR ": " n " error columns"; bad = 1 } }
	END { exit bad }' "$T/rows" || fail "errors narrower than a bin"
screen | grep -Eq 'Heatmap by object, busiest first  10 bins of 601\.[0-9]ms' ||
	fail "the title does not give the bins"
ok "10 heatmap bins of equal width"
keys q
wait_for '^\[exit 0\]'

start $W 40 "$B/vxreplay" --ascii --profile-dir "$T/prof" --profile autobins "$T/s.vxt"
wait_for 'events 300000/300000'
wait_idle
screen | grep -q 'busiest first  [0-9]* bins of' && fail "auto: no bins in the title"
rows >"$T/rows"
awk '{ n = gsub(/x/, "x"); if (n >= 11) bad = 1 } END { exit bad }' "$T/rows" ||
	fail "auto: errors as wide as a tenth of the window"
ok "bins: auto keeps a bin per column"
keys q
wait_for '^\[exit 0\]'

# more bins than columns: a bin per column, and the title says so
sed 's/bins: 10/bins: 500/; s/tenbins/manybins/' "$T/prof/tenbins.yaml" >"$T/prof/manybins.yaml"
start $W 40 "$B/vxreplay" --ascii --profile-dir "$T/prof" --profile manybins "$T/s.vxt"
wait_for 'events 300000/300000'
wait_for 'busiest first  500 bins do not fit: one per column'
ok "500 bins on 111 columns: one per column"
keys q
wait_for '^\[exit 0\]'
