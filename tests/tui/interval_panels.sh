#!/bin/sh
# interval_panels.sh - the browser's Q2C and queue time (Q2D) on the
# imported real blktrace capture (every phase): the latency histogram (b, 2
# and 3: log2 buckets, p50 / p99 rows), the timeline's Q2C p50 / p99 (c:
# the scale is the busiest bin's value) and the heatmap's q2c-p50 / q2c-p99
# colours (M: the legend's range), and a profile's interval columns (q2d
# ... i2d, on each completion row), against awk alone over
# `--report events --format csv` (tests/cli/ivpair.awk pairs each completion
# with its own I/O). A simulator trace (issue and completion only) says the
# breakdown is not available.
. "$VXT_TOP/tests/tui/tmux.inc"

centos7_intervals
total=$(($(wc -l <"$T/ev.csv") - 1))
NB=51	# the timeline's bins at 60 columns: one per column right of the labels

# hist COL: "count count ... | p50-row p99-row" of column COL's known values,
# buckets from the fastest to the slowest non-empty one; pQ is the bucket of
# the int(Q * n + 0.5)-th smallest value (the first at least)
hist() {
	awk -v c="$1" '$c != "-" { print $c }' "$T/iv" | sort -n | awk '
	{ v[++n] = $1; k = 0; while (2 ^ (k + 1) <= $1 && k < 31) k++; h[k]++; b[n] = k
	  if (lo == "" || k < lo) lo = k; if (k > hi) hi = k }
	END { for (k = lo; k <= hi; k++) printf "%d ", h[k] + 0
		r50 = int(0.5 * n + 0.5); if (r50 < 1) r50 = 1
		r99 = int(0.99 * n + 0.5); if (r99 < 1) r99 = 1
		printf "| %d %d\n", b[r50] - lo + 1, b[r99] - lo + 1 }'
}
got() {
	screen | awk '/^  LATENCY / { on = 1; next } on && /I\/OS|^ *$/ { exit }
		on { r++; printf "%s ", $4; if (/<- p50/) p50 = r; if (/p99/) p99 = r }
		END { printf "| %d %d\n", p50, p99 }'
}
# bins Q: "MAX LO" over the timeline's bins of the per-bin quantile Q of Q2C
# by formats/reports.md's rule: the ceil(Q * n)-th smallest, as it is for up
# to 8 values or under 256 ns, else the top of its bucket of 7 significant
# bits, at most the bin's largest
bins() {
	awk -F, 'NR == 2 { print $1 } NR > 1 { l = $1 } END { print l }' "$T/ev.csv" >"$T/span"
	awk -v q="$1" -v nb=$NB -v t0="$(sed -n 1p "$T/span")" -v tl="$(sed -n 2p "$T/span")" '
	$6 != "-" { bin = int(($1 - t0) * nb / (tl + 1 - t0)); n[bin]++; x[bin, n[bin]] = $6 }
	END { for (bin in n) {
		m = n[bin]; for (i = 1; i <= m; i++) s[i] = x[bin, i]
		for (i = 2; i <= m; i++) { y = s[i]; for (j = i - 1; j >= 1 && s[j] > y; j--) s[j + 1] = s[j]; s[j + 1] = y }
		r = q * m; r = r == int(r) ? r : int(r) + 1; if (r < 1) r = 1
		v = s[r]
		if (m > 8 && v >= 256) {
			k = 0; while (2 ^ (k + 1) <= v) k++
			w = 2 ^ (k - 7); v = int(v / w) * w + w - 1; if (v > s[m]) v = s[m] }
		if (v > mx) mx = v; if (mn == "" || v < mn) mn = v }
	  printf "%d %d\n", mx, mn }' "$T/iv"
}
dur() {	# vxt_format_duration()
	awk -v v="$1" 'BEGIN { if (v < 1000) printf "%dns\n", v; else if (v < 1e6) printf "%.1fus\n", v / 1e3
		else if (v < 1e9) printf "%.1fms\n", v / 1e6; else printf "%.2fs\n", v / 1e9 }'
}
heat() {	# the heatmap legend's duration format
	awk -v v="$1" 'BEGIN { if (v >= 1e9) printf "%.2fs\n", v / 1e9; else if (v >= 1e6) printf "%.1fms\n", v / 1e6
		else if (v >= 1e3) printf "%.0fus\n", v / 1e3; else printf "%.0fns\n", v }'
}

