#!/bin/sh
# vxtop_profile.sh - vxtop --profile keeps what the profile keeps: with
# errors-in-context only the I/O around each error counts, on the failing
# object alone; writes-only leaves no reads; a broken profile is refused with
# its file:line:column.
. "${VXT_TOP:?}/tests/lib.sh"
B=${VXT_BUILD:?}

"$B/vxtop" -b -c 4 -s sim --seed 2 --rate 20000 --sim-errors "sdb@1s+5:EIO" \
	--profile errors-in-context --format json </dev/null >"$T/ctx.json" 2>"$T/err" || {
	fail "vxtop --profile errors-in-context failed"; cat "$T/err"; finish; }
python3 - "$T/ctx.json" <<'EOF' || fail "the python check above"
import json, sys
doc = json.load(open(sys.argv[1]))
assert len(doc) == 4, len(doc)
assert all(iv["profile"] == "errors-in-context" for iv in doc)
ios = {}
for iv in doc:
    for o in iv["objects"]:
        ios[o["name"]] = ios.get(o["name"], 0) + o["r_s"] + o["w_s"]
print("I/O per second summed over the intervals:", ios)
# 200 ms before and 50 ms after the errors on sdb: ~250 ms of sdb's I/O
assert ios["sdb"] > 100, ios
assert ios["sda"] == ios["nvme0n1"] == ios["dm-0"] == 0, ios
assert sum(iv["errors"] for iv in doc) == 5, [iv["errors"] for iv in doc]
spec = doc[-1]["spec"]
assert spec and spec["committed"] >= 1 and spec["failed"] == 0 and spec["drops"] == 0, spec
# everything else is left out: far fewer events than the 20000/s made
assert sum(iv["events"] for iv in doc) < 20000, [iv["events"] for iv in doc]
EOF

"$B/vxtop" -b -c 2 -s sim --rate 20000 --sim-errors none --profile writes-only \
	--format json </dev/null >"$T/w.json" 2>"$T/err" || {
	fail "vxtop --profile writes-only failed"; cat "$T/err"; finish; }
python3 - "$T/w.json" <<'EOF' || fail "the python check above"
import json, sys
doc = json.load(open(sys.argv[1]))
for iv in doc:
    assert iv["spec"] is None, iv["spec"]
    for o in iv["objects"]:
        assert o["r_s"] == 0, o
    assert sum(o["w_s"] for o in iv["objects"]) > 1000, iv["objects"]
EOF

printf 'name: broken\nfilter: "op =="\n' >"$T/broken.yaml"
"$B/vxtop" -b -c 1 -s sim --profile "$T/broken.yaml" </dev/null >/dev/null 2>"$T/err"
[ $? -ne 0 ] && grep -q "broken.yaml:2:" "$T/err" || {
	fail "a broken profile was not refused with its position"; cat "$T/err"; }
"$B/vxtop" -b -c 1 -s sim --profile no-such-profile </dev/null >/dev/null 2>"$T/err"
[ $? -ne 0 ] || fail "an unknown profile was accepted"
[ $fails = 0 ] && ok "vxtop --profile"
finish
