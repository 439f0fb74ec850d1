# guest-bench.sh - IOPS of fio 4k random reads on null_blk with no tracing,
# with one vxtrace channel (raw reader and vxrecord) and with blktrace, in
# one boot; run inside the guest by tests/bench/kmod.sh. Prints "BENCH" lines.

M=/modules
RUNTIME=${RUNTIME:-2}
ROUNDS=${ROUNDS:-7}
insmod $M/configfs.ko
insmod $M/null_blk.ko nr_devices=1 gb=16 memory_backed=0 irqmode=1
insmod $M/vxtrace.ko
echo none >/sys/block/nullb0/queue/scheduler

fio_iops() {
	fio --name=bench --filename=/dev/nullb0 --direct=1 --rw=randread --bs=4k \
		--ioengine=libaio --iodepth=16 --numjobs=1 --time_based \
		--runtime="$RUNTIME" --randseed=1 --minimal 2>/dev/null | cut -d';' -f8
}

wait_channel() {
	i=0
	while [ "$(cat /sys/module/vxtrace/parameters/tracing_channels)" = 0 ] && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
}

run_none() { echo "BENCH none iops=$(fio_iops)"; }

run_channel() {
	vxtest trace-count /dev/nullb0 >/tmp/tc.out &
	p=$!
	wait_channel
	iops=$(fio_iops)
	kill -TERM $p
	wait $p
	echo "BENCH channel iops=$iops $(tail -n 1 /tmp/tc.out)"
}

run_vxrecord() {
	vxrecord --source kmod --objects nullb0 -q -f -o /tmp/b.vxt 2>/tmp/vr.err &
	p=$!
	wait_channel
	iops=$(fio_iops)
	sleep 0.3
	kill -INT $p
	wait $p
	lost=$(vxreplay /tmp/b.vxt --report summary --format json |
		grep -o '"lost": [0-9]*' | grep -o '[0-9]*$')
	events=$(vxreplay /tmp/b.vxt --report summary --format json |
		grep -o '"events": [0-9]*' | grep -o '[0-9]*$')
	rm -f /tmp/b.vxt
	echo "BENCH vxrecord iops=$iops events $events lost $lost"
}

run_blktrace() {
	mkdir -p /tmp/bt
	blktrace -d /dev/nullb0 -D /tmp/bt >/tmp/bt.out 2>&1 &
	p=$!
	sleep 1
	iops=$(fio_iops)
	kill -INT $p
	wait $p
	echo "BENCH blktrace iops=$iops $(grep -o '[0-9]* events' /tmp/bt.out | tail -n 1)"
	rm -rf /tmp/bt
}

r=0
while [ $r -lt "$ROUNDS" ]; do
	run_none
	run_channel
	run_vxrecord
	run_blktrace
	r=$((r + 1))
done
rmmod vxtrace
