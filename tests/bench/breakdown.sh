#!/bin/sh
# breakdown.sh - speed of vxreplay --report breakdown against --report summary
# on the same file in the same run: a synthesised blktrace capture of
# VXT_BENCH_BD_IOS I/Os (default 10000000; each Q G I D C) imported once,
# then each report timed (wall and CPU seconds, best of two).
#   usage: tests/bench/breakdown.sh [BUILD_DIR]
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
cc=${CC:-cc}
ios=${VXT_BENCH_BD_IOS:-10000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
$cc -std=c11 -D_GNU_SOURCE -O2 -I"$top/include" -I"$top/src/lib" -o "$dir/blkgen" \
	"$top/tests/bench/blkgen.c" "$top/src/lib/source/blktrace.c"
"$dir/blkgen" "$dir/big" $((ios * 5)) 2
"$build/vxrecord" -q --import blktrace "$dir/big" -o "$dir/big.vxt"
rm -f "$dir"/big.blktrace.*
python3 - "$build" "$dir/big.vxt" "$ios" <<'PY'
import resource, subprocess, sys, time
build, f, ios = sys.argv[1], sys.argv[2], int(sys.argv[3])
def run(kind):
    best = None
    for _ in range(2):
        r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
        subprocess.run([build + "/vxreplay", f, "--report", kind, "--format", "json"],
                       check=True, stdout=subprocess.DEVNULL)
        r1, t1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
        w, c = t1 - t0, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
        best = (w, c) if best is None or w < best[0] else best
    return best
sw, sc = run("summary")
bw, bc = run("breakdown")
print("breakdown: %d I/Os (%d events)" % (ios, ios * 5))
print("breakdown: summary %.2f s wall, %.2f s CPU; breakdown %.2f s wall, %.2f s CPU"
      % (sw, sc, bw, bc))
print("breakdown: breakdown / summary = %.2fx wall (target <= 1.5x), %.2fx CPU"
      % (bw / sw, bc / sc))
PY
