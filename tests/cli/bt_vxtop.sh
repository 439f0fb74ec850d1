#!/bin/sh
# bt_vxtop.sh - vxtop --script with bpftrace's per-interval idiom,
# `interval:s:1 { print(@n); clear(@n); }`: each interval's map (JSON Lines)
# holds the completions per command of that second of a simulator trace, as
# awk counts them from the trace's CSV (ticks follow event time when
# following a file: interval k holds [t0 + k-1 s, t0 + k s)); END's map
# the last second's, whose tick never comes.
. "$VXT_TOP/tests/lib.sh"

cat >"$T/n.bt" <<'BT'
tracepoint:block:block_rq_complete { @n[comm] = count(); }
interval:s:1 { print(@n); clear(@n); }
BT
"$B/vxrecord" -s sim --seed 7 -c 250000 -o "$T/s.vxt" -q || fail "vxrecord -s sim"
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv" || fail "events csv"
awk -F, 'NR == 2 { t0 = $1 } NR > 1 && $3 == "done" { n[int(($1 - t0) / 1000000000), $12]++ }
	END { for (x in n) { split(x, p, SUBSEP); print p[1], p[2], n[x] } }' "$T/ev.csv" |
	sort >"$T/want"
"$B/vxtop" --follow "$T/s.vxt" -b -i 1s --script "$T/n.bt" -F jsonl </dev/null \
	>"$T/top.jsonl" 2>"$T/err" || fail "vxtop --script: $(cat "$T/err")"
python3 - "$T/top.jsonl" >"$T/got" <<'PY' || fail "reading vxtop's JSON Lines"
import json, re, sys
ivs, end = [], ""
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d.get("end"):
        end = d["script"]["output"]
    else:
        ivs.append(d["script"]["output"])
got = {}
for k, text in enumerate(ivs):
    for m in re.finditer(r"^@n\[(.*)\]: (\d+)$", text, re.M):
        got[(k, m.group(1))] = int(m.group(2))
last = len(ivs) - 1      # END holds the last second's events: its tick never came
for m in re.finditer(r"^@n\[(.*)\]: (\d+)$", end, re.M):   # the last second's rest
    got[(last, m.group(1))] = got.get((last, m.group(1)), 0) + int(m.group(2))
for (k, c), v in sorted(got.items()):
    print(k, c, v)
PY
sort "$T/got" -o "$T/got"
expect_eq "per second and command: vxtop's maps against the events" \
	"$(cmp -s "$T/got" "$T/want" && echo same || diff "$T/want" "$T/got" | head -5)" same
expect_eq "the first interval starts with bpftrace's first line" \
	"$(head -1 "$T/top.jsonl" | python3 -c 'import json, sys; print(json.load(sys.stdin)["script"]["output"].split("\n")[0])')" \
	"Attaching 2 probes..."
finish
