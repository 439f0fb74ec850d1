#!/bin/sh
# export_blktrace.sh - vxreplay --export blktrace writes records that
# Debian's blkparse, btt and iowatcher read: their counts (dispatches, completions by
# direction, errors) equal vxreplay's summary; a trace with only issue and
# completion gets no made-up Q or I, so btt shows no interval (and vxreplay
# says why); --objects keeps one device, and vxrecord --import blktrace reads the
# export back to the same summary.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
for t in blkparse btt python3; do
	command -v $t >/dev/null || skip "$t not installed (apt-get install blktrace)"
done

"$b/vxrecord" -q -s sim -d 5s --rate 4000 -o "$tmp/t.vxt" || { fail "vxrecord failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report summary --format json > "$tmp/sum.json" || { fail "summary failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report objects --format json > "$tmp/obj.json" || { fail "objects failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --export csv -o "$tmp/all.csv" || { fail "csv export failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --export blktrace -o "$tmp/t.dump" 2>"$tmp/export.err" ||
	{ fail "blktrace export failed"; finish; }
grep -q "no queue phase" "$tmp/export.err" || fail "no word that the export has no queue phase: $(cat "$tmp/export.err")"
"$b/vxreplay" "$tmp/t.vxt" --export blktrace --objects sdb > "$tmp/sdb.dump" 2>/dev/null ||
	{ fail "blktrace export of one object failed"; finish; }
blkparse -i - < "$tmp/t.dump" > "$tmp/blkparse.txt" 2> "$tmp/blkparse.err" ||
	{ cat "$tmp/blkparse.err"; fail "blkparse failed"; }
blkparse -i - < "$tmp/sdb.dump" > "$tmp/sdb.txt" 2>&1 || fail "blkparse failed on one object"
(cd "$tmp" && btt -i t.dump > btt.txt 2>&1) || { tail "$tmp/btt.txt"; fail "btt failed"; }
"$b/vxrecord" -q --import blktrace "$tmp/t.dump" -o "$tmp/back.vxt" || { fail "import of the export failed"; finish; }
"$b/vxreplay" "$tmp/back.vxt" --report summary --format json > "$tmp/back.json" ||
	{ fail "summary of the import failed"; finish; }

python3 - "$tmp" <<'PYEOF' || fail "the python check above"
import csv, json, re, sys
tmp = sys.argv[1]
def fail(m):
    print("export_blktrace:", m); sys.exit(1)
s = json.load(open(tmp + "/sum.json"))
objs = {o["object"]: o for o in json.load(open(tmp + "/obj.json"))}
if s["errors"] == 0 or s["other_ios"] != 0:
    fail("the simulated trace should have errors and only read/write/flush/discard")

def totals(path):
    t = {}
    text = open(path).read()
    for block in re.findall(r"^Total \(([^)]*)\):\n(.*?)\n\n", text, re.S | re.M):
        for k, v in re.findall(r"(Reads Queued|Writes Queued|Read Dispatches|Write Dispatches|"
                               r"Reads Completed|Writes Completed|Reads Requeued|Writes Requeued):"
                               r"\s+(\d+)", block[1]):
            t[k] = t.get(k, 0) + int(v)
        t["devices"] = t.get("devices", 0) + 1
    errs = 0
    for l in text.splitlines():
        m = re.match(r"\s*\d+,\d+\s+\d+\s+\d+\s+[\d.]+\s+\d+\s+C\s+\S+\s+\d+ \+ \d+ \[(\d+)\]", l)
        if m and m.group(1) != "0":
            errs += 1
    return t, errs

t, errs = totals(tmp + "/blkparse.txt")
skips = re.findall(r"^Skips: (\d+) forward", open(tmp + "/blkparse.txt").read(), re.M)
if not skips or any(int(x) for x in skips):
    fail("blkparse reports sequence skips %s: records are numbered wrong" % skips)
want = {
    "Read Dispatches": None, "devices": s["objects"],
    "Reads Completed": s["reads"] + s["flushes"],
    "Writes Completed": s["writes"] + s["discards"],
}
if t["Read Dispatches"] + t["Write Dispatches"] != s["starts"]:
    fail("blkparse dispatches %d, vxreplay starts %d" %
         (t["Read Dispatches"] + t["Write Dispatches"], s["starts"]))
for k in ("Reads Completed", "Writes Completed", "devices"):
    if t[k] != want[k]:
        fail("blkparse %s %d, expected %d" % (k, t[k], want[k]))
if errs != s["errors"]:
    fail("blkparse shows %d failed completions, vxreplay %d" % (errs, s["errors"]))

t1, errs1 = totals(tmp + "/sdb.txt")
o = objs["sdb"]
if t1["devices"] != 1 or t1["Reads Completed"] + t1["Writes Completed"] != o["ios"] or errs1 != o["errors"]:
    fail("--objects sdb: blkparse %s, %d errors; vxreplay %d I/Os, %d errors" %
         (t1, errs1, o["ios"], o["errors"]))

with open(tmp + "/all.csv", newline="") as f:
    rows = list(csv.DictReader(f))
data_done = sum(1 for r in rows if r["phase"] == "done" and int(r["bytes"]) > 0)
if any(r["phase"] not in ("start", "done", "requeue", "lost", "mark") for r in rows):
    fail("the simulator's trace has queue phases: this check needs one without")
# only D and C: btt has no Q to pair them with, so no interval at all
btt = open(tmp + "/btt.txt").read()
for k in ("Q2C", "D2C", "I2D", "Q2I", "Q2G", "G2I"):
    if re.search(r"^%s\s+[\d.]+" % k, btt, re.M):
        fail("btt shows %s from a trace without queue phases: made-up records" % k)
acts = {}
for line in open(tmp + "/blkparse.txt"):
    f = line.split()
    if len(f) > 6 and f[0].count(",") == 1 and f[5].isalpha():
        acts[f[5]] = acts.get(f[5], 0) + 1
for a in ("Q", "I", "G", "M"):
    if acts.get(a):
        fail("blkparse shows %d %s records the trace does not hold" % (acts[a], a))
if acts.get("D", 0) != s["starts"]:
    fail("blkparse shows %d D records, vxreplay %d starts" % (acts.get("D", 0), s["starts"]))

back = json.load(open(tmp + "/back.json"))
for k in ("ios", "reads", "writes", "flushes", "discards", "errors", "starts", "bytes_read",
          "bytes_written", "latency_max_ns", "start_ns", "end_ns"):
    if back[k] != s[k]:
        fail("imported back: %s %s, original %s" % (k, back[k], s[k]))
print("export_blktrace: %d dispatches, %d completions, %d errors, %d with data, no btt interval" %
      (s["starts"], t["Reads Completed"] + t["Writes Completed"], errs, data_done))
PYEOF

# iowatcher draws from the same dump when it is installed.
if command -v iowatcher >/dev/null; then
	(cd "$tmp" && iowatcher -t t.dump -o t.svg > iowatcher.log 2>&1) ||
		{ cat "$tmp/iowatcher.log"; fail "iowatcher failed"; }
	python3 - "$tmp/t.svg" <<'PYEOF' || fail "the python check above"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
texts = {(t.text or "").strip() for t in root.iter() if t.tag.endswith("text")}
for title in ("Device IO", "Throughput", "IO Latency"):
    if title not in texts:
        print("export_blktrace: iowatcher drew no '%s' graph" % title); sys.exit(1)
PYEOF
fi
[ -t 1 ] || { "$b/vxreplay" "$tmp/t.vxt" --export blktrace > /dev/null 2>&1 || fail "export to a pipe failed"; }
[ $fails = 0 ] && ok "export_blktrace: ok"
finish
