#!/bin/sh
# timeline_metrics.sh - the timeline's time labels, its metrics (c: errors,
# IOPS, MiB/s, p50, p99, Q2C p50, p99), the lanes' legend and cursor (L), and the axis alone
# with "no errors in the file"; figures on screen against brute force over
# `--report events --format csv` (111 bins over the span at 120 columns).
# The latency scales are the busiest bin's quantile by the one rule of
# formats/reports.md: at or above the exact nearest rank, at most 1/128
# above it, as printed (never a "~" estimate from the index).
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv"
# the bins: b = floor((t - t0) * 111 / span), bin b starts at ceil(b * span / 111)
BINS='NR == 2 { t0 = $1 } NR > 1 { last = $1; t[NR] = $1 }
	function bstart(b) { x = b * span / 111; return x == int(x) ? x : int(x) + 1 }
	function bin(v) { return int((v - t0) * 111 / span) }'

start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
wait_idle
screen | grep -q '+/- zoom  t/T one bin  c metric' || fail "hint: t/T move one bin"
# time labels: the whole seconds of the 6 s span, each at its column
lab=$(screen | grep '^time s ')
[ -n "$lab" ] || fail "no time labels under the axis"
want=$(awk -F, "$BINS"'END { span = last + 1 - t0; for (s = 0; s * 1e9 < span; s++)
	printf "%d:%d ", 10 + int(s * 1e9 * 111 / span), s }' "$T/ev.csv")
got=$(printf '%s\n' "$lab" | awk '{ n = split($0, c, ""); for (i = 10; i <= n; i++)
	if (c[i] != " " && c[i - 1] == " ") { j = i; w = ""; while (j <= n && c[j] != " ") w = w c[j++];
	printf "%d:%s ", i, w } }')
[ "$got" = "$want" ] || fail "time labels: got [$got] want [$want]"
ok "time labels at their columns: $got"

