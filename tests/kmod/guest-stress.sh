# guest-stress.sh - the module under stress, sourced by guest.sh with the
# module loaded: channels opening and closing while fio runs at full rate on
# nullb0, a 4 KiB channel that must account for every event, rmmod tried in
# between; then the module's counters, unload, kmemleak.
# expect: stress stress_counters stress_unload kmemleak

FIO_PID=
if command -v fio >/dev/null 2>&1; then
	fio --name=stress --filename=/dev/nullb0 --direct=1 --ioengine=psync \
		--rw=randrw --bs=4k --size=1g --time_based --runtime=60 \
		--output=/tmp/stress-fio.txt >/dev/null 2>&1 &
	FIO_PID=$!
	sleep 1
fi
vxtest stress /dev/nullb0 /dev/nullb2 1200
if [ -n "$FIO_PID" ]; then
	kill -INT $FIO_PID
	wait_for 60 $FIO_PID
	echo "stress: fio on nullb0: $(grep -o 'IOPS=[^,]*' /tmp/stress-fio.txt | tr '\n' ' ')"
else
	echo "stress: fio not in the guest, the channels ran without background load"
fi

if [ "$(param open_channels)" = 0 ] && [ "$(param buffer_bytes)" = 0 ] &&
   [ "$(param tracing_channels)" = 0 ]; then
	res PASS stress_counters "open_channels, tracing_channels and buffer_bytes back to 0"
else
	res FAIL stress_counters "open_channels=$(param open_channels) buffer_bytes=$(param buffer_bytes) tracing_channels=$(param tracing_channels)"
fi

if rmmod vxtrace && [ ! -e /dev/vxtrace ] && ! grep -q '^vxtrace ' /proc/modules; then
	res PASS stress_unload "rmmod succeeds once the stress is over"
else
	res FAIL stress_unload "rmmod failed or left /dev/vxtrace"
fi

KL=/sys/kernel/debug/kmemleak
if [ ! -e $KL ]; then
	if grep -q 'CONFIG_DEBUG_KMEMLEAK=y' /proc/config.gz 2>/dev/null; then
		why="kmemleak built in but off (kmemleak=on on the command line)"
	else
		why="the guest kernel $(uname -r) has no kmemleak ($KL missing)"
	fi
	res SKIP kmemleak "$why"
else
	echo scan >$KL
	sleep 1
	echo scan >$KL
	if grep -q vxtrace $KL; then
		res FAIL kmemleak "leaks in vxtrace:"
		head -60 $KL
	else
		res PASS kmemleak "no vxtrace object in the kmemleak report"
	fi
fi
