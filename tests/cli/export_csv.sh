#!/bin/sh
# export_csv.sh - vxreplay --export csv and jsonl: one row per event with the
# column names vxt(5) documents, counts equal to the summary report, and
# --from/--to/--objects honoured.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
command -v python3 >/dev/null || skip "python3 not installed"

"$b/vxrecord" -q -s sim -d 5s --rate 4000 -o "$tmp/t.vxt" || { fail "vxrecord failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report summary --format json > "$tmp/sum.json" || { fail "summary failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --export csv -o "$tmp/all.csv" || { fail "csv export failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --export jsonl > "$tmp/all.jsonl" || { fail "jsonl export failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --export csv --objects sdb --from 0.5 --to +2s -o "$tmp/part.csv" ||
	{ fail "scoped csv export failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report events --format csv --objects sdb --from 0.5 --to +2s \
	-o "$tmp/part-events.csv" || { fail "events report failed"; finish; }
cmp -s "$tmp/part.csv" "$tmp/part-events.csv" || fail "scoped csv differs from the events report"
"$b/vxreplay" "$tmp/t.vxt" --export csv --filter 'error == EIO && op == write' -o "$tmp/eio.csv" ||
	{ fail "filtered csv export failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --export csv --filter 'op == wrte' > /dev/null 2>&1
[ $? -eq 2 ] || fail "a bad filter should exit 2"

python3 - "$tmp" <<'PYEOF' || fail "the python check above"
import csv, json, sys
tmp = sys.argv[1]
cols = ["time_ns", "object", "phase", "op", "flags", "sector", "bytes", "latency_ns",
        "error", "errname", "pid", "comm", "cpu", "host"]
s = json.load(open(tmp + "/sum.json"))
def fail(m):
    print("export_csv:", m); sys.exit(1)
with open(tmp + "/all.csv", newline="") as f:
    rows = list(csv.reader(f))
if rows[0] != cols:
    fail("csv header %s" % rows[0])
rows = [dict(zip(cols, r)) for r in rows[1:]]
if len(rows) != s["events"]:
    fail("csv rows %d, summary events %d" % (len(rows), s["events"]))
errs = sum(1 for r in rows if r["phase"] == "done" and r["error"] != "0")
if errs != s["errors"] or errs == 0:
    fail("csv errors %d, summary errors %d" % (errs, s["errors"]))
if any(r["error"] != "0" and not r["errname"] for r in rows):
    fail("csv error row without errname")
times = [int(r["time_ns"]) for r in rows]
if times != sorted(times):
    fail("csv rows not in time order")
lines = open(tmp + "/all.jsonl").read().splitlines()
if len(lines) != s["events"]:
    fail("jsonl lines %d, summary events %d" % (len(lines), s["events"]))
keys = ["time_ns", "rel_ns"] + cols[1:]
for i, (l, r) in enumerate(zip(lines, rows)):
    o = json.loads(l)
    if list(o.keys()) != keys:
        fail("jsonl keys %s" % list(o.keys()))
    if str(o["time_ns"]) != r["time_ns"] or o["object"] != r["object"] or \
       str(o["sector"]) != r["sector"] or str(o["error"]) != r["error"]:
        fail("jsonl line %d differs from csv row" % (i + 1))
with open(tmp + "/part.csv", newline="") as f:
    part = list(csv.DictReader(f))
t0 = s["start_ns"]
if not part:
    fail("scoped export is empty")
for r in part:
    t = int(r["time_ns"]) - t0
    if r["object"] != "sdb" or t < 500000000 or t > 2500000000:
        fail("scoped row out of scope: %s" % r)
want = sum(1 for r in rows if r["object"] == "sdb" and
           500000000 <= int(r["time_ns"]) - t0 <= 2500000000)
if want != len(part):
    fail("scoped export has %d rows, expected %d" % (len(part), want))
with open(tmp + "/eio.csv", newline="") as f:
    eio = list(csv.DictReader(f))
want = [r for r in rows if r["errname"] == "EIO" and r["op"] == "write"]
if not want or [r["time_ns"] for r in eio] != [r["time_ns"] for r in want]:
    fail("--filter kept %d rows, expected %d" % (len(eio), len(want)))
print("export_csv: %d events, %d errors, %d in scope" % (len(rows), errs, len(part)))
PYEOF

# Names with commas, quotes, backslashes and control characters (a blktrace
# capture's process and message notes) survive CSV quoting and JSON escaping.
python3 - "$tmp/odd.blk" <<'PYEOF' || fail "the python check above"
import struct, sys
def rec(seq, t, sector, nbytes, action, pid, cpu, err, pdu=b""):
    return struct.pack("<IIQQIIIIIHH", 0x65617407, seq, t, sector, nbytes, action, pid,
                       8 << 20 | 16, cpu, err, len(pdu)) + pdu
NOTIFY, WRITE, ISSUE, COMPLETE = 1 << 10, 1 << 1, 1 << 6, 1 << 7
out = rec(0, 1000, 0, 0, NOTIFY << 16 | 0, 42, 0, 0, b'a,b"c\x01d\\e\0')
out += rec(0, 1500, 0, 0, NOTIFY << 16 | 2, 0, 0, 0, b'he said "hi", ok\n\x02\0')
out += rec(1, 2000, 100, 4096, (WRITE | ISSUE) << 16 | 7, 42, 0, 0)
out += rec(2, 9000, 100, 4096, (WRITE | COMPLETE) << 16 | 8, 42, 0, (-5) & 0xffff)
open(sys.argv[1], "wb").write(out)
PYEOF
"$b/vxrecord" -q --import blktrace "$tmp/odd.blk" -o "$tmp/odd.vxt" || { fail "import of odd names failed"; finish; }
"$b/vxreplay" "$tmp/odd.vxt" --export csv -o "$tmp/odd.csv" || { fail "csv export of odd names failed"; finish; }
"$b/vxreplay" "$tmp/odd.vxt" --export jsonl -o "$tmp/odd.jsonl" || { fail "jsonl export of odd names failed"; finish; }
python3 - "$tmp" <<'PYEOF' || fail "the python check above"
import csv, json, sys
tmp = sys.argv[1]
want = ['he said "hi", ok\n\x02', 'a,b"c\x01d\\e', 'a,b"c\x01d\\e']
with open(tmp + "/odd.csv", newline="") as f:
    got = [r["comm"] for r in csv.DictReader(f)]
if got != want:
    print("export_csv: csv names %r, expected %r" % (got, want)); sys.exit(1)
got = [json.loads(l)["comm"] for l in open(tmp + "/odd.jsonl")]
if got != want:
    print("export_csv: jsonl names %r, expected %r" % (got, want)); sys.exit(1)
PYEOF

"$b/vxreplay" "$tmp/t.vxt" --export xml >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown export format should exit 2"
"$b/vxreplay" "$tmp/t.vxt" --export csv -o "$tmp/no/such/dir.csv" 2>/dev/null
[ $? -eq 1 ] || fail "unwritable output should exit 1"
[ $fails = 0 ] && ok "export_csv: ok"
finish
