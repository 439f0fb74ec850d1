#!/bin/sh
# breakdown.sh - vxreplay --report breakdown against btt and against the events
#
# 1. On the real blktrace capture under ../shared/data/blktrace: the breakdown
#    of the imported capture equals btt's own tables on the same records
#    (N exactly, averages within 1 ns, device overhead, #Q/#D, seek counts,
#    means and modes).
# 2. Independently of btt, from `--report events --format csv` with awk: each
#    interval of the capture recomputed by pairing queue, getrq, insert,
#    merge, issue and completion by sector; a --filter restricts it; the
#    HTML report's breakdown table shows the same N and average per interval.
# 3. A completion whose issue is missing is counted as unpaired with the
#    ordinal of the first such event, never given a made-up time.
# 4. A capture of issue and completion only says the breakdown is not
#    available and gives D2C equal to the completions' latencies.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
top=${VXT_TOP:?}
command -v python3 >/dev/null || skip "breakdown: python3 not installed"

# --- 4. issue-only capture (no external data needed) -------------------------
"$b/vxrecord" -q -s sim -c 20000 -o "$tmp/sim.vxt" || { fail "vxrecord failed"; finish; }
"$b/vxreplay" "$tmp/sim.vxt" --report breakdown > "$tmp/sim.txt" || { fail "breakdown of sim failed"; finish; }
grep -q "breakdown not available" "$tmp/sim.txt" || fail "no word that the breakdown is not available"
"$b/vxreplay" "$tmp/sim.vxt" --report breakdown -F json > "$tmp/sim.json" || { fail "json failed"; finish; }
"$b/vxreplay" "$tmp/sim.vxt" --report events -F csv > "$tmp/sim.csv" || { fail "events failed"; finish; }
python3 - "$tmp" <<'PYEOF' || fail "the python check above"
import csv, json, sys
tmp = sys.argv[1]
j = json.load(open(tmp + "/sim.json"))
lat = [int(r["latency_ns"]) for r in csv.DictReader(open(tmp + "/sim.csv"))
       if r["phase"] == "done" and int(r["bytes"]) > 0 and int(r["latency_ns"]) > 0]
d = j["all"]["d2c"]
if j["breakdown"] or j["capture"] != "issue":
    sys.exit("breakdown: sim capture taken for a full one: %s" % j["capture"])
if d["n"] != len(lat) or abs(d["avg_ns"] - sum(lat) / len(lat)) > 1 or d["max_ns"] != max(lat):
    sys.exit("breakdown: sim d2c %s, events say n=%d avg=%.1f max=%d" %
             (d, len(lat), sum(lat) / len(lat), max(lat)))
if j["all"]["q2c"]["n"] != 0:
    sys.exit("breakdown: q2c from a capture without queue events")
PYEOF

data=${VXT_SHARED:-$top/../shared}/data/blktrace/centos7-sda
if [ ! -d "$data" ]; then
	skip "breakdown: $data absent: real-capture and btt checks skipped"
fi
"$b/vxrecord" -q --import blktrace "$data/sda" -o "$tmp/c.vxt" || { fail "import failed"; finish; }
"$b/vxreplay" "$tmp/c.vxt" --report breakdown -F json > "$tmp/c.json" || { fail "breakdown json failed"; finish; }
"$b/vxreplay" "$tmp/c.vxt" --report breakdown -F csv > "$tmp/c.csv" || { fail "breakdown csv failed"; finish; }
"$b/vxreplay" "$tmp/c.vxt" --report breakdown > "$tmp/c.txt" || { fail "breakdown text failed"; finish; }
"$b/vxreplay" "$tmp/c.vxt" --report events -F csv > "$tmp/ev.csv" || { fail "events failed"; finish; }
"$b/vxreplay" "$tmp/c.vxt" --report breakdown -F json --filter 'comm == "xfsaild/dm-0"' \
	> "$tmp/f.json" || { fail "filtered breakdown failed"; finish; }

