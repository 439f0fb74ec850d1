#!/bin/sh
# vxtop_follow.sh - twin mode: vxtop --follow on a file that vxrecord is
# writing sees the new events within two intervals, at the recorder's rate,
# with the recorder's scheduled errors; -w records what the view saw.
. "${VXT_TOP:?}/tests/lib.sh"
B=${VXT_BUILD:?}
rec=
cleanup() {
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

"$B/vxrecord" -o "$T/live.vxt" -s sim --realtime -d 9s -q --rate 10000 --seed 5 \
	--sim-errors "sdb@3s+6:EIO" 2>"$T/rec.err" &
rec=$!
# Start the view once the recorder has created the file; what is already in
# the file is history and must not be counted.
i=0
while [ ! -s "$T/live.vxt" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$T/live.vxt" ] || { fail "vxrecord made no file"; cat "$T/rec.err"; finish; }
sleep 1
"$B/vxtop" -b -c 4 -i 1s -F json --follow "$T/live.vxt" </dev/null \
	>"$T/follow.json" 2>"$T/err" || { fail "vxtop --follow failed"; cat "$T/err"; finish; }

python3 - "$T/follow.json" <<'EOF' || fail "the python check above"
import json, sys
doc = json.load(open(sys.argv[1]))
assert len(doc) == 4, len(doc)
ev = [iv["events"] for iv in doc]
print("events per interval:", ev)
# within two intervals the view shows the recorder's new events ...
assert ev[0] > 0 or ev[1] > 0, ev
# ... and from then on the recorder's rate (10000 events/s), not more: the
# history before the view started is not counted
assert ev[0] < 10600, ev  # no history from before the view
# (a chunk the loaded recorder closes late may move events to the next
# interval: the check is on the sum)
assert all(n > 0 for n in ev[1:]), ev
assert 0.9 * 30000 < sum(ev[1:]) < 1.1 * 30000, ev
assert doc[0]["source"].startswith("follow "), doc[0]["source"]
names = sorted(o["name"] for o in doc[-1]["objects"])
assert names == ["dm-0", "nvme0n1", "sda", "sdb"], names
errs = [e for iv in doc for e in iv["new_errors"]]
assert len(errs) == 6 and all(e["object"] == "sdb" and e["errno"] == "EIO" for e in errs), errs
EOF
wait "$rec" || { fail "vxrecord failed"; cat "$T/rec.err"; }
rec=

# -w: the view records while it shows; the file holds what was seen.
"$B/vxtop" -b -c 2 -i 500ms -s sim --rate 10000 -o "$T/w.vxt" </dev/null >"$T/w.txt" 2>"$T/err" || {
	fail "vxtop -w failed"; cat "$T/err"; finish; }
"$B/vxreplay" --info "$T/w.vxt" >"$T/info" 2>&1 || { fail "-w file unreadable"; cat "$T/info"; finish; }
grep -q '^index: *footer' "$T/info" || { fail "-w file not closed cleanly"; cat "$T/info"; }
n=$(awk '/^events:/ { print $2 }' "$T/info")
[ "${n:-0}" -ge 9000 ] || { fail "-w recorded only ${n:-0} events"; cat "$T/info"; }
"$B/vxtop" -b -c 1 -s sim -o "$T/w.vxt" </dev/null >/dev/null 2>"$T/err"
[ $? -ne 0 ] || fail "-w overwrote an existing file"
"$B/vxtop" -b -c 1 --follow "$T/w.vxt" -o "$T/x.vxt" </dev/null >/dev/null 2>"$T/err"
[ $? -ne 0 ] || fail "-w with --follow accepted"
[ $fails = 0 ] && ok "vxtop --follow and -o"
finish
