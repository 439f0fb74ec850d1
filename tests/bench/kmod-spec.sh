#!/bin/sh
# kmod-spec.sh - what keeping errors in context costs, in a qemu guest
#
# One boot (tests/kmod/guest-specbench.sh): fio 4 KiB random reads at full
# rate on a null_blk whose bad blocks fail 1 read in ~10 000, with (a) no
# tracing, (b) vxrecord of every event, (c) the errors-in-context profile in
# user space, (d) the same profile in the module, (e) blktrace; (a)-(e) in
# short alternating rounds (one round's IOPS swing by tens of percent on a
# loaded host). Then a full and a kernel-speculating capture
# of the same I/O, compared with the profile applied offline.
# Prints IOPS and vxrecord's CPU time while fio runs as ratios to (a) and
# (b); over the rounds, the median and range of the IOPS of (b)-(e) as
# ratios to (a), of the IOPS loss of (d) and (e) against (a) and of the
# guest's busy CPU time per I/O in each mode; the events (d)'s full
# buffers dropped in each round (windows longer than the module's
# buffers); the errors fio saw against its I/Os; the share of the events
# in the profile's windows; the bytes (d) read from its channel against
# (b)'s (the module's read_bytes, by kind of record), and whether every
# error kept its window; the windows counted by brute force over the full
# trace against what the module sent (overlapping windows sent once), and
# the window share and the bytes predicted from the window and the error
# rate against those measured; each against its goal in a line starting
# with "goal".
# Without VXT_BENCH_PROFILE it runs twice, with one boot each: the flight
# recorder errors-flight (64 events before each error and 32 after, on its
# object) and errors-in-context (200 ms before, 50 ms after), its goal lines
# named by the profile. A time window keeps a share of the trace that grows
# with the I/O rate (250 ms at 30 k IOPS is more than half of it), so the
# bytes goal is one only a count window can meet at the device's full rate.
#   env: VXT_BENCH_RUNTIME (seconds per fio run, default 2), VXT_BENCH_ROUNDS
#        (rounds of (a)-(e), default 9), VXT_BENCH_CHECK (seconds of the
#        check run, default 20), VXT_BENCH_PROFILE (one profile),
#        VXT_BENCH_WINDOW (seconds of its windows, before and after: 0.25
#        for errors-in-context, none for another profile),
#        VXT_BENCH_TIMEOUT (seconds for the whole boot)
set -u
if [ -z "${VXT_BENCH_PROFILE:-}" ]; then
	for p in errors-flight errors-in-context; do
		echo "-- profile $p"
		VXT_BENCH_PROFILE=$p sh "$0" "$@" | sed "s/^goal kmod-spec /goal kmod-spec $p /"
	done
	exit 0
