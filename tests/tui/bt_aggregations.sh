#!/bin/sh
# bt_aggregations.sh - the browser's p takes a bpftrace program and A draws
# its maps in bpftrace's layout, as an awk reference over the events CSV
# prints them: counts per comm (by value, then name) and a hist(); batch
# output starts with bpftrace's "Attaching 1 probe...", the panel with the
# maps. A program whose probe's phase the file lacks says so when applied.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 50000 3
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv"
cat >"$T/agg.bt" <<'BT'
// agg.bt	counts per comm and a hist of sizes
tracepoint:block:block_rq_complete
{
	@n[comm] = count();
	@sz = hist(args->nr_sector);
}
BT

# the maps of every completion, in bpftrace's layout (blank lines dropped)
awk -F, 'NR > 1 && $3 == "done" { n[$12]++; v = $7 / 512
	if (v == 0) b = 1; else if (v == 1) b = 2; else { k = 0; while (2 ^ (k + 1) <= v) k++; b = k + 2 }
	h[b]++; if (lo == "" || b < lo) lo = b; if (hi == "" || b > hi) hi = b; if (h[b] > mx) mx = h[b] }
	function label(pw,  s) { s = ""; if (pw >= 10) { s = "K"; pw -= 10 } return (2 ^ pw) s }
	END {
		for (c in n) print n[c], c | "sort -k1,1n -k2 >'"$T"'/counts"
		close("sort -k1,1n -k2 >'"$T"'/counts")
		while ((getline line <"'"$T"'/counts") > 0) { split(line, f, " "); printf "@n[%s]: %d\n", f[2], f[1] }
		print "@sz:"
		for (b = lo; b <= hi; b++) {
			l = b == 1 ? "[0]" : b == 2 ? "[1]" : "[" label(b - 2) ", " label(b - 1) ")"
			bar = ""; w = int(h[b] / mx * 52); for (i = 0; i < 52; i++) bar = bar (i < w ? "@" : " ")
			printf "%-16s%8d |%s|\n", l, h[b], bar
		}
	}' "$T/ev.csv" >"$T/ref"
"$B/vxreplay" "$T/s.vxt" --script "$T/agg.bt" | sed 's/ *$//' | grep -v '^$' >"$T/batch"
{ echo "Attaching 1 probe..."; cat "$T/ref"; } | cmp -s - "$T/batch" || { diff "$T/ref" "$T/batch" | head; fail "vxreplay --script differs from the reference"; }
ok "vxreplay --script agg.bt: $(wc -l <"$T/ref") lines as the reference"

start 140 60 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 50000/50000'
keys p
wait_for '^ Profiles'
keys End Enter
wait_for 'Script or profile file:'
text "$T/agg.bt"
keys Enter
wait_for 'spec on agg\.bt|spec on agg' 20
keys A
wait_for 'Aggregations of agg' 10
_n=100
while screen | grep -q 'aggregating\.\.\.' && [ $_n -gt 0 ]; do sleep 0.1; _n=$((_n - 1)); done
sleep 0.3
screen | sed '1d;$d' | cut -c2- | sed 's/ *$//' | grep -v '^$' >"$T/panel"
grep -q '^@sz:' "$T/panel" || fail "the panel has no @sz"
cmp -s "$T/ref" "$T/panel" || { diff "$T/ref" "$T/panel" | head -20; fail "the panel differs"; }
ok "A: the panel is the reference, $(wc -l <"$T/ref") lines"
keys Escape q

# a probe of a phase the file lacks: its load warning on the message line
printf 'tracepoint:block:block_bio_queue { @q = count(); }\n' >"$T/q.bt"
start 140 30 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 50000/50000'
keys p
wait_for '^ Profiles'
keys End Enter
wait_for 'Script or profile file:'
text "$T/q.bt"
keys Enter
wait_for 'WARNING: tracepoint:block:block_bio_queue: the recording holds no queue' 20
ok "p: a bpftrace program's load warning on the message line"
keys q
