#!/bin/sh
# vxtop_script.sh - vxtop --script: a D script's aggregations, printed each
# tick-1s into vxtop's intervals (-b, JSON Lines) and at END, equal a
# brute-force count of the same simulator trace's events: per interval and
# object the completions (count()), and over the whole trace each object's
# log2 latency histogram (quantize()). Ticks follow event time when following
# a file, so interval k holds the completions of [t0 + k-1 s, t0 + k s).
. "${VXT_TOP:?}/tests/lib.sh"
B=${VXT_BUILD:?}

cat >"$T/agg.d" <<'D'
#pragma D option quiet
io:::done { @n[object] = count(); @lat[object] = quantize(latency); }
tick-1s { printa(@n); clear(@n); }
END { printa(@n); }
D
"$B/vxrecord" -s sim --seed 7 -c 250000 -o "$T/s.vxt" -q || { fail "vxrecord -s sim"; finish; }
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv" || { fail "events csv"; finish; }
# per second from the first event: completions per object; and each object's
# latency histogram in power-of-two buckets (0 in its own)
awk -F, 'NR == 2 { t0 = $1 } NR > 1 && $3 == "done" {
		k = int(($1 - t0) / 1000000000); n[k, $2]++; if (k > last) last = k
		v = $8; b = 0; if (v > 0) { b = 1; while (b * 2 <= v) b *= 2 }
		h[$2, b]++ }
	END { for (x in n) { split(x, p, SUBSEP); print "n", p[1], p[2], n[x] }
	      for (x in h) { split(x, p, SUBSEP); print "h", p[1], p[2], h[x] } }' \
	"$T/ev.csv" >"$T/brute"
"$B/vxtop" --follow "$T/s.vxt" -b -i 1s --script "$T/agg.d" -F jsonl </dev/null \
	>"$T/top.jsonl" 2>"$T/err" || { fail "vxtop --script: $(cat "$T/err")"; finish; }
python3 - "$T/top.jsonl" "$T/brute" <<'PY' || fail "the python check above"
import json, re, sys
want_n, want_h = {}, {}
for l in open(sys.argv[2]):
    kind, a, b, c = l.split()
    if kind == "n":
        want_n[(int(a), b)] = int(c)
    else:
        want_h.setdefault(a, {})[int(b)] = int(c)
ivs, end = [], None
for l in open(sys.argv[1]):
    d = json.loads(l)
    assert d["script"] and d["script"]["name"] == "agg", d["script"]
    assert d["script"]["errors"] == 0 and d["script"]["agg_drops"] == 0, d["script"]
    if d.get("end"):
        end = d["script"]["output"]
    else:
        ivs.append(d["script"]["output"])
assert end is not None, "no END object"
def counts(text):
    out = {}
    for ln in text.splitlines():
        f = ln.split()
        if len(f) == 2 and f[1].isdigit():
            out[f[0]] = int(f[1])
    return out
got = {}
for k, text in enumerate(ivs):
    for name, c in counts(text).items():
        got[(k, name)] = c
# END prints what came after the last tick: the last second's remainder
last = max(k for k, _ in want_n)
for name, c in counts(end).items():
    if name in {o for _, o in want_n}:
        got[(last, name)] = got.get((last, name), 0) + c
assert got == want_n, "per second and object: vxtop %s, events %s" % (
    sorted(set(got.items()) ^ set(want_n.items()))[:6], len(want_n))
# the histograms at END: "name" then "value |@@@ count" rows
hist, cur = {}, None
for ln in end.splitlines():
    f = ln.split()
    if len(f) == 1 and f[0] in want_h:
        cur = f[0]; hist[cur] = {}
    elif cur and len(f) >= 3 and f[0].isdigit() and f[-1].isdigit() and "|" in ln:
        if int(f[-1]):
            hist[cur][int(f[0])] = int(f[-1])
assert hist == want_h, "quantize: vxtop %s, events %s" % (hist, want_h)
print("ok: %d intervals, %d (second, object) counts and %d histograms equal the events"
      % (len(ivs), len(want_n), len(want_h)))
PY
# text: the same output under the interval's table, and END's at the end
"$B/vxtop" --follow "$T/s.vxt" -b -i 1s --script "$T/agg.d" </dev/null >"$T/top.txt" 2>"$T/err" ||
	{ fail "vxtop --script (text): $(cat "$T/err")"; finish; }
[ "$(grep -c '^script agg:$' "$T/top.txt")" -ge 4 ] || fail "text: no script output per interval"
grep -q '^script agg at the end:$' "$T/top.txt" || fail "text: no END output"
# a broken script is a usage error naming file, line and column
printf 'io:::done { @n[object] = count( }\n' >"$T/bad.d"
"$B/vxtop" -b -c 1 -s sim --script "$T/bad.d" </dev/null >/dev/null 2>"$T/err"
[ $? = 2 ] || fail "bad script: want exit 2"
grep -q 'bad.d:1:[0-9]*:' "$T/err" || fail "bad script: no file:line:col in '$(cat "$T/err")'"
"$B/vxtop" -b -c 1 -s sim -x nspec=2 </dev/null >/dev/null 2>&1
[ $? = 2 ] || fail "-x without --script: want exit 2"
[ $fails = 0 ] && ok "text output, bad script and -x alone"
finish
