#!/bin/sh
# vxtop_iostat.sh - vxtop -b's iostat -x columns against a brute-force reading
# of the same events: a simulator trace and a real blktrace capture are read
# through with --follow as JSON Lines (each line parsed alone, as jq streams
# it); summed over the intervals, r/s w/s d/s f/s, r_await, w_await, aqu-sz,
# areq-sz, rrqm/s, wrqm/s and Q2C/D2C equal what awk counts in
# `vxreplay --report events --format csv`. Merges and Q2C are null (n/a) when
# the capture has no queue-side phases, never 0.
. "${VXT_TOP:?}/tests/lib.sh"
B=${VXT_BUILD:?}

# brute FILE: per object, from the events: reads writes discards flushes,
# the summed latency of each op class and the completions with a latency,
# the bytes of reads+writes+discards, merges by op, Q2C pairs (FIFO per
# object, op and sector; a merged bio's queueing ends at its merge)
brute() {
	"$B/vxreplay" "$1" --report events --format csv | awk -F, '
	NR == 1 { next }
	{ o = $2; ph = $3; op = $4; sec = $6; by = $7; lat = $8; t = $1; seen[o] = 1 }
	ph == "queue" { k = o SUBSEP op SUBSEP sec; qt[k, qn[k]++] = t; next }
	ph == "merge" { k = o SUBSEP op SUBSEP sec; if (qh[k] < qn[k]) qh[k]++;
		if (op == "read") rm[o]++; else if (op == "write" || op == "write-zeroes") wm[o]++; next }
	ph != "done" { next }
	{
		c = "o"
		if (op == "read") c = "r"
		else if (op == "write" || op == "write-zeroes") c = "w"
		else if (op == "discard") c = "d"
		else if (op == "flush") c = "f"
		n[o, c]++
		rt = lat
		k = o SUBSEP op SUBSEP sec
		if (qh[k] < qn[k]) { rt = t - qt[k, qh[k]++]; q2c[o] += rt; nq[o]++ }
		if (rt > 0) { ls[o, c] += rt; ln[o, c]++ }
		if (lat > 0) { d2c[o] += lat; nd[o]++ }
		if (c != "f" && c != "o") { bytes[o] += by; nios[o]++ }
	}
	END {
		for (o in seen)
			printf "%s %d %d %d %d %.0f %d %.0f %d %.0f %.0f %.0f %d %d %d %.0f %d %.0f %d\n", o,
				n[o, "r"], n[o, "w"], n[o, "d"], n[o, "f"],
				ls[o, "r"], ln[o, "r"], ls[o, "w"], ln[o, "w"],
				ls[o, "r"] + ls[o, "w"] + ls[o, "d"] + ls[o, "f"], bytes[o], nios[o],
				rm[o], wm[o], nq[o], q2c[o], nd[o], d2c[o], 0
	}' >"$2"
}

# check FILE.vxt BRUTE QUEUED(0|1): vxtop's JSON Lines summed against BRUTE
check() {
	"$B/vxtop" --follow "$1" -b -i 500ms -F jsonl </dev/null >"$T/top.jsonl" 2>"$T/err" ||
		{ fail "vxtop --follow $1 failed: $(cat "$T/err")"; finish; }
	python3 - "$T/top.jsonl" "$2" "$3" <<'PY' || fail "the python check above"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
queued = sys.argv[3] == "1"
assert lines, "no output"
acc = {}
for ln in lines:
    iv = json.loads(ln)		# JSON Lines: each line alone
    d = iv["duration_s"]
    for o in iv["objects"]:
        a = acc.setdefault(o["name"], dict(r=0, w=0, d=0, f=0, rl=0, wl=0, q=0, b=0,
                                           rm=0, wm=0, q2c=0, d2c=0))
        a["r"] += o["r_s"] * d; a["w"] += o["w_s"] * d
        a["d"] += o["d_s"] * d; a["f"] += o["f_s"] * d
        a["q"] += o["aqu_sz"] * d
        nios = (o["r_s"] + o["w_s"] + o["d_s"]) * d
        a["b"] += o["areq_sz_kb"] * 1024 * nios
        for k in ("rrqm_s", "wrqm_s", "q2c_avg_us"):
            if queued:
                assert o[k] is not None or (k == "q2c_avg_us"), (k, o)
            else:
                assert o[k] is None, ("%s is %r without queue phases, not null" % (k, o[k]))
        if queued:
            a["rm"] += o["rrqm_s"] * d; a["wm"] += o["wrqm_s"] * d
        a["rl_ms"] = a.get("rl_ms", 0)
        a.setdefault("rw", []).append((o["r_await_ms"], o["w_await_ms"], o["q2c_avg_us"],
                                       o["d2c_avg_us"]))
def near(got, want, rel=2e-3, absol=0.6):
    return abs(got - want) <= max(absol, abs(want) * rel)
bf = {}
for l in open(sys.argv[2]):
    f = l.split()
    bf[f[0]] = [float(x) for x in f[1:]]
# vxtop lists every object of the file, as iostat every device; one with no
# event (e.g. the source of a remap, named MAJ:MIN) has only zero rows
extra = [n for n in set(acc) - set(bf) if any(acc[n][k] for k in ("r", "w", "d", "f", "q", "b", "rm", "wm"))]
assert bf and set(bf) <= set(acc) and not extra, "objects: events %s, vxtop %s" % (sorted(bf), sorted(acc))
for name, v in bf.items():
    r, w, dd, ff, rls, rln, wls, wln, qsum, by, nios, rm, wm, nq, q2c, nd, d2c, _ = v
    a = acc.get(name)
    assert a, "object %s missing" % name
    for k, want in (("r", r), ("w", w), ("d", dd), ("f", ff)):
        assert near(a[k], want), "%s %s/s summed %.2f, events %d" % (name, k, a[k], want)
    assert near(a["q"], qsum / 1e9, 1e-3, 1e-3), "%s aqu-sz*s %.4f, events %.4f" % (name, a["q"], qsum / 1e9)
    assert near(a["b"], by, 1e-3, 4096), "%s areq-sz*ios %.0f, events %.0f bytes" % (name, a["b"], by)
    if queued:
        assert near(a["rm"], rm) and near(a["wm"], wm), "%s merges %.1f/%.1f, events %d/%d" % (name, a["rm"], a["wm"], rm, wm)
    print("%s: r %d w %d d %d f %d, aqu-sz*s %.4f, %d bytes, merges %s" %
          (name, r, w, dd, ff, qsum / 1e9, by, "%d/%d" % (rm, wm) if queued else "n/a"))
PY
}

