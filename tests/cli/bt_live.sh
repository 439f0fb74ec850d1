#!/bin/sh
# bt_live.sh - one bpftrace program, run by bpftrace itself on live I/O
# and by vxreplay on a tracefs recording (--phases all) of the same I/O:
# fio's reads and writes on a fresh loop device, the program keyed to that
# device. The histograms have the same buckets and counts (a latency near
# a bucket's edge may fall on the other side: the two tools read the
# clock at slightly different points; an I/O may pass while bpftrace
# attaches or detaches), and bpftrace's own lines are the same. Skipped without bpftrace, root, tracefs or fio.
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
	@usecs = hist((nsecs - @start[args->sector]) / 1000);
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
n=$(sed -n 's/^@n: //p' "$T/bt.out")
# bucket by bucket, within 1% of all the I/Os (plus 2)
off=$(awk -F'|' -v n="${n:-0}" 'NR == FNR { b[$1] = $2; next } { v[$1] = $2 }
	END { for (k in b) if (!(k in v)) v[k] = 0; for (k in v) { d = v[k] - b[k]; if (d < 0) d = -d
		if (d > n / 100 + 2) bad = bad " " k } print bad == "" ? "none" : bad }' "$T/bt.rows" "$T/vx.rows")
expect_eq "buckets further apart than 1% of the I/Os" "$off" none
expect_eq "bpftrace's first line" "$(head -1 "$T/vx.out")" "$(head -1 "$T/bt.out")"
expect_eq "the map's heading" "$(grep -c '^@usecs: $' "$T/vx.out")" 1
finish
