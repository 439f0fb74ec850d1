# guest-blktrace.sh - blktrace import checked on a capture made here,
# sourced by guest.sh when vxrecord, vxreplay, blktrace and blkparse are in
# the guest: dd with known reads and writes on nullb0 under blktrace, then
# vxrecord --import of the per-CPU files and of the `blkparse -d` dump,
# compared with blkparse's own totals and with the workload.
# expect: blktrace_capture blktrace_import blktrace_dump

BT_R=300 BT_RKB=4 BT_W=100 BT_WKB=8

# bt_total LABEL: "N KiB" of blkparse's "Total" section for LABEL
# ("Reads Completed", "Writes Completed", "Reads Queued", ...); blkparse
# prints no "Total" when a single CPU saw every event: then that CPU's.
bt_total() {
	from='^Total ('
	grep -q "$from" /tmp/bt.txt || from='^CPU[0-9]* ('
	sed -n "/$from/,\$p" /tmp/bt.txt | grep -o "$1: *[0-9]*, *[0-9]*KiB" |
		head -n 1 | sed 's/.*: *\([0-9]*\), *\([0-9]*\)KiB/\1 \2/'
}

bt_run() {
	why=
	for t in blktrace blkparse vxrecord vxreplay; do
		command -v $t >/dev/null 2>&1 || { why="$t not in the guest"; return 1; }
	done
	[ -d /sys/kernel/debug/block ] ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -d /sys/kernel/debug/block ] ||
		{ why="no debugfs block directory (CONFIG_BLK_DEV_IO_TRACE?)"; return 1; }
	rm -f /tmp/bt.blktrace.*
	blktrace -d /dev/nullb0 -D /tmp -o bt >/tmp/bt.out 2>&1 &
	p=$!
	i=0
	while [ ! -e /tmp/bt.blktrace.0 ]; do
		i=$((i + 1))
		if [ $i -gt 50 ] || ! kill -0 $p 2>/dev/null; then
			why="blktrace did not start: $(head -n 3 /tmp/bt.out | tr '\n' ' ')"
			kill -INT $p 2>/dev/null
			wait_for 60 $p
			return 1
		fi
		sleep 0.1
	done
	sleep 0.5
	dd if=/dev/nullb0 of=/dev/null bs=${BT_RKB}k count=$BT_R skip=2000 iflag=direct 2>/dev/null
	dd if=/dev/zero of=/dev/nullb0 bs=${BT_WKB}k count=$BT_W seek=5000 oflag=direct 2>/dev/null
	sleep 0.5
	kill -INT $p
	wait_for 60 $p
	return 0
}

if ! bt_run; then
	res SKIP blktrace_capture "$why"
	res SKIP blktrace_import "$why"
	res SKIP blktrace_dump "$why"
else
	blkparse -i /tmp/bt -d /tmp/bt.bin >/tmp/bt.txt 2>/tmp/bt.err
	rc=$(bt_total "Reads Completed")
	wc_=$(bt_total "Writes Completed")
	want_r="$BT_R $((BT_R * BT_RKB))"
	want_w="$BT_W $((BT_W * BT_WKB))"
	if [ "$rc" = "$want_r" ] && [ "$wc_" = "$want_w" ]; then
		res PASS blktrace_capture "blktrace on nullb0 during dd: blkparse counts $BT_R reads ($((BT_R * BT_RKB)) KiB) and $BT_W writes ($((BT_W * BT_WKB)) KiB) completed"
	else
		res FAIL blktrace_capture "blkparse reads completed '$rc' (want $want_r), writes completed '$wc_' (want $want_w)"
		cat /tmp/bt.out /tmp/bt.err
		sed -n '/^Total (/,$p' /tmp/bt.txt
	fi
	# blkparse's figures, whatever they are, are what the import must give
	set -- $rc
	pr=${1:-x} prk=${2:-x}
	set -- $wc_
	pw=${1:-x} pwk=${2:-x}
	for how in import dump; do
		in=/tmp/bt
		[ $how = dump ] && in=/tmp/bt.bin
		if vxrecord -q --import blktrace $in -o /tmp/bt-$how.vxt 2>/tmp/bt-$how.err &&
		   vxreplay /tmp/bt-$how.vxt --report summary --format json >/tmp/bt-$how.json; then
			expect /tmp/bt-$how.json ios $((pr + pw)) reads $pr writes $pw \
				bytes_read $((prk * 1024)) bytes_written $((pwk * 1024)) errors 0
			d=${DIFF:+ against blkparse:$DIFF}
			expect /tmp/bt-$how.json reads $BT_R writes $BT_W \
				bytes_read $((BT_R * BT_RKB * 1024)) bytes_written $((BT_W * BT_WKB * 1024))
			d="$d${DIFF:+ against dd:$DIFF}"
		else
			d=" vxrecord/vxreplay failed: $(cat /tmp/bt-$how.err)"
		fi
		if [ -z "$d" ]; then
			res PASS blktrace_$how "vxrecord --import blktrace $in: $((pr + pw)) completions, $pr reads, $pw writes, $prk + $pwk KiB as blkparse and dd"
		else
			res FAIL blktrace_$how "import of $in differs:$d"
			cat /tmp/bt-$how.json
		fi
	done
fi
