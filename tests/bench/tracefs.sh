#!/bin/sh
# tracefs.sh - the tracefs source at a loop device's full fio rate: lost
# events at default settings, and bytes on disk per I/O against
# `trace-cmd record` of the same events in the same run.
#
# trace-cmd (3.1, file version 6) writes the raw ring pages of each CPU plus
# a fixed header (event formats, kallsyms, printk formats). Where
# `trace-cmd record` cannot run (it needs /proc/sys/kernel/ftrace_enabled
# and set_ftrace_filter writable, which containers often refuse), the same
# pages are copied from a second instance with the same events and filters
# (counting the bytes used in each page, as trace-cmd only writes full
# pages), and trace-cmd's header is measured from a recording of nothing.
#   usage: tests/bench/tracefs.sh [BUILD_DIR]   (VXT_BENCH_SECONDS, default 10)
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
secs=${VXT_BENCH_SECONDS:-10}
say() { echo "tracefs: $*"; }
[ "$(id -u)" -eq 0 ] || { say "skipped (needs root)"; exit 0; }
grep -qw tracefs /proc/filesystems || { say "skipped (no tracefs)"; exit 0; }
command -v fio >/dev/null || { say "skipped (no fio)"; exit 0; }
. "$top/tests/bench/shm_loop.inc"
rec= tc= raw= cats=
cleanup() {
	[ -n "$rec" ] && kill -9 "$rec" 2>/dev/null
	[ -n "$tc" ] && kill -9 "$tc" 2>/dev/null
	for p in $cats; do kill -9 "$p" 2>/dev/null; done
	[ -n "$raw" ] && { echo 0 >"$raw/events/enable"; sleep 0.2; rmdir "$raw"; }
	shm_loop_free
}
trap cleanup EXIT
shm_loop 256
dev=$(( $(stat -c 0x%t "$loop") << 20 | $(stat -c 0x%T "$loop") ))

# does trace-cmd record work here?
tcok=0
if command -v trace-cmd >/dev/null &&
   trace-cmd record -q -d -B "vxt-bench-t$$" -e block:block_rq_issue -o "$dir/empty.dat" \
	true >"$dir/tc.log" 2>&1; then
	tcok=1
fi
td=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$td" ] && [ -d "$td/instances/vxt-bench-t$$" ] && rmdir "$td/instances/vxt-bench-t$$"

"$build/vxrecord" --source tracefs --objects "$name" -o "$dir/f.vxt" -q &
rec=$!
if [ $tcok = 1 ]; then
	trace-cmd record -q -d -B "vxt-bench-$$" \
		-e block:block_rq_issue -f "dev == $dev" \
		-e block:block_rq_complete -f "dev == $dev" \
		-o "$dir/trace.dat" >"$dir/tc.log" 2>&1 &
	tc=$!
elif [ -n "$td" ]; then
	raw=$td/instances/vxt-bench-raw-$$
	mkdir "$raw"
	echo 4096 >"$raw/buffer_size_kb"
	for e in block_rq_issue block_rq_complete; do
		echo "dev == $dev" >"$raw/events/block/$e/filter"
		echo 1 >"$raw/events/block/$e/enable"
	done
	for c in "$raw"/per_cpu/cpu*; do
		cat "$c/trace_pipe_raw" >"$dir/raw.$(basename "$c")" &
		cats="$cats $!"
	done
fi
i=0
while [ ! -e "$dir/f.vxt" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1	# trace-cmd sets up too
fio --name=bench --filename="$loop" --direct=1 --rw=randrw --bs=4k --ioengine=libaio \
	--iodepth=16 --time_based --runtime="$secs" --size=256M --output-format=json \
	>"$dir/fio.json" 2>"$dir/fio.err" || { say "fio failed: $(cat "$dir/fio.err")"; exit 1; }
sleep 1
kill -INT "$rec"; wait "$rec"; rec=
[ -n "$tc" ] && { kill -INT "$tc"; wait "$tc"; tc=; }
if [ -n "$raw" ]; then
	echo 0 >"$raw/tracing_on"
	for p in $cats; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	cats=
	for c in "$raw"/per_cpu/cpu*; do	# what is left in partial pages
		dd if="$c/trace_pipe_raw" iflag=nonblock bs=4096 2>/dev/null \
			>>"$dir/raw.$(basename "$c")"
	done
	cat "$dir"/raw.cpu* >"$dir/pages.raw"
	cat "$raw"/per_cpu/cpu*/stats >"$dir/raw.stats"
	# trace-cmd's fixed header, from a recording of nothing (even when it fails late)
	trace-cmd record -d -e block:block_rq_issue -o "$dir/empty.dat" true >/dev/null 2>&1
	[ -d "$td/instances/vxt-bench-t$$" ] && rmdir "$td/instances/vxt-bench-t$$"
fi

python3 - "$dir" "$build" "$secs" <<'PY'
import json, os, subprocess, sys
d, build, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
fio = json.load(open(d + "/fio.json"))["jobs"][0]
ios = fio["read"]["total_ios"] + fio["write"]["total_ios"]
s = json.loads(subprocess.run([build + "/vxreplay", d + "/f.vxt", "--report", "summary",
                               "--format", "json"], capture_output=True, text=True).stdout)
vxt = os.path.getsize(d + "/f.vxt")
print("tracefs: fio %d I/Os in %.0f s (%.0f IOPS, 2 events each)" % (ios, secs, ios / secs))
print("tracefs: captured %d completions, %d starts, %d lost events (default settings)"
      % (s["ios"], s["starts"], s["lost"]))
print("tracefs: .vxt %d bytes, %.2f bytes per I/O" % (vxt, vxt / max(ios, 1)))
def ratio(what, tc):
    print("tracefs: %s %d bytes, %.2f bytes per I/O; .vxt is %.1fx smaller"
          % (what, tc, tc / max(ios, 1), tc / max(vxt, 1)))
if os.path.exists(d + "/trace.dat"):
    ratio("trace-cmd record trace.dat", os.path.getsize(d + "/trace.dat"))
elif os.path.exists(d + "/pages.raw"):
    # read() hands out partly filled pages; trace-cmd splices full ones:
    # count the bytes used in each page (its commit field), per event read,
    # and fill pages for every event of the run (the copy may have lost some)
    import re, struct
    raw = open(d + "/pages.raw", "rb").read()
    used = sum(struct.unpack_from("<Q", raw, o + 8)[0] & ((1 << 27) - 1)
               for o in range(0, len(raw) - 4095, 4096))
    stats = open(d + "/raw.stats").read()
    nread = sum(int(x) for x in re.findall(r"read events: (\d+)", stats))
    lost = sum(int(x) for x in re.findall(r"^overrun: (\d+)", stats, re.M))
    per_event = used / max(nread, 1)
    print("tracefs: ring copy: %d events read, %d overrun; %.1f bytes per event"
          % (nread, lost, per_event))
    pages = -(-int(per_event * 2 * ios) // (4096 - 16)) * 4096
    hdr = os.path.getsize(d + "/empty.dat") if os.path.exists(d + "/empty.dat") else 0
    print("tracefs: trace-cmd record cannot run here; its data is the raw ring pages")
    ratio("ring pages alone", pages)
    if hdr:
        ratio("trace-cmd equivalent (pages + %d-byte header)" % hdr, pages + hdr)
else:
    print("tracefs: no trace-cmd and no tracefs for a comparison")
PY
