#!/bin/sh
# bt_biolatency.sh - bpftrace's biolatency.bt, run unmodified on an imported
# real blktrace capture, prints the histogram blkparse's own text gives:
# an awk pass over blkparse-events.txt pairs each Q with the next C of its
# sector (the script's block_bio_queue -> block_rq_complete), each D with
# its C (a block_rq_issue twin) and each G with its C (the kprobe form of
# older bpftrace versions, arg0 the request), in microseconds, bucketed as
# bpftrace's hist() does.
. "$VXT_TOP/tests/lib.sh"
S=${VXT_SHARED:-$VXT_TOP/../shared}
D=$S/data/blktrace/centos7-sda
BIO=$S/data/dscripts/bt_biolatency.bt
[ -r "$D/sda.blktrace.0" ] && [ -r "$BIO" ] ||
	{ echo "no capture or script under $S/data (../shared absent): skipped"; exit 77; }

"$B/vxrecord" --import blktrace "$D/sda" -o "$T/c.vxt" -q || fail "import"

# ref START: the histogram of (C time - START time) / 1000 per sector, as
# "label count" rows from the first bucket used to the last
ref() {
	awk -v start="$1" '
	function ns(t,  p) { p = index(t, "."); return (substr(t, 1, p - 1) * 1000000000) + substr(t, p + 1) }
	function label(pw,  s) {
		s = ""
		if (pw >= 40) { s = "T"; pw -= 40 } else if (pw >= 30) { s = "G"; pw -= 30 }
		else if (pw >= 20) { s = "M"; pw -= 20 } else if (pw >= 10) { s = "K"; pw -= 10 }
		return (2 ^ pw) s
	}
	$1 == start { t0[$3] = ns($7) }
	$1 == "C" && ($3 in t0) && t0[$3] {
		us = int((ns($7) - t0[$3]) / 1000); delete t0[$3]
		if (us < 0) b = 0; else if (us == 0) b = 1; else if (us == 1) b = 2
		else { k = 0; while (2 ^ (k + 1) <= us) k++; b = k + 2 }
		n[b]++; if (lo == "" || b < lo) lo = b; if (hi == "" || b > hi) hi = b
	}
	END {
		for (b = lo; b <= hi; b++) {
			if (b == 0) l = "(..., 0)"; else if (b == 1) l = "[0]"; else if (b == 2) l = "[1]"
			else l = "[" label(b - 2) ", " label(b - 1) ")"
			print l, n[b] + 0
		}
	}' "$D/blkparse-events.txt"
}
# rows FILE: the histogram rows of vxreplay's output, without the bars
rows() { sed -n 's/^\([[(][^|]*[])]\) *\([0-9][0-9]*\) |.*$/\1 \2/p' "$1"; }

"$B/vxreplay" "$T/c.vxt" --script "$BIO" >"$T/out" 2>"$T/err" || fail "biolatency.bt: $(cat "$T/err")"
expect_eq "biolatency.bt: Q to C rows" "$(rows "$T/out")" "$(ref Q)"
expect_eq "biolatency.bt: bpftrace's first line, BEGIN's, two newlines as bpftrace stops, the map" \
	"$(sed -n '1,5p' "$T/out")" "Attaching 5 probes...
Tracing block device I/O... Hit Ctrl-C to end.


@usecs: "
expect_eq "biolatency.bt: the largest bucket's bar is 52 wide" \
	"$(grep -c '|@\{52\}|' "$T/out")" 1
expect_eq "biolatency.bt: nothing on stderr" "$(cat "$T/err")" ""

cat >"$T/issue.bt" <<'BT'
tracepoint:block:block_rq_issue { @start[args.dev, args.sector] = nsecs; }
tracepoint:block:block_rq_complete /@start[args.dev, args.sector]/
{
	@usecs = hist((nsecs - @start[args.dev, args.sector]) / 1000);
	delete(@start[args.dev, args.sector]);
}
END { clear(@start); }
BT
"$B/vxreplay" "$T/c.vxt" --script "$T/issue.bt" >"$T/out2" || fail "issue.bt"
expect_eq "block_rq_issue to block_rq_complete: D to C rows" "$(rows "$T/out2")" "$(ref D)"

cat >"$T/kprobe.bt" <<'BT'
kprobe:blk_account_io_start { @start[arg0] = nsecs; }
kprobe:blk_account_io_done /@start[arg0]/
{
	@usecs = hist((nsecs - @start[arg0]) / 1000);
	delete(@start[arg0]);
}
END { clear(@start); }
BT
"$B/vxreplay" "$T/c.vxt" --script "$T/kprobe.bt" >"$T/out3" || fail "kprobe.bt"
expect_eq "blk_account_io_start to _done (arg0): G to C rows" "$(rows "$T/out3")" "$(ref G)"
finish
