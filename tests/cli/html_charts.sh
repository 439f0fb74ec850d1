#!/bin/sh
# html_charts.sh - the HTML report's IOPS / MB/s over time (a bar per
# interval, 120 over the scope's span) and its latency histogram (a row per
# log2 bucket, all objects and the busiest ones apart, p50 / p99 marked),
# and the breakdown table (d2c only on a capture of issue and completion),
# against brute force over `--report events --format csv`.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}

"$b/vxrecord" -q -s sim -c 200000 -o "$tmp/t.vxt" || { fail "vxrecord failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report events --format csv >"$tmp/ev.csv" || { fail "events failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report html -o "$tmp/r.html" || { fail "html report failed"; finish; }

# histogram rows: "bucket all first-object" against the completions
obj=$(grep -A1 '<table id="latency-table">' "$tmp/r.html" |
	sed -n 's/.*<th>all<\/th><th>\([^<]*\)<\/th>.*/\1/p')
[ -n "$obj" ] || fail "no object column in the latency table"
awk -F, -v o="$obj" 'NR > 1 && $3 == "done" { k = 0; while (2 ^ (k + 1) <= $8 && k < 31) k++
	a[k]++; if ($2 == o) p[k]++; n++; if (lo == "" || k < lo) lo = k; if (k > hi) hi = k }
	END { r50 = n * 0.5; r50 = r50 == int(r50) ? r50 : int(r50) + 1
	r99 = n * 0.99; r99 = r99 == int(r99) ? r99 : int(r99) + 1
	for (k = lo; k <= hi; k++) { c += a[k]; m = ""
		if (c >= r50 && !d50) { m = m " p50"; d50 = 1 } if (c >= r99 && !d99) { m = m " p99"; d99 = 1 }
		printf "%d %d %d%s\n", k, a[k], p[k], m } }' "$tmp/ev.csv" >"$tmp/want"
sed -n 's/^<tr data-bucket="\([0-9]*\)"><td>[^<(]*\(([^)]*)\)\{0,1\}<\/td><td>\([0-9]*\)<\/td><td>\([0-9]*\)<\/td>.*/\1 \3 \4 \2/p' \
	"$tmp/r.html" | sed 's/ (\(.*\))$/ \1/; s/,//g; s/ *$//' | awk '{ if (NF > 3) { printf "%s %s %s", $1, $2, $3
		for (i = 4; i <= NF; i++) printf " %s", $i; print "" } else print }' >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got" || fail "latency table: $(diff "$tmp/want" "$tmp/got" | head -6)"
ok "latency histogram, $(wc -l <"$tmp/want") buckets, all and $obj, p50/p99"

# IOPS and MB/s per interval: 120 bins over [first, last + 1)
awk -F, 'NR == 2 { t0 = $1 } NR > 1 { last = $1; t[NR] = $1; d[NR] = $3 == "done"; by[NR] = $7 }
	function bstart(x) { v = x * span / 120; return v == int(v) ? v : int(v) + 1 }
	END { span = last + 1 - t0
	for (k in t) if (d[k]) { i = int((t[k] - t0) * 120 / span); n[i]++; s[i] += by[k] }
	for (i = 0; i < 120; i++) { w = bstart(i + 1) - bstart(i)
		printf "%.1f %.1f\n", n[i] * 1e9 / w, s[i] * 1e9 / w / 1e6 } }' "$tmp/ev.csv" >"$tmp/want"
sed -n '/<svg id="iops-over-time"/,/<\/svg>/s/.*<title>[0-9.]* s: \([0-9.]*\) I\/O\/s<\/title>.*/\1/p' \
	"$tmp/r.html" >"$tmp/iops"
sed -n '/<svg id="mbs-over-time"/,/<\/svg>/s/.*<title>[0-9.]* s: \([0-9.]*\) MB\/s<\/title>.*/\1/p' \
	"$tmp/r.html" >"$tmp/mbs"
paste -d' ' "$tmp/iops" "$tmp/mbs" >"$tmp/got"
[ "$(wc -l <"$tmp/got")" -eq 120 ] || fail "$(wc -l <"$tmp/got") intervals, want 120"
cmp -s "$tmp/want" "$tmp/got" || fail "IOPS / MB/s: $(diff "$tmp/want" "$tmp/got" | head -6)"
grep -q '<svg id="latency-over-time"' "$tmp/r.html" || fail "no latency chart"
ok "IOPS and MB/s of 120 intervals"

# one object: its own histogram
"$b/vxreplay" "$tmp/t.vxt" --report html --objects sdb -o "$tmp/sdb.html" || { fail "sdb report failed"; finish; }
want=$(awk -F, '$2 == "sdb" && $3 == "done"' "$tmp/ev.csv" | wc -l)
got=$(sed -n 's/^<tr data-bucket="[0-9]*"><td>[^<]*<\/td><td>\([0-9]*\)<\/td>.*/\1/p' "$tmp/sdb.html" |
	awk '{ s += $1 } END { print s + 0 }')
[ "$got" -eq "$want" ] || fail "sdb histogram holds $got I/Os, want $want"
ok "--objects sdb: $got I/Os in its histogram"

# the breakdown: D2C of every completion with a size (flushes are left out,
# as btt does; formats/reports.md), issue and completion only here
want=$(awk -F, 'NR > 1 && $3 == "done" && $7 > 0' "$tmp/ev.csv" | wc -l)
got=$(sed -n 's/^<tr data-iv="d2c"><td>d2c<\/td><td>\([0-9]*\)<\/td>.*/\1/p' "$tmp/r.html")
[ "$got" = "$want" ] || fail "breakdown: d2c N $got, want $want"
grep -q 'The trace holds issue and completion only' "$tmp/r.html" || fail "breakdown: no word on Q2C"
[ "$(grep -c '<tr data-iv=' "$tmp/r.html")" -eq 1 ] || fail "breakdown: intervals beyond d2c"
[ $fails = 0 ] && ok "breakdown d2c N=$got, the queue side said not captured"
finish
