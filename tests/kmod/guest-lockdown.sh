# guest-lockdown.sh - run as the guest's /guest.sh by tests/kmod/lockdown.sh,
# the kernel booted with lockdown=confidentiality (which refuses tracefs,
# perf and the BPF helpers that read kernel memory): vxrecord --source ebpf
# still loads and records every I/O dd does on a null_blk device, since its
# programs read the requests through BTF-typed loads and use none of those
# helpers.
# expect: lockdown_mode lockdown_ebpf
res() { echo "VXT-RESULT $1 $2: $3"; }
json() { grep -o "\"$2\" *: *[0-9]*" "$1" | head -n 1 | grep -o '[0-9]*$'; }
M=/modules
mkdir -p /sys/kernel/security
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
mode=$(cat /sys/kernel/security/lockdown 2>/dev/null)
case $mode in
*"[confidentiality]"*) res PASS lockdown_mode "$mode" ;;
*) res FAIL lockdown_mode "not locked down for confidentiality: '$mode'" ;;
esac
if ! { insmod $M/configfs.ko && insmod $M/null_blk.ko nr_devices=1 gb=1 bs=512; }; then
	res FAIL lockdown_ebpf "cannot load null_blk"
	exit 0
fi
vxrecord -q --source ebpf --objects nullb0 -o /tmp/l.vxt 2>/tmp/l.err &
pid=$!
i=0
while [ ! -e /tmp/l.vxt ] && kill -0 $pid 2>/dev/null && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
if [ -e /tmp/l.vxt ] && kill -0 $pid 2>/dev/null; then
	dd if=/dev/nullb0 of=/dev/null bs=4k count=100 iflag=direct 2>/dev/null
	dd if=/dev/zero of=/dev/nullb0 bs=4k count=50 seek=500 oflag=direct 2>/dev/null
	sleep 0.3
	kill -INT $pid
	wait $pid
	rc=$?
	vxreplay /tmp/l.vxt --report summary --format json >/tmp/l.json
	got="$rc $(json /tmp/l.json starts) $(json /tmp/l.json reads) $(json /tmp/l.json writes)"
	got="$got $(json /tmp/l.json lost)"
	if [ "$got" = "0 150 100 50 0" ]; then
		res PASS lockdown_ebpf "exit, starts, reads, writes, lost = $got"
	else
		res FAIL lockdown_ebpf "exit, starts, reads, writes, lost = $got, want 0 150 100 50 0: $(cat /tmp/l.err)"
	fi
else
	wait $pid
	res FAIL lockdown_ebpf "vxrecord --source ebpf exited $?: $(cat /tmp/l.err)"
fi
