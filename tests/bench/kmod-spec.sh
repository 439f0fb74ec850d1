#!/bin/sh
# kmod-spec.sh - what keeping errors in context costs, in a qemu guest
#
# One boot (tests/kmod/guest-specbench.sh): fio 4 KiB random reads at full
# rate on a null_blk whose bad blocks fail 1 read in ~10 000, with (a) no
# tracing, (b) vxrecord of every event, (c) the errors-in-context profile in
# user space, (d) the same profile in the module, (e) blktrace; then a full
# and a kernel-speculating capture of the same I/O, compared with the profile
# applied offline. Prints IOPS and vxrecord's CPU time as ratios to (a) and
# (b), and the bytes read from the channel per second (I/O records of 64
# bytes: two per I/O for (b) and (c), the module's bytes_kept for (d)).
#   env: VXT_BENCH_RUNTIME (seconds per fio run, default 5), VXT_BENCH_PROFILE
#        (errors-in-context), VXT_BENCH_TIMEOUT (seconds for the whole boot)
set -u
KM_TOP=${VXT_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${VXT_BUILD:-$KM_TOP/build}
. "$KM_TOP/tests/kmod/lib.sh"

if ! km_find_kernel; then
	echo "kmod-spec bench: skipped ($KM_WHY)"
	exit 0
fi
if ! command -v fio >/dev/null 2>&1; then
	echo "kmod-spec bench: skipped (fio not installed)"
	exit 0
fi
KM_WORK=$(mktemp -d /tmp/vxt-kspec.XXXXXX)
trap 'rm -rf "$KM_WORK"' EXIT INT TERM
km_build || { echo "kmod-spec bench: $KM_WHY"; exit 1; }
runtime=${VXT_BENCH_RUNTIME:-5}
{
	echo "RUNTIME=$runtime"
	echo "PROFILE=${VXT_BENCH_PROFILE:-errors-in-context}"
	cat "$KM_TOP/tests/kmod/guest-specbench.sh"
} >"$KM_WORK/guest-specbench.sh"
bt=$(command -v blktrace) || bt=
km_initramfs "$KM_WORK/guest-specbench.sh" "$B/vxrecord" "$B/vxreplay" \
	"$(command -v fio)" $bt || { echo "kmod-spec bench: $KM_WHY"; exit 1; }
mkdir -p "$KM_WORK/root/profiles"
cp "$KM_TOP"/formats/profiles/*.yaml "$KM_WORK/root/profiles/"
(cd "$KM_WORK/root" && find . | cpio -o -H newc --quiet) >"$KM_WORK/initramfs.cpio"
km_boot ${VXT_BENCH_TIMEOUT:-$((180 + 8 * (runtime + 15)))} ||
	{ echo "kmod-spec bench: $KM_WHY"; exit 1; }
tr -d '\r' <"$KM_WORK/console.log" | grep '^SPECBENCH' >"$KM_WORK/b.txt"
cat "$KM_WORK/b.txt"
echo "kmod-spec bench: fio randread 4k psync, null_blk 1 GiB with 26 bad 4 KiB blocks (1 in ~10 000), ${runtime}s per run, qemu TCG, $(nproc) host cpus"
awk -v rt="$runtime" '
	function val(line, key,   i, n, a) {
		n = split(line, a, " ")
		for (i = 1; i <= n; i++)
			if (index(a[i], key "=") == 1)
				return substr(a[i], length(key) + 2) + 0
		return -1
	}
	function specval(line, key,   s, n, a, i) {
		s = line
		sub(/.*spec=\[/, "", s)
		sub(/\].*/, "", s)
		n = split(s, a, " ")
		for (i = 1; i < n; i++)
			if (a[i] == key)
				return a[i + 1] + 0
		return -1
	}
	{ m[$2] = $0 }
	END {
		none = val(m["none"], "iops")
		printf "  %-9s %8s %9s %10s %12s %10s\n", "mode", "IOPS", "vs none", "cpu s", "cpu vs full", "chan B/s"
		for (k = 1; k <= 5; k++) {
			mode = k == 1 ? "none" : k == 2 ? "full" : k == 3 ? "user" : k == 4 ? "kernel" : "blktrace"
			if (!(mode in m) || val(m[mode], "iops") < 0) {
				printf "  %-9s skipped\n", mode
				continue
			}
			io = val(m[mode], "iops")
			cpu = val(m[mode], "cpu_s")
			if (mode == "full" || mode == "user")
				bps = 2 * io * 64
			else if (mode == "kernel")
				bps = specval(m[mode], "bytes_kept") / rt
			else if (mode == "blktrace")
				bps = val(m[mode], "bytes") / rt
			else
				bps = 0
			if (mode == "full") { fcpu = cpu; fbps = bps }
			r = none > 0 ? io / none : 0
			c1 = cpu >= 0 ? sprintf("%.2f", cpu) : "-"
			c2 = (cpu >= 0 && fcpu > 0) ? sprintf("%.3f", cpu / fcpu) : "-"
			printf "  %-9s %8d %9.3f %10s %12s %10d\n", mode, io, r, c1, c2, bps
			if (mode == "kernel") kbps = bps
		}
		if (fbps > 0)
			printf "  kernel speculation reads %.3f%% of the full trace'\''s bytes\n", 100 * kbps / fbps
		ks = specval(m["kernel"], "bytes_seen")
		if (ks > 0)
			printf "  kernel speculation keeps %.3f%% of the bytes it sees (the full trace of the same I/O)\n", 100 * specval(m["kernel"], "bytes_kept") / ks
		if (none > 0 && val(m["kernel"], "iops") >= 0 && val(m["blktrace"], "iops") >= 0)
			printf "  IOPS loss against none: kernel speculation %.1f%%, blktrace %.1f%%\n", 100 * (1 - val(m["kernel"], "iops") / none), 100 * (1 - val(m["blktrace"], "iops") / none)
		if ("check" in m)
			print "  " m["check"]
	}' "$KM_WORK/b.txt"