# --- 2. intervals recomputed from the event list ------------------------------
# Pairing by hand: a queue is pending from its Q to the C whose range holds it;
# G, I, M take the pending queue whose range holds their sector; D and C every
# pending queue inside their range. Averages rounded as the report rounds them.
pair() {
awk -F, -v want="$1" '
function iv(name, v) { if (keep) { n[name]++; s[name] += v } }
NR == 1 { next }
{
	t = $1; ph = $3; sec = $6 + 0; nb = int($7 / 512); comm = $12
	keep = want == "" || comm == want
	if ($7 == 0) next
	if (ph == "queue") {
		if (sec in qt) next
		if (keep) { if (lastq != "") iv("q2q", t - lastq); lastq = t }
		qt[sec] = t; qe[sec] = sec + nb; qc[sec] = comm; next
	}
	if (ph == "getrq" || ph == "insert" || ph == "merge") {
		for (k in qt) if (k + 0 <= sec && sec < qe[k]) {
			if (ph == "getrq") { gt[k] = t; iv("q2g", t - qt[k]) }
			if (ph == "insert") { it[k] = t; if (k in gt) iv("g2i", t - gt[k]) }
			if (ph == "merge") { mt[k] = t; iv("q2m", t - qt[k]) }
			break
		}
		next
	}
	if (ph == "start" || ph == "done") {
		for (k in qt) if (k + 0 >= sec && qe[k] <= sec + nb) {
			if (ph == "start") {
				if (k in it) iv("i2d", t - it[k]); else if (k in mt) iv("m2d", t - mt[k])
				iv("q2d", t - qt[k]); dt[k] = t
			} else {
				iv("q2c", t - qt[k]); if (k in dt) iv("d2c", t - dt[k])
				delete qt[k]; delete qe[k]; delete gt[k]; delete it[k]; delete mt[k]; delete dt[k]
			}
		}
	}
}
END { for (k in n) printf "%s %d %d\n", k, n[k], int(s[k] / n[k] + 0.5) }
' "$tmp/ev.csv" | sort
}
pair "" > "$tmp/awk.txt"
# a filter counts the intervals its events end (Q2Q: between the queues it keeps)
pair "xfsaild/dm-0" > "$tmp/awkf.txt"
python3 - "$tmp" <<'PYEOF' || fail "the python check above"
import json, sys
tmp = sys.argv[1]
for js, ref in (("c.json", "awk.txt"), ("f.json", "awkf.txt")):
    j = json.load(open(tmp + "/" + js))["all"]
    got = sorted("%s %d %d" % (k, v["n"], v["avg_ns"]) for k, v in j.items() if v["n"])
    want = sorted(open(tmp + "/" + ref).read().split("\n")[:-1])
    if got != want or len(want) < 8:
        sys.exit("breakdown: %s: intervals differ from a pairing by hand:\n report %s\n awk    %s" %
                 (js, got, want))
PYEOF

# the HTML report's breakdown table: every interval it shows, N and average
# as the page prints them, against the same pairing by hand
"$b/vxreplay" "$tmp/c.vxt" --report html -o "$tmp/c.html" || { fail "html report failed"; finish; }
awk 'function dur(v) { if (v < 1000) return sprintf("%dns", v)
		if (v < 1e6) return sprintf("%.1fus", v / 1e3)
		if (v < 1e9) return sprintf("%.1fms", v / 1e6); return sprintf("%.2fs", v / 1e9) }
	{ print $1, $2, dur($3) }' "$tmp/awk.txt" > "$tmp/awkh.txt"
sed -n 's/^<tr data-iv="\([a-z0-9]*\)"><td>[a-z0-9]*<\/td><td>\([0-9]*\)<\/td><td>[^<]*<\/td><td>\([^<]*\)<\/td>.*/\1 \2 \3/p' \
	"$tmp/c.html" | sort > "$tmp/html.txt"
[ "$(wc -l < "$tmp/awkh.txt")" -ge 8 ] || fail "html: the pairing by hand found $(wc -l < "$tmp/awkh.txt") intervals"
cmp -s "$tmp/awkh.txt" "$tmp/html.txt" ||
	fail "html breakdown differs from a pairing by hand: $(diff "$tmp/awkh.txt" "$tmp/html.txt" | head -8)"
echo "breakdown: html table, $(wc -l < "$tmp/html.txt") intervals: $(cut -d' ' -f1 "$tmp/html.txt" | tr '\n' ' ')"

# --- 3. completions without their issue -------------------------------------
"$b/vxreplay" "$tmp/c.vxt" --export blktrace --filter 'phase != start' -o "$tmp/nod.dump" \
	2>/dev/null || { fail "export without issues failed"; finish; }
