#!/bin/sh
# aggregations.sh - A draws the aggregations of the D script picked with p
# over the visible window and the filter: count, sum, avg, min and max as
# tables and quantize / lquantize as DTrace's distributions, line for line
# as an awk reference over the events CSV prints them; zooming and a new
# filter recompute them with the panel open.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 100000 3
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv"
cat >"$T/agg.d" <<'EOF'
/* agg.d - each aggregating function over the completions */
io:::done
{
	@n[object] = count();
	@s[object] = sum(bytes);
	@av[object] = avg(latency);
	@mn = min(latency);
	@mx = max(latency);
	@lat[object] = quantize(latency);
	@sz = lquantize(bytes / 4096, 0, 64, 8);
}
EOF

# ref LO_NS HI_NS [OBJECT]: the aggregations of the completions at
# [LO, HI) ns from the first event, in DTrace's layout (blank lines dropped)
ref() {
	awk -F, -v lo="$1" -v hi="$2" -v obj="$3" '
	function qidx(v,   p, k) { if (v <= 0) return v < 0 ? -1 : 0; p = 1; k = 1
		while (p * 2 <= v) { p *= 2; k++ } return k }
	function qlab(i) { return i < 0 ? -1 : i == 0 ? 0 : 2 ^ (i - 1) }
	function row(label, c, total,   a, s, i) { a = total ? int((c * 40 + int(total / 2)) / total) : 0
		s = ""; for (i = 0; i < 40; i++) s = s (i < a ? "@" : " ")
		printf "%16s |%s %-9d\n", label, s, c }
	function head() { printf "%16s %41s %-9s\n", "value", "------------- Distribution -------------", "count" }
	# the objects in ord[1..no] by val[] ascending, then by name
	function order(val,   i, j, t) { for (i = 1; i <= no; i++) ord[i] = objs[i]
		for (i = 2; i <= no; i++) for (j = i; j > 1 && (val[ord[j - 1]] > val[ord[j]] ||
			(val[ord[j - 1]] == val[ord[j]] && ord[j - 1] > ord[j])); j--) {
			t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t } }
	NR == 2 { t0 = $1 }
	NR == 1 || $3 != "done" { next }
	{ t = $1 - t0 }
	t < lo || t >= hi || (obj != "" && $2 != obj) { next }
	{ o = $2; l = $8; if (!(o in n)) objs[++no] = o; n[o]++; s[o] += $7; ls[o] += l
	  if (!nd || l < mn) mn = l; if (!nd || l > mx) mx = l; nd++
	  q = qidx(l); qc[o, q]++; if (!(o in qlo) || q < qlo[o]) qlo[o] = q; if (!(o in qhi) || q > qhi[o]) qhi[o] = q
	  b = int($7 / 4096); li = b < 0 ? 0 : b >= 64 ? 9 : 1 + int(b / 8); lc[li]++
	  if (nd == 1 || li < lf) lf = li; if (nd == 1 || li > lh) lh = li }
	END {
		if (!nd) exit
		for (k = 1; k <= no; k++) { o = objs[k]; av[o] = int(ls[o] / n[o]) }
		order(n); for (i = 1; i <= no; i++) printf "  %-50s %16d\n", ord[i], n[ord[i]]
		order(s); for (i = 1; i <= no; i++) printf "  %-50s %16d\n", ord[i], s[ord[i]]
		order(av); for (i = 1; i <= no; i++) printf "  %-50s %16d\n", ord[i], av[ord[i]]
		printf " %16d\n %16d\n", mn, mx	# no key: " %16lld" (dt_consume.c)
		order(n)
		for (k = 1; k <= no; k++) { o = ord[k]; print "  " o; head()
			for (i = qlo[o] - 1; i <= qhi[o] + 1; i++) row(qlab(i), qc[o, i] + 0, n[o]) }
		head()
		for (i = (lf > 0 ? lf - 1 : 0); i <= (lh < 9 ? lh + 1 : 9); i++)
			row(i == 0 ? "< 0" : i == 9 ? ">= 64" : (i - 1) * 8, lc[i] + 0, nd)
	}' "$T/ev.csv" | sed 's/ *$//' | grep -v '^$'
}
# the reference against vxreplay --script over the whole file
ref 0 100000000000 >"$T/ref_all"
"$B/vxreplay" "$T/s.vxt" --script "$T/agg.d" | sed 's/ *$//' | grep -v '^$' >"$T/batch_all"
cmp -s "$T/ref_all" "$T/batch_all" ||
	{ diff "$T/ref_all" "$T/batch_all" | head -20; fail "vxreplay --script differs from the reference"; }

# the panel's text, and the window its title gives (ns from the first event)
panel() {
	screen | sed '1d;$d' | cut -c2- | sed 's/ *$//' | grep -v '^$'
}
window() {
	screen | sed -n '1s/.*window \([0-9]*\)\.\([0-9]*\)\.\.\([0-9]*\)\.\([0-9]*\)s.*/\1\2 \3\4/p' |
		awk '{ print $1 + 0, $2 + 0 }'
}
check() {	# check WHAT [OBJECT]
	wait_for '^ Aggregations of agg\.d  window' 10
	_n=100
	while screen | grep -q 'aggregating\.\.\.' && [ $_n -gt 0 ]; do sleep 0.1; _n=$((_n - 1)); done
	sleep 0.2
	set -- "$1" "$2" $(window)
	[ -n "$4" ] || fail "$1: no window in the title"
	echo "$3 $4" >"$T/win"
	ref "$3" "$4" "$2" >"$T/ref"
	[ -s "$T/ref" ] || fail "$1: the reference is empty"
	panel >"$T/panel"
	cmp -s "$T/ref" "$T/panel" || { diff "$T/ref" "$T/panel" | head -20; fail "$1: the panel differs"; }
	ok "A $1: $(grep -c . "$T/ref") lines as the reference"
}

start 140 110 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 100000/100000'
keys A
wait_for 'no script applied: p picks a \.d script'
keys p
wait_for '^ Profiles'
keys End Enter
wait_for 'Script or profile file:'
text "$T/agg.d"
keys Enter
wait_for 'spec on agg\.d: 0 of 100000 events kept' 20
keys A
check "over the whole file"
cp "$T/win" "$T/win_all"
keys g + + +
check "zoomed in three times"
cmp -s "$T/win" "$T/win_all" && fail "+ did not change the window"
keys /
wait_for 'Filter:'
text "object == sdb"
keys Enter
check "with a filter" sdb
keys Escape
wait_for 'spec on agg\.d'
keys q
wait_for '^\[exit 0\]'