# the errors scale: the busiest bin's count
want=$(awk -F, "$BINS"'NR > 1 && $9 != 0 { e[NR] = $1 }
	END { span = last + 1 - t0; for (k in e) n[bin(e[k])]++; for (b in n) if (n[b] > m) m = n[b]; print m }' "$T/ev.csv")
top=$(screen | grep -n '^ Errors ' | cut -d: -f1)
got=$(line $((top + 1)) | cut -c1-8 | tr -d ' ')
[ "$got" = "$want" ] || fail "errors scale: got $got want $want"
ok "errors scale $got"

# c: IOPS, the busiest bin's completions per second (%.1fk)
keys c
wait_for '^ IOPS  '
want=$(awk -F, "$BINS"'NR > 1 && $3 == "done" { d[NR] = $1 }
	END { span = last + 1 - t0; for (k in d) n[bin(d[k])]++
	for (b in n) { v = n[b] * 1e9 / (bstart(b + 1) - bstart(b)); if (v > m) m = v }
	printf "%.1fk\n", int(m + 0.5) / 1e3 }' "$T/ev.csv")
got=$(line $((top + 1)) | cut -c1-8 | tr -d ' ')
[ "$got" = "$want" ] || fail "IOPS scale: got $got want $want"
screen | grep -q '^IOPS  ' || fail "IOPS: axis label"
ok "IOPS scale $got"

# c: MiB/s, the busiest bin's bytes per second / 2^20
keys c
wait_for '^ MiB/s  '
want=$(awk -F, "$BINS"'NR > 1 && $3 == "done" { d[NR] = $1; by[NR] = $7 }
	END { span = last + 1 - t0; for (k in d) n[bin(d[k])] += by[k]
	for (b in n) { v = n[b] * 1e9 / (bstart(b + 1) - bstart(b)); if (v > m) m = v }
	printf (m >= 10485760000 ? "%.0f\n" : "%.1f\n"), int(m + 0.5) / 1048576 }' "$T/ev.csv")
got=$(line $((top + 1)) | cut -c1-8 | tr -d ' ')
[ "$got" = "$want" ] || fail "MiB/s scale: got $got want $want"
ok "MiB/s scale $got"
# lat_scale Q: the largest over the bins of their exact Q quantile (nearest
# rank of the latencies of every completion but a failed one of unknown
# latency), printed as the scale prints it, then the same 1/128 above
lat_scale() {
	awk -F, "$BINS"'NR > 1 && $3 == "done" && ($8 != 0 || $9 == 0) { lat[NR] = $8 }
		END { span = last + 1 - t0; for (k in lat) print bin(t[k]), lat[k] }' \
		"$T/ev.csv" | sort -n -k1,1 -k2,2 | awk -v q="$1" '
	function fmt(ns) {
		if (ns < 1000) return sprintf("%dns", ns)
		if (ns < 1e6) return sprintf("%.1fus", ns / 1e3)
		if (ns < 1e9) return sprintf("%.1fms", ns / 1e6)
		return sprintf("%.2fs", ns / 1e9)
	}
	function flush() { if (!n) return; r = q * n; r = r == int(r) ? r : int(r) + 1
		if (v[r] > m) m = v[r]; n = 0 }
	$1 != b { flush(); b = $1 } { v[++n] = $2 }
	END { flush(); print fmt(m), fmt(m + m / 128) }'
}
# ns TEXT: a printed duration in ns
ns() { echo "$1" | awk '{ v = $1 + 0; u = $1; sub(/^[0-9.]+/, "", u)
	print v * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }'; }
for q in p50 p99; do
	keys c
	wait_for "^ Latency $q  "
	wait_idle
	screen | grep -q "^$q  " || fail "$q: axis label"
	got=$(line $((top + 1)) | cut -c1-8 | tr -d ' ')
	set -- $(lat_scale "0.${q#p}")
	awk -v g="$(ns "$got")" -v lo="$(ns "$1")" -v hi="$(ns "$2")" 'BEGIN { exit !(g >= lo && g <= hi) }' ||
		fail "latency $q scale: got $got, want $1 to $2 (the exact quantile to 1/128 above)"
	screen | grep -q '~[0-9]' && fail "latency $q: an estimate (~) on screen"
	ok "latency $q scale $got (exact $1)"
done
keys c
wait_for '^ Q2C p50  '
keys c
wait_for '^ Q2C p99  '
keys c
wait_for '^ Errors  '

# L: a lane per heatmap row, with a legend (the busiest cell) and the cursor
keys L
wait_for '^ Errors by object'
want=$(awk -F, "$BINS"'NR > 1 && $9 != 0 { e[NR] = $1; o[NR] = $2 }
	END { span = last + 1 - t0; for (k in e) n[o[k] " " bin(e[k])]++; for (c in n) if (n[c] > m) m = n[c]; print m }' "$T/ev.csv")
screen | grep -q "up to $want errors/bin" || fail "lanes legend: up to $want errors/bin"
screen | grep -q '^errors   ┃' || fail "lanes: the cursor on the axis"
keys G
wait_idle
screen | grep -q '^errors   ─*┃$' || fail "lanes: the cursor at the end after G"
ok "lanes legend (up to $want errors/bin) and cursor"
keys q
wait_for '^\[exit 0\]'

# no error at all: the axis only, and it says so
"$B/vxrecord" --source sim --sim-errors none -c 50000 -o "$T/n.vxt" -q -f
start 120 40 "$B/vxreplay" "$T/n.vxt"
wait_for 'events 50000/50000'
wait_idle
line 4 | grep -q '^ Errors .*no errors in the file' || fail "no errors: said in the title"
line 5 | grep -q '^errors   ┃─' || fail "no errors: the axis on the next line"
line 6 | grep -q '^time s   0\.0 ' || fail "no errors: time labels under it"
line 7 | grep -q '^ Heatmap ' || fail "no errors: the heatmap right after"
ok "no errors: 3 rows"
keys c
wait_for '^ IOPS  '
line 6 | grep -q '^ Heatmap ' && fail "IOPS: the plot gets its rows back"
ok "IOPS gets the rows back"
keys q
wait_for '^\[exit 0\]'