"$b/vxrecord" -q --import blktrace "$tmp/nod.dump" -o "$tmp/nod.vxt" || { fail "re-import failed"; finish; }
"$b/vxreplay" "$tmp/nod.vxt" --report breakdown -F json > "$tmp/nod.json" || { fail "breakdown failed"; finish; }
"$b/vxreplay" "$tmp/nod.vxt" --report events -F csv > "$tmp/nod.csv" || { fail "events failed"; finish; }
first=$(awk -F, 'NR > 1 && $3 == "done" { print NR - 2; exit }' "$tmp/nod.csv")
ndone=$(awk -F, 'NR > 1 && $3 == "done"' "$tmp/nod.csv" | wc -l)
python3 - "$tmp/nod.json" "$first" "$ndone" <<'PYEOF' || fail "the python check above"
import json, sys
j = json.load(open(sys.argv[1]))
u = j["unpaired"]["no-issue"]
if u["n"] != int(sys.argv[3]) or u.get("first_event") != int(sys.argv[2]):
    sys.exit("breakdown: no-issue %s, want n=%s first=%s" % (u, sys.argv[3], sys.argv[2]))
if j["all"]["d2c"]["n"] or j["all"]["i2d"]["n"] or j["all"]["m2d"]["n"]:
    sys.exit("breakdown: intervals ending or starting at a missing issue: %s" % j["all"]["d2c"])
PYEOF

# --- 1. btt on the same records ----------------------------------------------
if ! command -v btt >/dev/null || ! command -v blkparse >/dev/null; then
	skip "breakdown: btt not installed (apt-get install blktrace): btt comparison skipped"
fi
(cd "$tmp" && blkparse -q -i "$data/sda" -d sda.bin > /dev/null 2>&1 && btt -i sda.bin > btt.txt 2>&1) ||
	fail "blkparse/btt failed"
python3 - "$tmp" <<'PYEOF' || fail "the python check above"
import json, re, sys
tmp = sys.argv[1]
j = json.load(open(tmp + "/c.json"))
btt = open(tmp + "/btt.txt").read()
def fail(m):
    sys.exit("breakdown: " + m)
sect = btt.split("==================== All Devices ====================")[1].split("====")[0]
rows = {}
for line in sect.splitlines():
    m = re.match(r"^(Q2Q|Q2G|G2I|Q2M|I2D|M2D|D2C|Q2C)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+)", line)
    if m:
        rows[m.group(1).lower()] = (float(m.group(3)), int(m.group(5)))
if len(rows) < 6:
    fail("btt's table not understood:\n" + sect)
for k, (avg, n) in rows.items():
    got = j["all"][k]
    if got["n"] != n:
        fail("%s: N %d, btt %d" % (k, got["n"], n))
    if abs(got["avg_ns"] - avg * 1e9) > 1.0:
        fail("%s: avg %d ns, btt %.9f s" % (k, got["avg_ns"], avg))
for k in j["all"]:
    if k not in rows and k != "q2d" and j["all"][k]["n"]:
        fail("%s: %d samples, btt shows none" % (k, j["all"][k]["n"]))
# device overhead of 8,0 (sda)
m = re.search(r"\(\s*8,\s*0\)\s*\|\s*([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%", btt)
o = j["overhead"]["sda"]
for i, k in enumerate(["q2g", "g2i", "q2m", "i2d", "d2c"]):
    if abs(o[k + "_pct"] - float(m.group(i + 1))) > 0.0001:
        fail("overhead %s: %.4f, btt %s" % (k, o[k + "_pct"], m.group(i + 1)))
m = re.search(r"Device Merge Information.*?\(\s*8,\s*0\)\s*\|\s*(\d+)\s+(\d+)\s+[\d.]+\s*\|\s*(\d+)\s+\d+\s+(\d+)\s+(\d+)", btt, re.S)
g = j["merges"]["sda"]
if (g["queued"], g["issued"], g["blk_min"], g["blk_max"], g["blk_total"]) != tuple(int(x) for x in m.groups()):
    fail("merges %s, btt %s" % (g, m.groups()))
for kind, key in (("Q2Q", "q2q"), ("D2D", "d2d")):
    m = re.search(r"Device %s Seek Information.*?\(\s*8,\s*0\)\s*\|\s*(\d+)\s+([\d.]+)\s+\d+\s*\|\s*(\d+)\((\d+)\)" % kind, btt, re.S)
    s = j["seeks"]["sda"][key]
    if s["n"] != int(m.group(1)) or abs(s["mean"] - float(m.group(2))) > 0.05 or \
       (s["mode"], s["mode_count"]) != (int(m.group(3)), int(m.group(4))):
        fail("%s seeks %s, btt %s" % (kind, s, m.groups()))
PYEOF
[ $fails = 0 ] && ok "breakdown: ok"
finish
