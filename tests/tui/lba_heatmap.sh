#!/bin/sh
# lba_heatmap.sh - the LBA heatmap of one object: rows over the span its I/O
# touched (round rows of 1/2/5 x 10^k sectors), labelled with sectors as the
# event list's SECTOR column, no row cut at 120x40 or 120x50; z zooms, ] pans,
# and the title counts the I/Os outside; a profile's 64 rows say they are cut;
# the shipped hot-lba shows the busiest object.
# Brute force over `--report events --format csv` of the object.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
"$B/vxreplay" "$T/s.vxt" --report events --format csv | awk -F, '$2 == "sdb"' >"$T/sdb.csv"
[ -s "$T/sdb.csv" ] || { echo "FAIL: no sdb events"; exit 1; }
set -- $("$B/vxreplay" "$T/s.vxt" --report events --format csv |
	awk -F, 'NR == 2 { t0 = $1 } NR > 1 { l = $1 } END { printf "%.0f %.0f\n", t0, l + 1 - t0 }')
t0=$1 tspan=$2

# open_lba W H: the browser at W x H with sdb's LBA heatmap (o, its row, l)
open_lba() {
	start "$1" "$2" "$B/vxreplay" "$T/s.vxt"
	wait_for 'events 300000/300000'
	wait_idle
	keys o
	wait_for '^OBJECT '
	n=$(screen | awk '/^OBJECT / { h = NR } /^sdb / { print NR - h - 1; exit }')
	[ -n "$n" ] || fail "sdb not in the object table"
	while [ "$n" -gt 0 ]; do keys Down; n=$((n - 1)); done
	keys l
	wait_for '^ Heatmap sdb by LBA: sectors'
	# the rows fit the span once the binning has seen it
	wait_for '^ Heatmap sdb by LBA: sectors [0-9]+-[0-9]+ in [0-9]+ rows of [0-9]+ +z/Z zoom' 20
	wait_idle
}

# want_rows ROWS: "first row" of the smallest round row size covering the span
want_rows() {
	awk -F, -v rows="$1" '($3 == "start" || $3 == "done") {
		e = $6 + int(($7 + 511) / 512); if (e <= $6) e = $6 + 1
		if (!n++ || $6 < lo) lo = $6; if (e > hi) hi = e }
	END { for (p = 1; ; p *= 10) { split("1 2 5", m, " ")
		for (k = 1; k <= 3; k++) { r = p * m[k]; f = int(lo / r) * r
			if (f + r * rows >= hi) { printf "%.0f %.0f\n", f, r; exit } } } }' "$T/sdb.csv"
}

check_span() {
	title=$(screen | grep '^ Heatmap sdb by LBA')
	rows=$(echo "$title" | sed -n 's/.* in \([0-9]*\) rows of.*/\1/p')
	set -- $(want_rows "$rows")
	want="sectors $1-$(($1 + $2 * rows - 1)) in $rows rows of $2 "
	echo "$title" | grep -q "$want" || fail "span: want '$want' in '$title'"
	echo "$title" | grep -q 'shown' && fail "rows cut: $title"
	first=$1 row=$2
	# every row: its label, and cells where (and only where) I/O completed in it
	top=$(screen | grep -n '^ Heatmap sdb by LBA' | cut -d: -f1)
	i=0
	while [ $i -lt "$rows" ]; do
		l=$(line $((top + 1 + i)))
		lab=$(echo "$l" | cut -c1-8 | tr -d ' ')
		s=$((first + i * row))
		[ "$s" -ge 100000000 ] || [ "$lab" = "$s" ] || fail "row $i label '$lab' want $s"
		# the time bins holding a completion in the row (111 over the span; bin 0
		# holds the cursor) against the columns with a cell
		wb=$(awk -F, -v a="$s" -v b="$((s + row))" -v t0="$t0" -v sp="$tspan" \
			'$3 == "done" && $6 >= a && $6 < b { k = int(($1 - t0) * 111 / sp); if (k) print k }' \
			"$T/sdb.csv" | sort -un | tr '\n' ' ')
		gb=$(echo "$l" | sed 's/[^ ]/#/g' | cut -c10- | awk '{ n = split($0, c, ""); for (k = 2; k <= n; k++)
			if (c[k] != " ") printf "%d ", k - 1 }')
		[ "$wb" = "$gb" ] || fail "row $i: cells in bins [$gb] want [$wb]"
		i=$((i + 1))
	done
	ok "${W}x$H: $rows rows of $row from $first, labels and cells"
}

W=120 H=40
open_lba $W $H
check_span
# z: half the range around its middle; the I/Os outside it are counted
span=$((row * rows))
keys z
c=$((first + span / 2)) ns=$((span / 2))
nf=$((c - ns / 2))
out=$(awk -F, -v a="$nf" -v b="$((nf + ns))" '$3 == "done" && ($6 < a || $6 >= b)' "$T/sdb.csv" | wc -l)
wait_for "^ Heatmap sdb by LBA: sectors $nf-$((nf + ns - 1)) in $rows rows of $((ns / rows))  $out I/Os outside" 20
ok "z: sectors $nf-$((nf + ns - 1)), $out I/Os outside"
# ]: half a range higher
keys ']'
nf2=$((nf + ns / 2))
wait_for "^ Heatmap sdb by LBA: sectors $nf2-"
ok "]: from $nf2"
keys q
wait_for '^\[exit 0\]'

W=120 H=50
open_lba $W $H
check_span
keys q
wait_for '^\[exit 0\]'

# a profile's 64 rows do not fit: the title says which are shown
mkdir "$T/prof"
printf 'name: lba\nheatmap: {rows: lba, object: sdb, buckets: 64}\n' >"$T/prof/lba.yaml"
start 120 40 "$B/vxreplay" "$T/s.vxt" --profile "$T/prof/lba.yaml"
wait_for 'events 300000/300000'
wait_idle
wait_for '^ Heatmap sdb by LBA: sectors .* in 64 rows of .*  rows 1-9 of 64 shown'
ok "64 rows: 1-9 shown, said"
keys q
wait_for '^\[exit 0\]'

# the shipped hot-lba names no device: the busiest object of the file (most
# completed I/Os, by the objects report)
busiest=$("$B/vxreplay" "$T/s.vxt" --report objects --format csv |
	awk -F, 'NR > 1 && $4 > n { n = $4; o = $1 } END { print o }')
start 120 40 "$B/vxreplay" "$T/s.vxt" --profile hot-lba
wait_for 'events 300000/300000'
wait_idle
wait_for "^ Heatmap $busiest by LBA: sectors"
ok "hot-lba: the busiest object, $busiest"
keys q
wait_for '^\[exit 0\]'
