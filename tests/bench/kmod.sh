#!/bin/sh
# kmod.sh - cost of tracing with vxtrace.ko against blktrace, in a qemu guest
#
# One boot of the Debian kernel (qemu TCG): fio 4 KiB random reads (libaio,
# iodepth 16, one job) on null_blk without memory backing, with no tracing,
# with one vxtrace channel read raw, with vxrecord --source kmod writing a
# .vxt file, and with blktrace; rounds alternate. Prints the median IOPS of
# each, the median of its per-round ratio to no tracing, and the events lost
# at the default buffer size. Skips (exit 0) without qemu, the kernel or fio.
#   env: VXT_BENCH_RUNTIME (seconds per fio run, default 2), VXT_BENCH_ROUNDS (7),
#        VXT_BENCH_TIMEOUT (seconds for the whole boot)
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
runtime=${VXT_BENCH_RUNTIME:-2}
rounds=${VXT_BENCH_ROUNDS:-7}
{
	echo "RUNTIME=$runtime"
	echo "ROUNDS=$rounds"
	cat "$KM_TOP/tests/kmod/guest-bench.sh"
} >"$KM_WORK/guest-bench.sh"
km_initramfs "$KM_WORK/guest-bench.sh" "$B/vxrecord" "$B/vxreplay" \
	"$(command -v fio)" "$(command -v blktrace)" || { echo "kmod bench: $KM_WHY"; exit 1; }
km_boot ${VXT_BENCH_TIMEOUT:-$((120 + rounds * 4 * (runtime + 10)))} || { echo "kmod bench: $KM_WHY"; exit 1; }
log=$KM_WORK/console.log
tr -d '\r' <"$log" | grep '^BENCH' >"$KM_WORK/bench.txt"
cat "$KM_WORK/bench.txt"

# Each round runs every mode back to back; a mode's ratio is taken against
# the untraced run of its own round, and the median over rounds is reported
# (the host may be shared: rounds damp its drift).
ratios() {
	awk -v m="$1" '
		$2 == "none" { sub("iops=", "", $3); none[++nn] = $3 + 0 }
		$2 == m { sub("iops=", "", $3); v[++nv] = $3 + 0 }
		END {
			for (i = 1; i <= nv; i++) {
				r[i] = none[i] > 0 ? v[i] / none[i] : 0
				iops[i] = v[i]
			}
			for (i = 1; i <= nv; i++)
				for (j = i + 1; j <= nv; j++) {
					if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
					if (iops[j] < iops[i]) { t = iops[i]; iops[i] = iops[j]; iops[j] = t }
				}
			k = int((nv + 1) / 2)
			printf "  %-9s median %7d IOPS   median ratio to none %.3f  (%d rounds)\n",
				m, iops[k], r[k], nv
		}' "$KM_WORK/bench.txt"
}
echo "kmod bench: fio randread 4k, libaio qd16, 1 job, null_blk (no memory backing), ${runtime}s per run, $(nproc) host cpus, qemu TCG"
for m in none channel vxrecord blktrace; do
	ratios $m
done
# total lost events of one mode over its runs
lost() {
	grep "^BENCH $1 " "$KM_WORK/bench.txt" | sed -n 's/.* lost \([0-9]*\).*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}
lost=$(lost channel)
vlost=$(lost vxrecord)
echo "  lost events at the default bufsize: channel ${lost:-?}, vxrecord ${vlost:-?}"
