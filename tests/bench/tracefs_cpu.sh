#!/bin/sh
# tracefs_cpu.sh - what vxrecord --source tracefs spends per event: its own
# CPU time (user + system, from the kernel's rusage of the process when it
# exits) over the events it wrote, for a fixed fio workload (4 KiB random
# reads, libaio, iodepth 32, VXT_BENCH_IOS I/Os) on a loop device over a file
# in /dev/shm. CPU time per event depends much less on the machine's load
# than fio's IOPS do. With VXT_BENCH_VXRECORD="A B ..." each of those
# vxrecord binaries is measured in turn in every round (to compare two
# builds in one run); the medians over the rounds come last.
#   usage: tests/bench/tracefs_cpu.sh [BUILD_DIR]
#   env: VXT_BENCH_IOS (default 200000), VXT_BENCH_ROUNDS (default 3)
#
# Recorded, 3 rounds, 400000 events each, load average 12-13 on 2 CPUs:
# the source as it was (libtraceevent lookups per field, a sweep per wake-up,
# kernel symbols parsed at start) 2588 ns/event (user 0.39 s, sys 0.64 s);
# fields at fixed offsets, a busy capture sweeping at most every 10 ms, no
# kernel symbols: 495 ns/event; the ring pages walked by tracefs_page.c:
# 421 ns/event (user 0.13 s, sys 0.05 s).
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
ios=${VXT_BENCH_IOS:-200000}
rounds=${VXT_BENCH_ROUNDS:-3}
bins=${VXT_BENCH_VXRECORD:-$build/vxrecord}
say() { echo "tracefs_cpu: $*"; }
[ "$(id -u)" -eq 0 ] || { say "skipped (needs root)"; exit 0; }
grep -qw tracefs /proc/filesystems || { say "skipped (no tracefs)"; exit 0; }
command -v fio >/dev/null || { say "skipped (no fio)"; exit 0; }
. "$top/tests/bench/shm_loop.inc"
cleanup() { shm_loop_free; }
trap cleanup EXIT
shm_loop 256 fill

# one run of vxrecord binary $1: "CPU_NS EVENTS LOST BYTES"
run_one() {
	rm -f "$dir/f.vxt"
	python3 - "$1" "$name" "$dir/f.vxt" "$loop" "$ios" <<'PY'
import os, signal, subprocess, sys, time
rec, name, out, loop, ios = sys.argv[1:6]
p = subprocess.Popen([rec, "--source", "tracefs", "--objects", name, "-o", out, "-q"])
for _ in range(100):
    if os.path.exists(out):
        break
    time.sleep(0.1)
time.sleep(0.5)
subprocess.run(["fio", "--name=cpu", "--filename=" + loop, "--direct=1", "--rw=randread",
                "--bs=4k", "--ioengine=libaio", "--iodepth=32", "--size=256M",
                "--io_size=%dk" % (4 * int(ios)), "--output=/dev/null"], check=True)
time.sleep(0.3)
p.send_signal(signal.SIGINT)
_, status, ru = os.wait4(p.pid, 0)
print("%d" % ((ru.ru_utime + ru.ru_stime) * 1e9), ru.ru_utime, ru.ru_stime)
PY
}

ratios=$(mktemp)
r=1
while [ "$r" -le "$rounds" ]; do
	line="round $r:"
	i=0
	for b in $bins; do
		i=$((i + 1))
		set -- $(run_one "$b")
		cpu=$1 usr=$2 sys=$3
		sum=$("$build/vxreplay" "$dir/f.vxt" --report summary --format json)
		set -- $(echo "$sum" | python3 -c 'import json,sys; j=json.load(sys.stdin)
print(j["ios"] + j["starts"], j["lost"])')
		ev=$1 lost=$2
		sz=$(stat -c %s "$dir/f.vxt")
		per=$(python3 -c "print('%.0f' % ($cpu / max($ev, 1)))")
		echo "$i $per" >>"$ratios"
		line="$line [$i] $per ns/event (user $usr s, sys $sys s, $ev events, $lost lost, $(python3 -c "print('%.2f' % ($sz / max($ev, 1)))") bytes/event)"
	done
	say "$line"
	r=$((r + 1))
done
i=0
for b in $bins; do
	i=$((i + 1))
	say "median [$i] $b: $(awk -v i=$i '$1 == i { print $2 }' "$ratios" | sort -n |
		awk '{ v[NR] = $1 } END { printf "%.0f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }') ns of vxrecord CPU per event"
done
say "fio: $ios random 4 KiB reads, iodepth 32, on $name over /dev/shm; load: $(uptime)"
rm -f "$ratios"
