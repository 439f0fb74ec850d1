#!/bin/sh
# export_chrome.sh - vxreplay --export chrome writes Chrome trace-event JSON
# that Perfetto opens: a complete event per completed I/O on a lane of its
# object, lanes whose slices never overlap, an instant per error, process and
# lane names; counts equal the summary report.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
command -v python3 >/dev/null || skip "python3 not installed"

"$b/vxrecord" -q -s sim -d 5s --rate 4000 -o "$tmp/t.vxt" || { fail "vxrecord failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report summary --format json > "$tmp/sum.json" || { fail "summary failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report objects --format json > "$tmp/obj.json" || { fail "objects failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --export chrome -o "$tmp/all.json" || { fail "chrome export failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --export chrome --objects sdb > "$tmp/sdb.json" ||
	{ fail "chrome export of one object failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --export chrome --profile errors-in-context -o "$tmp/prof.json" ||
	{ fail "chrome export through a profile failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report summary --format json --profile errors-in-context \
	> "$tmp/prof-sum.json" || { fail "summary through a profile failed"; finish; }

python3 - "$tmp" <<'PYEOF' || fail "the python check above"
import json, sys
tmp = sys.argv[1]
def fail(m):
    print("export_chrome:", m); sys.exit(1)
s = json.load(open(tmp + "/sum.json"))
objs = {o["object"]: o for o in json.load(open(tmp + "/obj.json"))}

def check(path, want_ios, want_errors, want_names):
    d = json.load(open(path))
    if not isinstance(d, dict) or not isinstance(d.get("traceEvents"), list):
        fail("%s: no traceEvents array" % path)
    ops = {"read", "write", "flush", "discard", "write-zeroes", "passthru", "other"}
    lanes, names, nx, ni = {}, {}, 0, 0
    for e in d["traceEvents"]:
        for k in ("ph", "name", "pid", "tid"):
            if k not in e:
                fail("event without %s: %s" % (k, e))
        if not isinstance(e["pid"], int) or not isinstance(e["tid"], int):
            fail("pid/tid not integers: %s" % e)
        if e["ph"] == "X":
            nx += 1
            if e["name"] not in ops or e["ts"] < 0 or e["dur"] < 0:
                fail("bad complete event %s" % e)
            if e["tid"] == 0:
                fail("I/O on the errors lane: %s" % e)
            start = round(e["ts"] * 1000)
            lanes.setdefault((e["pid"], e["tid"]), []).append((start, start + round(e["dur"] * 1000)))
        elif e["ph"] == "i":
            if e.get("s") not in ("t", "p", "g") or "ts" not in e:
                fail("bad instant event %s" % e)
            if e.get("cat") == "error":
                ni += 1
        elif e["ph"] == "M":
            if e["name"] == "process_name":
                names[e["pid"]] = e["args"]["name"]
        else:
            fail("unexpected phase %s" % e["ph"])
    if nx != want_ios:
        fail("%s: %d complete events, expected %d I/Os" % (path, nx, want_ios))
    if ni != want_errors:
        fail("%s: %d error instants, expected %d" % (path, ni, want_errors))
    for lane, iv in lanes.items():
        iv.sort()
        for (a0, a1), (b0, b1) in zip(iv, iv[1:]):
            if b0 < a1:
                fail("overlapping slices on lane %s: %s and %s" % (lane, (a0, a1), (b0, b1)))
        if lane[0] not in names:
            fail("lane %s has no process name" % (lane,))
    got = sorted(n for p, n in names.items() if p != 0)
    if got != sorted(want_names):
        fail("process names %s, expected %s" % (got, sorted(want_names)))
    return nx, len(lanes)

nx, nl = check(tmp + "/all.json", s["ios"], s["errors"], list(objs))
if s["errors"] == 0:
    fail("the simulated trace has no errors")
check(tmp + "/sdb.json", objs["sdb"]["ios"], objs["sdb"]["errors"], ["sdb"])
ps = json.load(open(tmp + "/prof-sum.json"))
if ps["kept"] >= s["events"] or ps["errors"] != s["errors"]:
    fail("the profile kept %d of %d events, %d errors" % (ps["kept"], s["events"], ps["errors"]))
with_names = [n for n in objs if objs[n]["errors"]]
check(tmp + "/prof.json", ps["ios"], ps["errors"], with_names)
print("export_chrome: %d I/Os on %d lanes, %d errors" % (nx, nl, s["errors"]))
PYEOF
[ $fails = 0 ] && ok "export_chrome: ok"
finish
