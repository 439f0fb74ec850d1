#!/bin/sh
# vxtop_tracefs_loop.sh - vxtop on the real kernel: the tracefs source on a
# loop device while fio reads it at a fixed rate; the loop device's r/s is
# fio's own IOPS, its reads add up to fio's count, and nothing is lost; the
# view's tracefs instance goes when it ends (-n, SIGTERM, SIGINT).
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
# nine one-second intervals must cover fio's run: under the sanitizers the
# source starts several seconds late, so the timing is not this test's to judge
[ -n "${VXT_SAN:-}" ] && skip "timed live capture; not run under the sanitizers"
"$B/vxtop" -b -c 1 -i 100ms -s tracefs -O none-such </dev/null >/dev/null 2>"$T/probe"
grep -q "unknown source" "$T/probe" && skip "the tracefs source is not built in"
make_loop 256M

VX=
stop_vx() { [ -n "$VX" ] && kill "$VX" 2>/dev/null; }
trap 'stop_vx; cleanup' EXIT

"$B/vxtop" -b -c 9 -i 1s -F json -s tracefs -O "$LNAME" </dev/null \
	>"$T/top.json" 2>"$T/top.err" &
VX=$!
# the source is recording once its instance exists; then a little margin
wait_vxtop instance_exists "vxtop-$VX"
sleep 0.5
fio --name=r --filename="$LOOP" --direct=1 --rw=randread --bs=4k --ioengine=psync \
	--time_based --runtime=5 --rate_iops=1000 --size=200M --output-format=json \
	>"$T/fio.json" 2>"$T/fio.err" || { fail "fio: $(cat "$T/fio.err")"; finish; }
wait "$VX"
rc=$?
instance_exists "vxtop-$VX" && fail "vxtop left its instance vxtop-$VX behind" ||
	ok "-n: instance vxtop-$VX removed"
VX=
expect_eq "vxtop exit status" "$rc" 0
[ $rc -eq 0 ] || { cat "$T/top.err"; finish; }

python3 - "$T/top.json" "$T/fio.json" "$LNAME" <<'EOF' || fail "figures differ from fio's"
import json, sys
top = json.load(open(sys.argv[1]))
fio = json.load(open(sys.argv[2]))["jobs"][0]["read"]
name = sys.argv[3]
rs = [next((o["r_s"] for o in iv["objects"] if o["name"] == name), 0.0) for iv in top]
reads = sum(round(r * iv["duration_s"]) for r, iv in zip(rs, top))
busy = [i for i, r in enumerate(rs) if r > 0]
print("r/s per interval:", rs, "fio iops %.1f total %d" % (fio["iops"], fio["total_ios"]))
ok = True
if reads != fio["total_ios"]:
    print("FAIL: reads %d, fio issued %d" % (reads, fio["total_ios"])); ok = False
# intervals fully inside fio's run: all busy ones but the first and the last
inner = [rs[i] for i in busy[1:-1]]
if len(inner) < 2:
    print("FAIL: fio's run covers too few intervals: %s" % rs); ok = False
else:
    mean = sum(inner) / len(inner)
    if abs(mean - fio["iops"]) > 0.10 * fio["iops"]:
        print("FAIL: mean r/s %.1f, fio iops %.1f" % (mean, fio["iops"])); ok = False
    else:
        print("ok: mean r/s %.1f, fio iops %.1f" % (mean, fio["iops"]))
if any(iv["lost"] for iv in top) or top[-1]["lost_total"]:
    print("FAIL: lost events"); ok = False
sys.exit(0 if ok else 1)
EOF

# SIGTERM and SIGINT end the view and remove its instance too
for sig in TERM INT; do
	"$B/vxtop" -b -i 1s -s tracefs -O "$LNAME" </dev/null >/dev/null 2>"$T/top.err" &
	VX=$!
	i=0
	while ! instance_exists "vxtop-$VX" && [ $i -lt 100 ] && kill -0 "$VX" 2>/dev/null; do
		i=$((i + 1))
		sleep 0.1
	done
	instance_exists "vxtop-$VX" || { fail "SIG$sig run: no instance vxtop-$VX"; continue; }
	kill -"$sig" "$VX"
	wait "$VX"
	rc=$?
	expect_eq "vxtop exit status after SIG$sig" "$rc" 0
	instance_exists "vxtop-$VX" && fail "SIG$sig: instance vxtop-$VX left behind" ||
		ok "SIG$sig: instance vxtop-$VX removed"
	VX=
done
finish
