#!/bin/sh
# kmod.sh - cost of tracing with vxtrace.ko against blktrace, in a qemu guest
#
# One boot of the Debian kernel (qemu TCG): fio 4 KiB random reads (libaio,
# iodepth 16, one job) on null_blk without memory backing, with no tracing,
# with one vxtrace channel read raw, with vxrecord --source kmod writing a
# .vxt file, and with blktrace; rounds alternate. Prints the median IOPS of
# each, the ratios to no tracing, and the events lost at the default buffer
# size. Skips (exit 0) without qemu, the kernel or fio.
#   env: VXT_BENCH_RUNTIME (seconds per fio run, default 6), VXT_BENCH_ROUNDS (2)
set -u
KM_TOP=${VXT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${VXT_BUILD:-$KM_TOP/build}
. "$KM_TOP/tests/kmod/lib.sh"

if ! km_find_kernel; then
	echo "kmod bench: skipped ($KM_WHY)"
	exit 0
fi
for t in fio blktrace; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "kmod bench: skipped ($t not installed)"
		exit 0
	fi
done
KM_WORK=$(mktemp -d /tmp/vxt-kbench.XXXXXX)
trap 'rm -rf "$KM_WORK"' EXIT INT TERM
km_build || { echo "kmod bench: $KM_WHY"; exit 1; }
runtime=${VXT_BENCH_RUNTIME:-6}
rounds=${VXT_BENCH_ROUNDS:-2}
{
	echo "RUNTIME=$runtime"
	echo "ROUNDS=$rounds"
	cat "$KM_TOP/tests/kmod/guest-bench.sh"
} >"$KM_WORK/guest-bench.sh"
km_initramfs "$KM_WORK/guest-bench.sh" "$B/vxrecord" "$B/vxreplay" \
	"$(command -v fio)" "$(command -v blktrace)" || { echo "kmod bench: $KM_WHY"; exit 1; }
km_boot $((120 + rounds * 4 * (runtime + 10))) || { echo "kmod bench: $KM_WHY"; exit 1; }
log=$KM_WORK/console.log
tr -d '\r' <"$log" | grep '^BENCH' >"$KM_WORK/bench.txt"
cat "$KM_WORK/bench.txt"

# median IOPS of one mode
med() {
	grep "^BENCH $1 " "$KM_WORK/bench.txt" | sed 's/.*iops=\([0-9]*\).*/\1/' |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'
}
none=$(med none)
echo "kmod bench: fio randread 4k, libaio qd16, 1 job, null_blk (no memory backing), $rounds x ${runtime}s each, $(nproc) host cpus, qemu TCG"
for m in none channel vxrecord blktrace; do
	v=$(med $m)
	awk -v m="$m" -v v="$v" -v n="$none" 'BEGIN {
		printf "  %-9s %9d IOPS  ratio %.3f\n", m, v, (n > 0 ? v / n : 0) }'
done
# total lost events of one mode over its runs
lost() {
	grep "^BENCH $1 " "$KM_WORK/bench.txt" | sed -n 's/.* lost \([0-9]*\).*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}
lost=$(lost channel)
vlost=$(lost vxrecord)
echo "  lost events at the default bufsize: channel ${lost:-?}, vxrecord ${vlost:-?}"