fi
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
runtime=${VXT_BENCH_RUNTIME:-2}
rounds=${VXT_BENCH_ROUNDS:-9}
check=${VXT_BENCH_CHECK:-20}
{
	echo "RUNTIME=$runtime"
	echo "ROUNDS=$rounds"
	echo "CHECK_SECONDS=$check"
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
km_boot ${VXT_BENCH_TIMEOUT:-$((300 + 5 * rounds * (runtime + 12) + 2 * check))} ||
	{ echo "kmod-spec bench: $KM_WHY"; exit 1; }
tr -d '\r' <"$KM_WORK/console.log" | grep '^SPECBENCH' >"$KM_WORK/b.txt"
cat "$KM_WORK/b.txt"
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "kmod-spec bench: fio randread 4k psync, null_blk 1 GiB with 26 bad 4 KiB blocks (1 in 10 082), ${runtime}s per run, $rounds rounds, check ${check}s, qemu TCG 2 cpus, $(nproc) host cpus, load average $load0 at the start, $load at the end"
win=${VXT_BENCH_WINDOW:-}
[ -z "$win" ] && [ "${VXT_BENCH_PROFILE:-errors-in-context}" = errors-in-context ] && win=0.25
awk -v rt="$runtime" -v ck="$check" -v win="${win:-0}" '
	function val(line, key,   i, n, a) {
		n = split(line, a, " ")
		for (i = 1; i <= n; i++)
			if (index(a[i], key "=") == 1)
				return substr(a[i], length(key) + 2) + 0
		return -1
	}
	# the number after the word @key in spec=[...] of a line, or -1
	function after(line, key,   i, n, a) {
		n = split(line, a, "[][ ]+")
		for (i = 1; i < n; i++)
			if (a[i] == key)
				return a[i + 1] + 0
		return -1
	}
	function sort(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
	}
	function median(a, n) {
		sort(a, n)
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	# median [min..max] of a[1..n], each printed with format f
	function spread(a, n, f,   m) {
		m = median(a, n)
		return sprintf(f " [" f ".." f "]", m, a[1], a[n])
	}
	function pct(x) { return sprintf("%.2f%%", 100 * x) }
	# busy CPU microseconds per I/O of a run line
	function us_io(line,   io) {
		io = val(line, "ios")
		return io > 0 ? 1e6 * val(line, "busy_s") / io : -1
	}
	$2 ~ /^round=/ {
		r = substr($2, 7) + 0
		if (r > nr) nr = r
		rm[r, $3] = $0
		next
	}
	{ m[$2] = $0 }
	END {
		n = 0; nb = 0
		for (r = 1; r <= nr; r++) {
			a = val(rm[r, "none"], "iops")
			d = val(rm[r, "kernel"], "iops")
			e = val(rm[r, "blktrace"], "iops")
			if (a <= 0 || d < 0)
				continue
			n++
			ln[n] = a; ld[n] = 1 - d / a
			for (k = 1; k <= 2; k++) {
				mode = k == 1 ? "full" : "user"
				io = val(rm[r, mode], "iops")
				if (io < 0)
					continue
				nm[mode]++
				qr[mode, nm[mode]] = io / a
				qc[mode, nm[mode]] = val(rm[r, mode], "cpu_s")
				qu[mode, nm[mode]] = us_io(rm[r, mode])
			}
			cd[n] = val(rm[r, "kernel"], "cpu_s")
			ua[n] = us_io(rm[r, "none"]); ud[n] = us_io(rm[r, "kernel"])
			xd[n] = ud[n] - ua[n]
			s = "skipped"
			if (e >= 0) {
				nb++
				lb[nb] = 1 - e / a
				ub[nb] = us_io(rm[r, "blktrace"])
				xb[nb] = ub[nb] - ua[n]
				dd[nb] = lb[nb] - ld[n]
				s = sprintf("%d (loss %s, %.0f us CPU/IO)", e, pct(lb[nb]), ub[nb])
			}
			printf "  round %d: none %d IOPS (%.0f us CPU/IO), kernel speculation %d (loss %s, %.0f us CPU/IO, %d events dropped by full buffers), blktrace %s\n", r, a, ua[n], d, pct(ld[n]), ud[n], after(rm[r, "kernel"], "drops") - pdrops, s
			pdrops = after(rm[r, "kernel"], "drops")	# spec_stats sums since load
		}
		none = n ? median(ln, n) : -1
		printf "  %-24s %8s %9s %10s %12s\n", "mode", "IOPS", "vs none", "cpu s", "cpu vs full"
		if (none > 0)
			printf "  %-24s %8d %9.3f %10s %12s\n", "none (median)", none, 1, "-", "-"
		fcpu = -1
		for (k = 1; k <= 2; k++) {
			mode = k == 1 ? "full" : "user"
			if (!nm[mode]) { printf "  %-24s skipped\n", mode; continue }
			for (i = 1; i <= nm[mode]; i++) {
				t1[i] = qr[mode, i]; t2[i] = qc[mode, i]; t3[i] = qu[mode, i]
			}
			cpu = median(t2, nm[mode])
			if (k == 1)
				fcpu = cpu
			printf "  %-24s %8s %9.3f %10.2f %12.3f   %.0f us guest CPU per I/O\n", mode " (median)", "-", median(t1, nm[mode]), cpu, (fcpu > 0 ? cpu / fcpu : 0), median(t3, nm[mode])
			rat[mode] = spread(t1, nm[mode], "%.3f")
		}
		if (!n) {
			print "goal kmod-spec iops: no round ran"
		} else {
			c = median(cd, n)
			printf "  %-24s %8s %9.3f %10.2f %12.3f\n", "kernel (median)", "-", 1 - median(ld, n), c, (fcpu > 0 ? c / fcpu : 0)
			printf "  IOPS loss against none, median [min..max] of %d rounds: kernel speculation %s\n", n, spread(ld, n, "%.3f")
			for (i = 1; i <= n; i++)
				t1[i] = 1 - ld[i]
			rat["kernel"] = spread(t1, n, "%.3f")
			for (i = 1; i <= nb; i++)
				t1[i] = 1 - lb[i]
			rat["blktrace"] = nb ? spread(t1, nb, "%.3f") : "skipped"
			printf "  IOPS as a ratio to (a) none, median [min..max] of the rounds: (b) full %s, (c) user %s, (d) kernel %s, (e) blktrace %s\n", ("full" in rat ? rat["full"] : "skipped"), ("user" in rat ? rat["user"] : "skipped"), rat["kernel"], rat["blktrace"]
			printf "  guest CPU per I/O (busy time of both CPUs / I/Os), us: none %s, kernel speculation %s, its extra %s\n", spread(ua, n, "%.1f"), spread(ud, n, "%.1f"), spread(xd, n, "%.1f")
			lossd = median(ld, n)
			xdm = median(xd, n)
			if (nb) {
				lossb = median(lb, nb)
				xbm = median(xb, nb)
				printf "  blktrace: IOPS loss %s, CPU per I/O %s us, its extra %s us; blktrace loss less kernel loss, same round: %s\n", spread(lb, nb, "%.3f"), spread(ub, nb, "%.1f"), spread(xb, nb, "%.1f"), spread(dd, nb, "%.3f")
				printf "goal kmod-spec iops: kernel speculation IOPS loss %s vs blktrace %s (medians of %d rounds; goal: no more than blktrace): %s\n", pct(lossd), pct(lossb), n, (lossd <= lossb ? "met" : "missed")
				printf "goal kmod-spec cpu: kernel speculation costs %.1f us of guest CPU per I/O more than none, blktrace %.1f (medians; goal: no more than blktrace): %s\n", xdm, xbm, (xdm <= xbm ? "met" : "missed")
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
		ios = val(c, "ck_ios"); fe = val(c, "ck_fio_errors"); ef = val(c, "errors_full")
		printf "  check: fio made %d I/Os, %d failed (1 in %s; the bad blocks are 1 in 10 082 of the device); the full trace has %d starts and %d errors\n", ios, fe, (fe > 0 ? sprintf("%.0f", ios / fe) : "-"), val(c, "starts_full"), ef
		printf "  same I/O, both at once: full trace read %d bytes from its channel (%d events), kernel speculation %d: I/O records %d, stats %d, horizon %d, object and clock %d\n", full, val(c, "events_full"), kern, kio, kst, khz, kot
		if (full > 0) {
			w = val(c, "rows_offline")
			printf "  the windows alone (%d of %d events, %.0f per error) are %s of the full trace; the kernel sends %.2f bytes per event of them (%.3f bytes for each byte of them); at that size the windows alone come to %s of the full trace'\''s bytes\n", w, val(c, "events_full"), (ef > 0 ? w / ef : 0), pct(w / val(c, "events_full")), (w > 0 ? kio / w : 0), (w > 0 ? kern / (64 * w) : 0), pct(w > 0 ? kio / full : 0)
			# the share of the events in windows grows with the IOPS (a
			# window of 250 ms holds more I/Os at a higher rate)
			if (win > 0)
				printf "  1%% of the full trace'\''s bytes leaves %.2f bytes per event of the windows (the full record: 64); a window of %.3f s holds %.0f I/Os (%.0f events) at %.0f IOPS; the windows'\'' share is IOPS x window / I/Os per error = %.0f x %.3f s / %.0f = %s\n", (w > 0 ? full / 100 / w : 0), win, (ck > 0 ? ios / ck * win : 0), (ck > 0 ? 2 * ios / ck * win : 0), (ck > 0 ? ios / ck : 0), (ck > 0 ? ios / ck : 0), win, (fe > 0 ? ios / fe : 0), pct(fe > 0 && ck > 0 ? (ios / ck) * win / (ios / fe) : 0)
			else
				printf "  1%% of the full trace'\''s bytes leaves %.2f bytes per event of the windows (the full record: 64)\n", (w > 0 ? full / 100 / w : 0)
			printf "  window share of events: %s (%d of %d events of the full trace in the profile'\''s windows); bytes (d)/(b): %s\n", pct(w / val(c, "events_full")), w, val(c, "events_full"), pct(kern / full)
			printf "goal kmod-spec bytes: kernel speculation reads %s of the full trace'\''s bytes from the channel (goal: 1%% at most): %s\n", pct(kern / full), (kern <= full / 100 ? "met" : "missed")
		}
		if ("windows" in m && val(m["windows"], "events") > 0) {
			wl = m["windows"]
			N = val(wl, "events"); U = val(wl, "union"); S = val(wl, "sum"); K = val(wl, "kept_module")
			sh = val(wl, "share"); mt = val(wl, "model_timeline"); mu = val(wl, "model_union")
			p = val(wl, "dones") > 0 ? val(wl, "errors") / val(wl, "dones") : 0
			bpe = K > 0 ? kio / K : 0
			printf "  windows counted by brute force over the full trace: %d events in the union of the %d errors'\'' windows (%d counted per error, %d in overlaps); the module sent %d: %s\n", U, val(wl, "errors"), S, S - U, K, (K == U ? "each event once, none past an after window" : "not the union")
			printf "  window share predicted from the window (%.0f ms) and the error rate (1 in %.0f I/Os) at %d IOPS, n = %d I/Os a window: linear p x n %s, with overlaps 1 - (1 - p)^n %s, n around each event of the trace (the rate as it varied) %s; measured %s (sampling: +-%s for %d errors)\n", (val(wl, "before_ns") + val(wl, "after_ns")) / 1e6, (p > 0 ? 1 / p : 0), val(wl, "iops"), val(wl, "n_window"), pct(val(wl, "model_linear")), pct(mu), pct(mt), pct(sh), pct(val(wl, "errors") > 0 ? sh / sqrt(val(wl, "errors")) : 0), val(wl, "errors")
			if (full > 0 && bpe > 0) {
				printf "  bytes (d)/(b) from that share at the module'\''s %.2f bytes per kept event (I/O records) and its stats, horizon and object records: predicted %s, measured %s\n", bpe, pct((mt * N * bpe + kst + khz + kot) / full), pct(kern / full)
				need = 0.01 * full / N / bpe
				printf "  1%% of the full trace'\''s bytes allows a window share of %s at %.2f bytes per event: a window of at most %.0f ms at this IOPS and error rate (-ln(1 - share) / (p x IOPS))\n", pct(need), bpe, (need < 1 && p > 0 ? -log(1 - need) / (p * val(wl, "iops")) * 1000 : 0)
			}
			printf "goal kmod-spec windows: the module sent %d events, the union of the windows holds %d: %s\n", K, U, (K == U ? "met" : "missed")
		}
		ok = val(c, "errors_kernel") == ef && val(c, "errors_offline") == ef && val(c, "differing_rows") == 0 && (fe < 0 || fe == ef)
		printf "goal kmod-spec errors: %d of %d errors kept (fio saw %d), %d rows differ from the profile applied offline to the full trace (%d rows): %s\n", val(c, "errors_kernel"), ef, fe, val(c, "differing_rows"), val(c, "rows_offline"), (ok ? "met" : "missed")
	}' "$KM_WORK/b.txt"
