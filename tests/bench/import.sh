#!/bin/sh
# import.sh - blktrace import speed: events per second of
# `vxrecord --import blktrace` on a synthesised capture, against the time
# `blkparse -d` takes to read and dump the same input.
#   usage: tests/bench/import.sh [BUILD_DIR]   (VXT_BENCH_BLK_EVENTS, default 10000000)
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
cc=${CC:-cc}
n=${VXT_BENCH_BLK_EVENTS:-10000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
$cc -std=c11 -D_GNU_SOURCE -O2 -I"$top/include" -I"$top/src/lib" -o "$dir/blkgen" \
	"$top/tests/bench/blkgen.c" "$top/src/lib/source/blktrace.c"
"$dir/blkgen" "$dir/big" "$n" 2
sync
cat "$dir"/big.blktrace.* >/dev/null	# both tools read from the page cache

# wall and CPU seconds of a command (CPU is steadier on a shared machine)
python3 - "$build" "$dir" "$n" <<'PY'
import os, resource, shutil, subprocess, sys, time
build, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def run(cmd, cwd=None):
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    r1, t1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
    return t1 - t0, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
w, c = run([build + "/vxrecord", "--import", "blktrace", d + "/big", "-o", d + "/big.vxt", "-q"])
size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if ".blktrace." in f)
print("import: %d events, %d MiB of blktrace -> %.1f MiB .vxt"
      % (n, size >> 20, os.path.getsize(d + "/big.vxt") / 1048576))
print("import: vxrecord --import blktrace: %.2f s wall, %.2f s CPU: %.2f M events/s "
      "(%.2f M per CPU second)" % (w, c, n / w / 1e6, n / c / 1e6))
os.unlink(d + "/big.vxt")
if shutil.which("blkparse"):
    bw, bc = run(["blkparse", "-q", "-i", "big", "-d", d + "/dump.bin", "-O"], cwd=d)
    print("import: blkparse -d: %.2f s wall, %.2f s CPU: %.2f M events/s; "
          "vxrecord takes %.2fx its wall time, %.2fx its CPU time"
          % (bw, bc, n / bw / 1e6, w / bw, c / bc))
else:
    print("import: blkparse not installed, no comparison")
PY
