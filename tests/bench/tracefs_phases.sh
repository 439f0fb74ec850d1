#!/bin/sh
# tracefs_phases.sh - `vxrecord --source tracefs --phases all` at a loop
# device's full fio rate (libaio, iodepth 32, 4k random reads and writes,
# mq-deadline so every request is also inserted): events lost with the
# default ring size (the target is 0), events per I/O, and bytes on disk per
# phase event (the target is at most 8). Exits 1 when a target is missed.
#   usage: tests/bench/tracefs_phases.sh [BUILD_DIR]   (VXT_BENCH_SECONDS, default 10)
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
secs=${VXT_BENCH_SECONDS:-10}
say() { echo "tracefs_phases: $*"; }
[ "$(id -u)" -eq 0 ] || { say "skipped (needs root)"; exit 0; }
grep -qw tracefs /proc/filesystems || { say "skipped (no tracefs)"; exit 0; }
command -v fio >/dev/null || { say "skipped (no fio)"; exit 0; }
command -v python3 >/dev/null || { say "skipped (no python3)"; exit 0; }
. "$top/tests/bench/shm_loop.inc"
rec=
cleanup() {
	[ -n "$rec" ] && kill -9 "$rec" 2>/dev/null
	shm_loop_free
}
trap cleanup EXIT
shm_loop 256
sched=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$name/queue/scheduler")
echo mq-deadline >"/sys/block/$name/queue/scheduler" 2>/dev/null &&
	sched=mq-deadline

"$build/vxrecord" --source tracefs --phases all --objects "$name" -o "$dir/p.vxt" \
	2>"$dir/rec.err" &
rec=$!
i=0
while [ ! -e "$dir/p.vxt" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
fio --name=bench --filename="$loop" --direct=1 --rw=randrw --bs=4k --ioengine=libaio \
	--iodepth=32 --time_based --runtime="$secs" --size=256M --output-format=json \
	>"$dir/fio.json" 2>"$dir/fio.err" || { say "fio failed: $(cat "$dir/fio.err")"; exit 1; }
sleep 1
kill -INT "$rec"; wait "$rec"; rec=
"$build/vxreplay" "$dir/p.vxt" --report summary --format json >"$dir/sum.json"
"$build/vxreplay" "$dir/p.vxt" --report events --format csv |
	awk -F, 'NR > 1 { n[$3]++ } END { for (p in n) printf "%s=%d ", p, n[p]; print "" }' \
	>"$dir/phases"

python3 - "$dir" "$secs" "$sched" <<'PY'
import json, os, sys
d, secs, sched = sys.argv[1], float(sys.argv[2]), sys.argv[3]
fio = json.load(open(d + "/fio.json"))["jobs"][0]
ios = fio["read"]["total_ios"] + fio["write"]["total_ios"]
s = json.load(open(d + "/sum.json"))
phases = dict(kv.split("=") for kv in open(d + "/phases").read().split())
events = sum(int(v) for v in phases.values())
size = os.path.getsize(d + "/p.vxt")
note = open(d + "/rec.err").read().strip()
print("tracefs_phases: fio %d I/Os in %.0f s (%.0f IOPS), scheduler %s" % (ios, secs, ios / secs, sched))
print("tracefs_phases: %d events (%s), %.2f per I/O" %
      (events, " ".join("%s %s" % kv for kv in sorted(phases.items())), events / max(ios, 1)))
print("tracefs_phases: %d lost events with the default ring size (target 0)" % s["lost"])
print("tracefs_phases: .vxt %d bytes, %.2f bytes per phase event (target <= 8)" %
      (size, size / max(events, 1)))
if note:
    print("tracefs_phases: vxrecord said: " + note.replace("\n", "; "))
ok = s["lost"] == 0 and size <= 8 * events and s["ios"] >= ios
if s["ios"] < ios:
    print("tracefs_phases: only %d completions recorded for %d fio I/Os" % (s["ios"], ios))
sys.exit(0 if ok else 1)
PY
