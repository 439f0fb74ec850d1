#!/bin/sh
# bt_live.sh - one bpftrace program, run by bpftrace itself on live I/O
# and by vxreplay on a tracefs recording (--phases all) of the same I/O:
# fio's reads and writes on a fresh loop device, the program keyed to that
# device. The program prints each I/O's sector and latency as well as its
# histogram. Held:
# - the completions: as many within 0.1% (an I/O may pass while bpftrace
#   attaches or detaches);
# - the histogram vxreplay prints is the one awk makes from the recording's
#   own events (--export csv): exact;
# - each I/O's latency, the two tools side by side (fio touches each block
#   once, so a sector names one I/O): within 2 us for 95% of them (an I/O
#   paired with another's completion is tens of us off). The two read the
#   clock at different points of the same tracepoints (ftrace's time stamp,
#   bpftrace's nsecs), a few hundred ns apart, more when an interrupt comes
#   between: on a busy machine under the sanitizers 1.2% of the I/Os were
#   more than 2 us apart;
# - bucket by bucket, the two histograms differ by no more than the I/Os
#   whose two latencies fall on either side of one of its edges, plus those
#   only one tool saw, plus 2: a latency near an edge may fall on the other
#   side (with 2% of the I/Os per us near 16 us, a shift of 1 us moves 2%);
# - bpftrace's own lines are the same.
# Skipped without bpftrace, root, tracefs or fio.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"

need_tracefs
command -v bpftrace >/dev/null || skip "bpftrace is not installed (apt-get install bpftrace)"
bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1 || skip "bpftrace cannot run here"
make_loop 256M
dev=$(awk -F: '{ print $1 * 1048576 + $2 }' "/sys/block/$LNAME/dev")
# both tools' language (bpftrace 0.17's: args->, delete(@m[k]))
cat >"$T/lat.bt" <<BT
BEGIN { printf("issue to completion on $LNAME\n"); }
tracepoint:block:block_rq_issue /args->dev == $dev/ { @start[args->sector] = nsecs; }
tracepoint:block:block_rq_complete /args->dev == $dev && @start[args->sector]/
{
	\$ns = nsecs - @start[args->sector];
	printf("io %d %d\n", args->sector, \$ns);
	@usecs = hist(\$ns / 1000);
	@n = count();
	delete(@start[args->sector]);
}
END { clear(@start); }
BT

start_rec "$T/l.vxt" --source tracefs --phases all --objects "$LNAME" -q || finish
bpftrace "$T/lat.bt" >"$T/bt.out" 2>"$T/bt.err" &
BT=$!
i=0
until grep -q '^issue to completion' "$T/bt.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 300 ] && { kill "$BT"; skip "bpftrace did not start: $(cat "$T/bt.err")"; }
	sleep 0.1
done
fio --name=t --filename="$LOOP" --direct=1 --rw=randrw --bs=4k --size=64M --ioengine=psync \
	--number_ios=20000 --output-format=terse >/dev/null 2>"$T/fio.err" || fail "fio: $(cat "$T/fio.err")"
sleep 1
kill -INT "$BT"
wait "$BT"
stop_rec INT

"$B/vxreplay" "$T/l.vxt" --script "$T/lat.bt" >"$T/vx.out" 2>"$T/vx.err" || fail "vxreplay: $(cat "$T/vx.err")"
# the completions: fio's 16384, within one per thousand (an I/O bpftrace's
# probes attached or detached around)
expect_eq "completions, as many within 0.1%" \
	"$(awk -v a="$(sed -n 's/^@n: //p' "$T/vx.out")" -v b="$(sed -n 's/^@n: //p' "$T/bt.out")" \
	   'BEGIN { d = a - b; if (d < 0) d = -d; print (b > 1000 && d <= b / 1000 + 1) ? "yes" : a " against " b }')" yes
rows() { sed -n 's/^\([[(][^|]*[])]\) *\([0-9][0-9]*\) |.*$/\1|\2/p' "$1"; }
rows "$T/bt.out" >"$T/bt.rows"
rows "$T/vx.out" >"$T/vx.rows"
# bpftrace's hist() buckets of a value in us, as its rows name them
bucket='function bucket(v,  lo) { if (v < 0) return "(..., 0)"; if (v == 0) return "[0]"
	if (v == 1) return "[1]"; lo = 2; while (lo * 2 <= v) lo *= 2; return "[" lab(lo) ", " lab(lo * 2) ")" }
	function lab(x) { if (x >= 1048576 && x % 1048576 == 0) return x / 1048576 "M"
		if (x >= 1024 && x % 1024 == 0) return x / 1024 "K"; return x }'
# the recording's own latencies, issue to completion, from its events
# (hist() prints the empty buckets between used ones, as bpftrace does:
# awk lists the used ones)
"$B/vxreplay" "$T/l.vxt" --export csv >"$T/ev.csv" || fail "vxreplay --export csv"
awk -F, "$bucket"' $3 == "start" { st[$6] = $1 }
	$3 == "done" && ($6 in st) { n[bucket(int(($1 - st[$6]) / 1000))]++; delete st[$6] }
	END { for (k in n) print k "|" n[k] }' "$T/ev.csv" | sort >"$T/csv.rows"
expect_eq "vxreplay's histogram: the recording's, bucket by bucket" \
	"$(grep -v "|0$" "$T/vx.rows" | sort | diff - "$T/csv.rows" | head -5)" ""
# each I/O in both tools: sector, latency (ns)
sed -n 's/^io //p' "$T/bt.out" | sort >"$T/bt.io"
sed -n 's/^io //p' "$T/vx.out" | sort >"$T/vx.io"
join "$T/vx.io" "$T/bt.io" >"$T/both.io"
only=$(( $(wc -l <"$T/vx.io") + $(wc -l <"$T/bt.io") - 2 * $(wc -l <"$T/both.io") ))
far=$(awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > 2000) far++ } END { print far + 0 }' "$T/both.io")
echo "I/Os more than 2 us apart: $far of $(wc -l <"$T/both.io")"
expect_eq "each I/O's latency within 2 us of bpftrace's for 95% of them" \
	"$(awk -v far="$far" 'END { print (NR > 1000 && far <= NR / 20) ? "yes" : far " of " NR }' \
	   "$T/both.io")" yes
# bucket by bucket: no further apart than the I/Os that crossed an edge
off=$(awk -F'|' -v only="$only" "$bucket"'
	FILENAME == ARGV[1] { split($0, f, " "); a = bucket(int(f[2] / 1000)); b = bucket(int(f[3] / 1000))
		if (a != b) { cross[a]++; cross[b]++ } next }
	FILENAME == ARGV[2] { bt[$1] = $2; next }
	{ vx[$1] = $2 }
	END { for (k in bt) if (!(k in vx)) vx[k] = 0
		for (k in vx) { d = vx[k] - bt[k]; if (d < 0) d = -d
			if (d > cross[k] + only + 2) bad = bad " " k ": " vx[k] " against " bt[k] " (" cross[k] + 0 " crossed)" }
		print bad == "" ? "none" : bad }' "$T/both.io" "$T/bt.rows" "$T/vx.rows")
expect_eq "buckets further apart than the I/Os that crossed their edges" "$off" none
expect_eq "bpftrace's first line" "$(head -1 "$T/vx.out")" "$(head -1 "$T/bt.out")"
expect_eq "the map's heading" "$(grep -c '^@usecs: $' "$T/vx.out")" 1
finish
