#!/bin/sh
# vxtop_vs_iostat.sh - live `vxtop -b` against `iostat -x` over the same
# seconds. fio runs randrw (4 KiB, libaio, iodepth 8) for 6 s on a loop
# device while `vxtop -b -i 1 -O loopN -F jsonl` and
# `iostat -x -d -y 1 loopN -o JSON` run side by side, each for 11 intervals
# that begin before fio and end after it. The reference is iostat, that is
# the block layer's own counters (/proc/diskstats). Each figure is compared
# summed over the whole run, all intervals of each tool:
# - r/s and w/s summed (I/Os, as the intervals are 1 s): within 1% plus 20
#   I/Os. Both tools cover all of fio's I/O, so they count the same I/Os;
#   what differs is only each interval's exact length (iostat divides by
#   the jiffies elapsed, vxtop by its clock) and an I/O in flight at the
#   first or last boundary.
# - r_await and w_await, weighted by r/s and w/s (the mean request time of
#   the run), aqu-sz summed and %util summed: vxtop times a request from its
#   issue to its completion (block_rq_issue, block_rq_complete, as
#   biolatency does), the block layer from its allocation to its end
#   (blk_account_io_start, blk_account_io_done: /proc/diskstats). The first
#   window lies inside the second, so vxtop's figures are at most iostat's
#   (plus 3% and 0.01 ms, 0.01 requests or 5 points for the intervals'
#   boundaries and iostat's jiffies), and at least 70% of them: what lies
#   between allocation and issue is the time a request waits in the plug
#   list and the dispatch queue, 6 to 15% of a loop device's await in the
#   runs measured (the shorter the await, the larger its share). A figure
#   counted twice, or an interval too long or too short, falls outside.
# On the tracefs source, then on the ebpf source when it can run here.
# Under the sanitizers (VXT_SAN) the counts are held, the timing printed.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
command -v iostat >/dev/null || skip "no iostat (sysstat)"

TOP= IOS=
pair_cleanup() {
	[ -n "$TOP" ] && kill -9 "$TOP" 2>/dev/null
	[ -n "$IOS" ] && kill -9 "$IOS" 2>/dev/null
	cleanup
}
trap pair_cleanup EXIT

make_loop 256M

# side_by_side SOURCE: both tools over one fio run -> $T/SOURCE.{top,ios}
side_by_side() {
	"$B/vxtop" -b -F jsonl -i 1 -c 11 -s "$1" -O "$LNAME" >"$T/$1.top" 2>"$T/$1.err" &
	TOP=$!
	iostat -x -d -y -o JSON 1 11 "$LNAME" >"$T/$1.ios" 2>"$T/$1.ioserr" &
	IOS=$!
	sleep 2
	fio --name=pair --filename="$LOOP" --direct=1 --rw=randrw --bs=4k --ioengine=libaio \
		--iodepth=8 --time_based --runtime=6 --size=200M --output-format=json \
		>"$T/$1.fio" 2>"$T/fio.err" || fail "$1: fio: $(cat "$T/fio.err")"
	wait $TOP || fail "$1: vxtop exit status $?: $(cat "$T/$1.err")"
	TOP=
	wait $IOS || fail "$1: iostat exit status $?: $(cat "$T/$1.ioserr")"
	IOS=
}

# compare SOURCE: the figures summed over the run, one line per check
compare() {
	python3 - "$T/$1.top" "$T/$1.ios" "$T/$1.fio" "$LNAME" "$1" "${VXT_SAN:-}" <<'PY'
import json, sys
top, ios, fio, dev, src, san = sys.argv[1:]
def tsum(rows, key, w=None):
    return sum((r[key] or 0) * (r[w] if w else 1) for r in rows)
vx = []
for line in open(top):
    j = json.loads(line)
    vx += [o for o in j["objects"] if o["name"] == dev]
st = json.load(open(ios))["sysstat"]["hosts"][0]["statistics"]
io = [d for s in st for d in s["disk"] if d["disk_device"] == dev]
job = json.load(open(fio))["jobs"][0]
if len(vx) < 10 or len(io) < 10:
    print("FAIL: %s: %d vxtop and %d iostat intervals of 11" % (src, len(vx), len(io)))
    sys.exit()
V = {"r": tsum(vx, "r_s"), "w": tsum(vx, "w_s"), "aqu": tsum(vx, "aqu_sz"),
     "util": tsum(vx, "util_pct")}
I = {"r": tsum(io, "r/s"), "w": tsum(io, "w/s"), "aqu": tsum(io, "aqu-sz"),
     "util": tsum(io, "util")}
V["r_await"] = tsum(vx, "r_await_ms", "r_s") / V["r"]
V["w_await"] = tsum(vx, "w_await_ms", "w_s") / V["w"]
I["r_await"] = tsum(io, "r_await", "r/s") / I["r"]
I["w_await"] = tsum(io, "w_await", "w/s") / I["w"]
# (lowest share, highest share, absolute slack) of iostat's figure
tol = {"r": (0.99, 1.01, 20), "w": (0.99, 1.01, 20),
       "r_await": (0.70, 1.03, 0.01), "w_await": (0.70, 1.03, 0.01),
       "aqu": (0.70, 1.03, 0.01), "util": (0.70, 1.03, 5)}
lost = max(json.loads(l).get("lost_total", 0) for l in open(top))
print("%s: fio %d reads %d writes, vxtop %d events lost" %
      (src, job["read"]["total_ios"], job["write"]["total_ios"], lost))
for k, (lo, hi, ab) in tol.items():
    ok = lo * I[k] - ab <= V[k] <= hi * I[k] + ab
    # a sanitizer build's vxtop beside two heavy jobs keeps its counts, not
    # its timing (one run: util 465 against iostat's 526): the timing is
    # held in the plain build's run only
    held = ok or (san and k in ("r_await", "w_await", "aqu", "util"))
    print("%s: %s %s: vxtop %.3f iostat %.3f (from %g%% - %g to %g%% + %g)%s" %
          ("ok" if held else "FAIL", src, k, V[k], I[k], lo * 100, ab, hi * 100, ab,
           "" if ok else " (timing, not held under the sanitizers)" if held else ""))
PY
}

side_by_side tracefs
compare tracefs >"$T/cmp.txt"
cat "$T/cmp.txt"
fails=$((fails + $(grep -c '^FAIL' "$T/cmp.txt")))
if "$B/vxtop" -b -c 1 -i 0.1 -s ebpf -O "$LNAME" >/dev/null 2>&1; then
	side_by_side ebpf
	compare ebpf >"$T/cmp.txt"
	cat "$T/cmp.txt"
	fails=$((fails + $(grep -c '^FAIL' "$T/cmp.txt")))
else
	echo "the ebpf source cannot run here: tracefs only"
fi
finish
