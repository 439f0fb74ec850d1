#!/bin/sh
# vxtop_batch.sh - vxtop -b without a terminal: JSON is one valid document with
# one object per interval, rates match the simulator's configured workload,
# the scheduled errors are reported, and the text table lists every object.
. "${VXT_TOP:?}/tests/lib.sh"
B=${VXT_BUILD:?}

# 20000 events/s = 10000 I/O/s; alpha gets 1/4 (all reads), beta 3/4 (all
# writes); 1 in 200 I/Os is a flush.
OBJS="alpha:rand:100:4k:1ms:1,beta:rand:0:8k:2ms:3"
ERRS="beta@1s+7:EIO,alpha@1500ms+3:ENOSPC"

"$B/vxtop" -b -c 3 -i 1s -F json -s sim --seed 3 --rate 20000 \
	--sim-objects "$OBJS" --sim-errors "$ERRS" </dev/null >"$T/out.json" 2>"$T/err" || {
	fail "vxtop -b failed"; cat "$T/err"; finish; }

python3 - "$T/out.json" <<'EOF' || fail "the python check above"
import json, sys
doc = json.load(open(sys.argv[1]))
assert isinstance(doc, list), "not an array"
assert len(doc) == 3, "expected 3 intervals, got %d" % len(doc)
for i, iv in enumerate(doc):
    assert iv["interval"] == i + 1, iv["interval"]
    assert abs(iv["duration_s"] - 1.0) < 0.01, iv["duration_s"]
    assert iv["source"] == "sim"
    assert iv["lost"] == 0 and iv["lost_total"] == 0
    names = sorted(o["name"] for o in iv["objects"])
    assert names == ["alpha", "beta"], names
# steady state: the last two intervals
for iv in doc[1:]:
    objs = {o["name"]: o for o in iv["objects"]}
    a, b = objs["alpha"], objs["beta"]
    def near(v, want, tol=0.10):
        return abs(v - want) <= tol * want
    assert near(a["r_s"], 2500 * 0.995), ("alpha r/s", a["r_s"])
    assert near(b["w_s"], 7500 * 0.995), ("beta w/s", b["w_s"])
    assert a["w_s"] == 0 and b["r_s"] == 0, (a["w_s"], b["r_s"])
    # iostat's MB: 2^20 bytes
    assert abs(a["rmb_s"] - a["r_s"] * 4096 / 1048576) < 0.001, ("alpha rMB/s", a["rmb_s"])
    # flushes (1 in 200) have their own column, discards none here
    assert near(a["f_s"] + b["f_s"], 10000 * 0.005, 0.35), ("f/s", a["f_s"], b["f_s"])
    assert a["d_s"] == 0 and b["d_s"] == 0
    # p99 is never below the mean of the latencies above it
    assert a["p99_lat_us"] >= a["avg_lat_us"], (a["p99_lat_us"], a["avg_lat_us"])
    assert near(iv["events_per_s"], 20000), iv["events_per_s"]
    assert 500 < a["avg_lat_us"] < 2000, a["avg_lat_us"]
    assert 0 < b["util_pct"] <= 100, b["util_pct"]
errs = [e for iv in doc for e in iv["new_errors"]]
kinds = sorted(set((e["object"], e["errno"]) for e in errs))
assert kinds == [("alpha", "ENOSPC"), ("beta", "EIO")], kinds
assert sum(1 for e in errs if e["object"] == "beta") == 7
assert sum(1 for e in errs if e["object"] == "alpha") == 3
assert doc[-1]["errors_total"] == 10, doc[-1]["errors_total"]
assert sum(iv["errors"] for iv in doc) == 10
print("json ok:", [round(iv["events_per_s"]) for iv in doc])
EOF

# util% against queueing theory: Poisson arrivals at rate L with service
# times S keep an object busy a share 1 - exp(-L * E[S]) of the time.
"$B/vxtop" -b -c 4 -s sim --seed 9 --rate 400 --sim-objects "u:rand:50:4k:1ms:1" \
	--sim-errors none --format json </dev/null >"$T/util.json" 2>"$T/err" || {
	fail "vxtop -b (util) failed"; cat "$T/err"; finish; }
python3 - "$T/util.json" <<'EOF' || fail "the python check above"
import json, math, sys
doc = json.load(open(sys.argv[1]))
got = want = 0.0
for iv in doc:
    o = iv["objects"][0]
    load = (o["r_s"] + o["w_s"]) * o["avg_lat_us"] / 1e6
    got += o["util_pct"]
    want += 100 * (1 - math.exp(-load))