# the awaits and Q2C/D2C, interval by interval, need the intervals' events:
# checked over a single interval (an hour) that holds the whole file
check_means() {
	"$B/vxtop" --follow "$1" -b -i 1h -F jsonl </dev/null >"$T/one.jsonl" 2>"$T/err" ||
		{ fail "vxtop --follow $1 failed: $(cat "$T/err")"; finish; }
	python3 - "$T/one.jsonl" "$2" "$3" <<'PY' || fail "the python check above"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, "want one interval, got %d" % len(lines)
objs = {o["name"]: o for o in json.loads(lines[0])["objects"]}
assert objs, "no objects"
for l in open(sys.argv[2]):
    f = l.split()
    name = f[0]
    r, w, dd, ff, rls, rln, wls, wln, qsum, by, nios, rm, wm, nq, q2c, nd, d2c, _ = [float(x) for x in f[1:]]
    o = objs[name]
    def mean(s, n, scale):
        return None if n == 0 else s / n / scale
    for key, want in (("r_await_ms", mean(rls, rln, 1e6)), ("w_await_ms", mean(wls, wln, 1e6)),
                      ("q2c_avg_us", mean(q2c, nq, 1e3)), ("d2c_avg_us", mean(d2c, nd, 1e3))):
        got = o[key]
        if want is None:
            assert got is None, "%s %s %r, want null" % (name, key, got)
        else:
            assert got is not None and abs(got - want) <= max(1e-3, want * 1e-6), \
                "%s %s %r, events %.6f" % (name, key, got, want)
    if nq:
        assert o["q2c_avg_us"] >= o["d2c_avg_us"], "%s Q2C below D2C" % name
    print("%s: r_await %s w_await %s q2c %s d2c %s" % (name, o["r_await_ms"], o["w_await_ms"],
          o["q2c_avg_us"], o["d2c_avg_us"]))
PY
}

"$B/vxrecord" -s sim --seed 5 -c 150000 -o "$T/s.vxt" -q || { fail "vxrecord -s sim"; finish; }
brute "$T/s.vxt" "$T/s.bf"
check "$T/s.vxt" "$T/s.bf" 0
"$B/vxrecord" -s sim --seed 5 -c 20000 -o "$T/s1.vxt" -q || { fail "vxrecord -s sim"; finish; }
brute "$T/s1.vxt" "$T/s1.bf"
check_means "$T/s1.vxt" "$T/s1.bf" 0
ok "simulator: iostat columns equal the events; merges and Q2C n/a"

D=${VXT_SHARED:-$VXT_TOP/../shared}/data/blktrace/centos7-sda
if [ -r "$D/sda.blktrace.0" ]; then
	"$B/vxrecord" --import blktrace "$D/sda" -o "$T/b.vxt" -q || { fail "import blktrace"; finish; }
	brute "$T/b.vxt" "$T/b.bf"
	check "$T/b.vxt" "$T/b.bf" 1
	check_means "$T/b.vxt" "$T/b.bf" 1
	ok "blktrace capture: merges and Q2C from its Q and M events"
else
	echo "no blktrace capture in $D: the queue-side columns are checked on the simulator only"
fi
finish
