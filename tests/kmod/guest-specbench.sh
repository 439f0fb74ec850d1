# guest-specbench.sh - the cost of keeping errors in context, in one boot:
# fio 4 KiB random reads (psync, full rate) on a null_blk with bad blocks (1
# read in ~10 000 fails), run by tests/bench/kmod-spec.sh inside the guest.
# Modes: none, full (vxrecord of every event), user (errors-in-context run
# by vxrecord in user space), kernel (the same profile run in the module),
# blktrace; then check: a full and a kernel-speculating vxrecord at once,
# the profile applied offline to the full file compared with the kernel's
# file. Prints "SPECBENCH" lines.

M=/modules
RUNTIME=${RUNTIME:-5}
PROFILE=${PROFILE:-errors-in-context}
P=/sys/module/vxtrace/parameters
insmod $M/configfs.ko
mount -t configfs none /sys/kernel/config
insmod $M/null_blk.ko nr_devices=0
insmod $M/vxtrace.ko
d=/sys/kernel/config/nullb/nullb0
mkdir $d && echo 1024 >$d/size && echo 512 >$d/blocksize
# 1 GiB = 262144 blocks of 4 KiB: 26 bad ones, every 10082nd
i=0
while [ $i -lt 26 ]; do
	s=$(((i * 10082 + 5000) * 8))
	echo "+$s-$((s + 7))" >$d/badblocks
	i=$((i + 1))
done
echo 1 >$d/power
while [ ! -b /dev/nullb0 ]; do sleep 0.1; done
echo none >/sys/block/nullb0/queue/scheduler
# The same profile with a trigger the kernel program does not parse: it
# runs in user space, with the same meaning.
mkdir -p /tmp/prof
cp /profiles/*.yaml /tmp/prof/
sed "s/^  on: error\$/  on: error != 0 \&\& error != 0/; s/^name: .*/name: $PROFILE-user/" \
	/profiles/$PROFILE.yaml >/tmp/prof/$PROFILE-user.yaml

fio_run() {
	fio --name=sb --filename=/dev/nullb0 --direct=1 --rw=randread --bs=4k \
		--ioengine=psync --numjobs=1 --time_based --runtime="$RUNTIME" \
		--randseed=$1 --continue_on_error=read --minimal 2>/dev/null
}
# IOPS and read errors from fio's terse line (fields 8 and, v3, 5 + 0).
fio_iops() { echo "$1" | cut -d';' -f8; }

wait_chan() {
	i=0
	while [ "$(cat $P/tracing_channels)" != "$1" ] && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
}

# cpu PID: user+system clock ticks so far
cpu() { awk '{ print $14 + $15 }' /proc/$1/stat 2>/dev/null; }
hz=100

rec() {	# rec NAME OUT ARGS...: one vxrecord run beside fio
	name=$1 out=$2
	shift 2
	vxrecord -q -f --source kmod --objects nullb0 --profile-dir /tmp/prof "$@" \
		-o "$out" 2>/tmp/$name.err &
	p=$!
	wait_chan 1
	line=$(fio_run 1)
	sleep 0.3
	t=$(cpu $p)
	st=$(cat $P/spec_stats)
	kill -INT $p
	wait $p
	ev=$(vxreplay "$out" --report summary --format json | grep -o '"events": [0-9]*' |
		grep -o '[0-9]*$')
	er=$(vxreplay "$out" --report summary --format json | grep -o '"errors": [0-9]*' |
		grep -o '[0-9]*$')
	echo "SPECBENCH $name iops=$(fio_iops "$line") cpu_s=$(awk -v t="$t" -v h=$hz 'BEGIN { printf "%.2f", t / h }') events=$ev errors=$er spec=[$st] $(tail -n 1 /tmp/$name.err)"
}

line=$(fio_run 1)
echo "SPECBENCH none iops=$(fio_iops "$line")"
rec full /tmp/full.vxt
rec user /tmp/user.vxt --profile $PROFILE-user
rec kernel /tmp/kern.vxt --profile $PROFILE
if command -v blktrace >/dev/null 2>&1; then
	mkdir -p /tmp/bt
	blktrace -d /dev/nullb0 -D /tmp/bt >/tmp/bt.out 2>&1 &
	p=$!
	sleep 1
	line=$(fio_run 1)
	kill -INT $p
	wait $p
	echo "SPECBENCH blktrace iops=$(fio_iops "$line") bytes=$(cat /tmp/bt/* | wc -c)"
	rm -rf /tmp/bt
else
	echo "SPECBENCH blktrace skipped: not in the guest"
fi

# check: both at once on the same I/O
vxrecord -q -f --source kmod --objects nullb0 --profile-dir /profiles --profile $PROFILE \
	-o /tmp/ck-kern.vxt 2>/tmp/ck-kern.err &
k=$!
vxrecord -q -f --source kmod --objects nullb0 -o /tmp/ck-full.vxt 2>/tmp/ck-full.err &
f=$!
wait_chan 2
fio_run 2 >/dev/null
sleep 0.3
kill -INT $k $f
wait $k
wait $f
vxreplay /tmp/ck-full.vxt --profile-dir /profiles --profile $PROFILE --report events \
	--format csv | cut -d, -f1-10,13 >/tmp/ck-user.csv
vxreplay /tmp/ck-kern.vxt --report events --format csv | cut -d, -f1-10,13 >/tmp/ck-kern.csv
eu=$(awk -F, '$3 == "done" && $9 != 0' /tmp/ck-user.csv | wc -l)
ek=$(awk -F, '$3 == "done" && $9 != 0' /tmp/ck-kern.csv | wc -l)
nd=$(diff /tmp/ck-user.csv /tmp/ck-kern.csv | grep -c '^[<>]')
echo "SPECBENCH check errors_offline=$eu errors_kernel=$ek rows_offline=$(($(wc -l </tmp/ck-user.csv) - 1)) rows_kernel=$(($(wc -l </tmp/ck-kern.csv) - 1)) differing_rows=$nd"
rmmod vxtrace