print("util%% %.1f, theory %.1f" % (got / len(doc), want / len(doc)))
assert abs(got - want) <= 0.15 * want, (got, want)
EOF

# An object without completions in an interval has no latency: null, not 0.
"$B/vxtop" -b -c 2 -i 500ms -F json -s sim --seed 3 --rate 20000 --sim-objects "$OBJS" \
	--sim-errors none --filter 'object == "alpha"' </dev/null >"$T/idle.json" 2>"$T/err" || {
	fail "vxtop -b --filter failed"; cat "$T/err"; finish; }
python3 - "$T/idle.json" <<'EOF' || fail "the python check above"
import json, sys
for iv in json.load(open(sys.argv[1])):
    objs = {o["name"]: o for o in iv["objects"]}
    b, a = objs["beta"], objs["alpha"]
    assert b["avg_lat_us"] is None and b["p99_lat_us"] is None, b
    assert a["avg_lat_us"] is not None and a["avg_lat_us"] > 0, a
EOF

# Text: one table per interval, every object in each.
"$B/vxtop" -b -c 2 -i 500ms -s sim --seed 3 --rate 20000 --sim-objects "$OBJS" \
	--sim-errors none </dev/null >"$T/out.txt" 2>"$T/err" || {
	fail "vxtop -b text failed"; cat "$T/err"; finish; }
n=$(grep -c '^OBJECT' "$T/out.txt")
[ "$n" -eq 2 ] || { fail "expected 2 tables, got $n"; cat "$T/out.txt"; }
[ "$(grep -c '^alpha ' "$T/out.txt")" -eq 2 ] || { fail "alpha missing"; cat "$T/out.txt"; }
grep -q 'interval 0.50s' "$T/out.txt" || { fail "interval not 0.5s"; cat "$T/out.txt"; }

# --sort and --match apply to the batch table.
"$B/vxtop" -b -c 1 -s sim --rate 20000 --sim-objects "$OBJS" --sim-errors none \
	--sort w/s </dev/null >"$T/sorted.txt" 2>&1 ||
	{ fail "vxtop --sort w/s failed"; cat "$T/sorted.txt"; finish; }
first=$(awk '/^OBJECT/ { getline; print $1; exit }' "$T/sorted.txt")
[ "$first" = beta ] || { fail "sort by w/s: first row $first"; cat "$T/sorted.txt"; }
"$B/vxtop" -b -c 1 -s sim --rate 20000 --sim-objects "$OBJS" --sim-errors none \
	--match 'al*' </dev/null >"$T/filtered.txt" 2>&1 ||
	{ fail "vxtop --match failed"; cat "$T/filtered.txt"; finish; }
if grep -q '^beta' "$T/filtered.txt" || ! grep -q '^alpha' "$T/filtered.txt"; then
	fail "filter al* wrong"; cat "$T/filtered.txt"
fi

# --filter counts only the matching events: alpha only reads, beta only writes.
"$B/vxtop" -b -c 1 -s sim --rate 20000 --sim-objects "$OBJS" --sim-errors none \
	--filter 'op == write' </dev/null >"$T/where.txt" 2>&1 ||
	{ fail "vxtop --filter failed"; cat "$T/where.txt"; finish; }
awk '$1 == "alpha" && $2 + $3 != 0 { bad = 1 } $1 == "beta" && $3 < 5000 { bad = 1 }
     END { exit bad }' "$T/where.txt" || { fail "--filter 'op == write' wrong"; cat "$T/where.txt"; }
"$B/vxtop" -b -c 1 -s sim --filter 'op ===' </dev/null >/dev/null 2>"$T/err"
[ $? -ne 0 ] && grep -q "filter:1:" "$T/err" || { fail "bad --filter accepted"; cat "$T/err"; }

# Stopped by SIGINT without -n: the JSON document is still complete.
timeout -s INT 2.5 "$B/vxtop" -b -s sim --rate 5000 -F json </dev/null >"$T/int.json" 2>"$T/err"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert len(d) >= 1, d' \
	"$T/int.json" || { fail "SIGINT left invalid JSON"; cat "$T/int.json"; }

# Bad usage exits 2 with a message; the live view refuses a non-terminal.
"$B/vxtop" -b --format xml >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "unknown format" "$T/err" || fail "bad --format accepted"
"$B/vxtop" -s sim </dev/null >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "not a terminal" "$T/err" || fail "live view without a terminal"
[ $fails = 0 ] && ok "vxtop -b: tables, JSON, sort, match and filter"
finish
