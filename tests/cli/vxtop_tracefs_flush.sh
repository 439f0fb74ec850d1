#!/bin/sh
# vxtop_tracefs_flush.sh - vxtop's in-flight count on the real kernel follows
# the device's own (/sys/block/loopN/inflight): an ext4 journal on a loop
# device commits with PREFLUSH/FUA writes (flush requests, a data write, an
# empty completion that ends the sequence); once the I/O stops, every
# interval shows nothing in flight, no busy time, and no start aged out.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
[ -n "${VXT_SAN:-}" ] && skip "timed live capture; not run under the sanitizers"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4 (e2fsprogs)"
"$B/vxtop" -b -c 1 -i 100ms -s tracefs -O none-such </dev/null >/dev/null 2>"$T/probe"
grep -q "unknown source" "$T/probe" && skip "the tracefs source is not built in"
make_loop 64M
mkfs.ext4 -q "$LOOP" || skip "mkfs.ext4 failed on $LOOP"
mkdir "$T/mnt"
mount "$LOOP" "$T/mnt" || skip "cannot mount ext4 on $LOOP"

VX=
stop_vx() { [ -n "$VX" ] && kill "$VX" 2>/dev/null; umount "$T/mnt" 2>/dev/null; }
trap 'stop_vx; cleanup' EXIT

"$B/vxtop" -b -c 8 -i 500ms -F json -s tracefs -O "$LNAME" </dev/null \
	>"$T/top.json" 2>"$T/top.err" &
VX=$!
# recording once the instance traces with its completion event enabled
ready() {
	d=$(tracing_dir)/instances/vxtop-$VX
	[ "$(cat "$d/tracing_on" 2>/dev/null)" = 1 ] &&
		[ "$(cat "$d/events/block/block_rq_complete/enable" 2>/dev/null)" = 1 ]
}
wait_vxtop ready
sleep 0.5
for n in 1 2 3 4 5 6; do	# each fsync: a journal commit and a flush
	dd if=/dev/zero of="$T/mnt/f$n" bs=4k count=4 conv=fsync 2>/dev/null || fail "dd $n"
done
umount "$T/mnt" || fail "umount"
set -- $(cat "/sys/block/$LNAME/inflight")
expect_eq "the kernel's in-flight count after the I/O" "$1 $2" "0 0"
wait "$VX"
rc=$?
VX=
expect_eq "vxtop exit status" "$rc" 0

python3 - "$T/top.json" "$LNAME" <<'EOF' || fail "vxtop kept I/O in flight after it completed"
import json, sys
top = json.load(open(sys.argv[1]))
name = sys.argv[2]
rows = [next((o for o in iv["objects"] if o["name"] == name), None) for iv in top]
active = [i for i, o in enumerate(rows) if o and (o["w_s"] > 0 or o.get("f_s", 0) > 0)]
print("w/s:", [o and o["w_s"] for o in rows])
print("in flight:", [o and o["in_flight"] for o in rows])
print("util:", [o and o["util_pct"] for o in rows])
ok = bool(active)
if not active:
    print("FAIL: no write seen on", name)
tail = rows[active[-1] + 2:] if active else []
if len(tail) < 2:
    print("FAIL: fewer than 2 idle intervals after the I/O"); ok = False
for o in tail:
    if o is None or o["in_flight"] != 0 or o["util_pct"] != 0:
        print("FAIL: idle interval with I/O in flight:", o); ok = False
if any(o and o.get("aged_out", 1) for o in rows):
    print("FAIL: a start aged out"); ok = False
sys.exit(0 if ok else 1)
EOF
finish
