#!/bin/sh
# kmod-spec.sh - what keeping errors in context costs, in a qemu guest
#
# One boot (tests/kmod/guest-specbench.sh): fio 4 KiB random reads at full
# rate on a null_blk whose bad blocks fail 1 read in ~10 000, with (a) no
# tracing, (b) vxrecord of every event, (c) the errors-in-context profile in
# user space, (d) the same profile in the module, (e) blktrace; (a), (d) and
# (e) in several alternating rounds. Then a full and a kernel-speculating
# capture of the same I/O, compared with the profile applied offline.
# Prints IOPS and vxrecord's CPU time while fio runs as ratios to (a) and
# (b), the median IOPS loss of (d) and (e) against (a) over the rounds,
# the bytes (d) read from its channel against (b)'s (the module's
# read_bytes, by kind of record), and whether every error kept its window;
# each against its goal in a line starting with "goal".
#   env: VXT_BENCH_RUNTIME (seconds per fio run, default 5), VXT_BENCH_ROUNDS
#        (rounds of (a) (d) (e), default 5), VXT_BENCH_PROFILE
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
rounds=${VXT_BENCH_ROUNDS:-5}
{
	echo "RUNTIME=$runtime"
	echo "ROUNDS=$rounds"
	echo "PROFILE=${VXT_BENCH_PROFILE:-errors-in-context}"
	cat "$KM_TOP/tests/kmod/guest-specbench.sh"
} >"$KM_WORK/guest-specbench.sh"
bt=$(command -v blktrace) || bt=
km_initramfs "$KM_WORK/guest-specbench.sh" "$B/vxrecord" "$B/vxreplay" \
	"$(command -v fio)" $bt || { echo "kmod-spec bench: $KM_WHY"; exit 1; }
mkdir -p "$KM_WORK/root/profiles"
cp "$KM_TOP"/formats/profiles/*.yaml "$KM_WORK/root/profiles/"
(cd "$KM_WORK/root" && find . | cpio -o -H newc --quiet) >"$KM_WORK/initramfs.cpio"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
km_boot ${VXT_BENCH_TIMEOUT:-$((240 + (3 * rounds + 5) * (runtime + 15)))} ||
	{ echo "kmod-spec bench: $KM_WHY"; exit 1; }
tr -d '\r' <"$KM_WORK/console.log" | grep '^SPECBENCH' >"$KM_WORK/b.txt"
cat "$KM_WORK/b.txt"
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "kmod-spec bench: fio randread 4k psync, null_blk 1 GiB with 26 bad 4 KiB blocks (1 in ~10 000), ${runtime}s per run, $rounds rounds, qemu TCG, $(nproc) host cpus, load average $load0 at the start, $load at the end"
awk -v rt="$runtime" '
	function val(line, key,   i, n, a) {
		n = split(line, a, " ")
		for (i = 1; i <= n; i++)
			if (index(a[i], key "=") == 1)
				return substr(a[i], length(key) + 2) + 0
		return -1
	}
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function pct(x) { return sprintf("%.2f%%", 100 * x) }
	$2 ~ /^round=/ {
		r = substr($2, 7) + 0
		if (r > nr) nr = r
		rm[r, $3] = $0
		next
	}
	{ m[$2] = $0 }
	END {
		n = 0
		for (r = 1; r <= nr; r++) {
			a = val(rm[r, "none"], "iops")
			d = val(rm[r, "kernel"], "iops")
			e = val(rm[r, "blktrace"], "iops")
			if (a <= 0 || d < 0)
				continue
			n++
			ln[n] = a; ld[n] = 1 - d / a; le[n] = e >= 0 ? 1 - e / a : -1
			cd[n] = val(rm[r, "kernel"], "cpu_s")
			printf "  round %d: none %d IOPS, kernel speculation %d (loss %s), blktrace %s\n", r, a, d, pct(ld[n]), (e >= 0 ? sprintf("%d (loss %s)", e, pct(le[n])) : "skipped")
		}
		none = n ? median(ln, n) : -1
		printf "  %-24s %8s %9s %10s %12s\n", "mode", "IOPS", "vs none", "cpu s", "cpu vs full"
		if (none > 0)
			printf "  %-24s %8d %9.3f %10s %12s\n", "none (median)", none, 1, "-", "-"
		fcpu = val(m["full"], "cpu_s")
		for (k = 1; k <= 2; k++) {
			mode = k == 1 ? "full" : "user"
			io = val(m[mode], "iops")
			cpu = val(m[mode], "cpu_s")
			if (io < 0) { printf "  %-24s skipped\n", mode; continue }
			printf "  %-24s %8d %9.3f %10.2f %12.3f\n", mode " (one run)", io, (none > 0 ? io / none : 0), cpu, (fcpu > 0 ? cpu / fcpu : 0)
		}
		if (n) {
			lossd = median(ld, n)
			c = median(cd, n)
			printf "  %-24s %8s %9.3f %10.2f %12.3f\n", "kernel (median)", "-", 1 - lossd, c, (fcpu > 0 ? c / fcpu : 0)
			nb = 0
			for (i = 1; i <= n; i++) if (le[i] >= 0) lb[++nb] = le[i]
			if (nb) {
				lossb = median(lb, nb)
				printf "  %-24s %8s %9.3f %10s %12s\n", "blktrace (median)", "-", 1 - lossb, "-", "-"
				printf "goal kmod-spec iops: kernel speculation IOPS loss %s vs blktrace %s (median of %d rounds; goal: no more than blktrace): %s\n", pct(lossd), pct(lossb), n, (lossd <= lossb ? "met" : "missed")
			} else
				printf "goal kmod-spec iops: kernel speculation IOPS loss %s, blktrace not in the guest: not measured\n", pct(lossd)
		}
		if (!("check" in m)) {
			print "goal kmod-spec bytes: no check run"
			exit
		}
		c = m["check"]
		full = val(c, "read_plain")
		kio = val(c, "read_io"); kst = val(c, "read_stats"); khz = val(c, "read_horizon"); kot = val(c, "read_other")
		kern = kio + kst + khz + kot
		printf "  same I/O, both at once: full trace read %d bytes from its channel (%d events), kernel speculation %d: I/O records %d, stats %d, horizon %d, object and clock %d\n", full, val(c, "events_full"), kern, kio, kst, khz, kot
		if (full > 0) {
			printf "  the windows alone (%d of %d events) are %s of the full trace; the kernel sends %.3f bytes for each byte of them\n", val(c, "rows_offline"), val(c, "events_full"), pct(val(c, "rows_offline") / val(c, "events_full")), (val(c, "rows_offline") > 0 ? kern / (64 * val(c, "rows_offline")) : 0)
			printf "goal kmod-spec bytes: kernel speculation reads %s of the full trace'\''s bytes from the channel (goal: 1%% at most): %s\n", pct(kern / full), (kern <= full / 100 ? "met" : "missed")
		}
		ok = val(c, "errors_kernel") == val(c, "errors_full") && val(c, "errors_offline") == val(c, "errors_full") && val(c, "differing_rows") == 0
		printf "goal kmod-spec errors: %d of %d errors kept, %d rows differ from the profile applied offline to the full trace (%d rows): %s\n", val(c, "errors_kernel"), val(c, "errors_full"), val(c, "differing_rows"), val(c, "rows_offline"), (ok ? "met" : "missed")
	}' "$KM_WORK/b.txt"