start 160 60 "$B/vxreplay" "$T/c.vxt"
wait_for "events $total/$total"
wait_idle
keys b
wait_for '^ Latency D2C  '
keys 2
wait_for '^ Latency Q2C  sda  '
wait_idle
n=$(awk '$6 != "-"' "$T/iv" | wc -l)
screen | grep -q "^ Latency Q2C  sda  .*  $n I/Os" || fail "Q2C: $n I/Os in the title"
w=$(hist 6) g=$(got)
[ "$g" = "$w" ] || fail "Q2C: got [$g] want [$w]"
ok "Q2C histogram of $n I/Os: buckets and p50/p99 rows [$g]"
keys 3
wait_for '^ Latency queue \(Q2D\)  sda  '
w=$(hist 4) g=$(got)
[ "$g" = "$w" ] || fail "Q2D: got [$g] want [$w]"
ok "queue time histogram: [$g]"
keys Escape
wait_for '^ Events'

# wide bins, several I/Os each
start 60 50 "$B/vxreplay" "$T/c.vxt"
wait_for "events $total/$total"
wait_idle
top=$(screen | grep -n '^ Errors ' | cut -d: -f1)
[ -n "$top" ] || fail "no timeline"
for m in 50 99; do
	while ! screen | grep -q "^ Q2C p$m  "; do keys c; sleep 0.2; done
	set -- $(bins 0.$m)
	want=$(dur "$1")
	got=$(screen | sed -n "$((top + 1))p" | cut -c1-8 | tr -d ' ')
	[ "$got" = "$want" ] || fail "timeline Q2C p$m scale: got $got want $want"
	screen | grep -q "^q2c p$m " || fail "timeline Q2C p$m: axis label"
	ok "timeline Q2C p$m: scale $got"
	while ! screen | grep -q "heatmap metric: q2c-p$m"; do keys M; sleep 0.2; done
	want="q2c-p$m $(heat "$2") .* $(heat "$1")"
	screen | grep -Eq "^$want" || fail "heatmap q2c-p$m legend: want /$want/"
	ok "heatmap q2c-p$m: $(heat "$2") .. $(heat "$1")"
done

# a profile's columns: each completion's own intervals, "-" where not known
cat >"$T/cols.yaml" <<EOT
name: cols
columns: [time, phase, sector, q2d, d2c, q2c, q2g, g2i, i2d]
EOT
start 160 150 "$B/vxreplay" "$T/c.vxt" --profile "$T/cols.yaml"
wait_for "events $total/$total"
wait_idle
screen | grep -q '^ *TIME  *PHASE  *SECTOR  *QUEUE  *D2C  *Q2C  *Q2G  *G2I  *I2D' ||
	fail "the profile's interval columns"
screen | sed -n '/TIME .*PHASE/,$p' | awk '$2 == "done" { print $4, $5, $6, $7, $8, $9 }' >"$T/rows"
n=$(wc -l <"$T/rows")
[ "$n" -ge 15 ] || fail "only $n completions on screen"
awk 'function d(v) { if (v == "-") return "-"; if (v < 1000) return sprintf("%dns", v)
		if (v < 1e6) return sprintf("%.1fus", v / 1e3); if (v < 1e9) return sprintf("%.1fms", v / 1e6)
		return sprintf("%.2fs", v / 1e9) }
	{ print d($4), d($5), d($6), d($7), d($8), d($9) }' "$T/iv" | head -n "$n" >"$T/want"
cmp -s "$T/rows" "$T/want" || fail "interval columns: got [$(cat "$T/rows")] want [$(cat "$T/want")]"
ok "profile columns q2d d2c q2c q2g g2i i2d on the first $n completions"

# issue and completion only: not available
make_trace "$T/s.vxt" 20000
start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 20000/20000'
keys b 2
wait_for '^ Latency Q2C  '
screen | grep -q 'breakdown not available: the trace holds issue and completion only' ||
	fail "Q2C on a trace without queue phases"
screen | grep -q '^ *[0-9.]*[mun]*s - ' && fail "Q2C without queue phases shows buckets"
keys Escape
wait_for '^ Events'
while ! screen | grep -q "^ Q2C p50  "; do keys c; sleep 0.2; done
screen | grep -q 'Q2C not available: the trace holds issue and completion only' ||
	fail "timeline Q2C on a trace without queue phases"
ok "issue and completion only: Q2C not available"
