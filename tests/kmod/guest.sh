# guest.sh - the module tests, run as root inside the test guest by /init
#
# Prints "VXT-RESULT PASS|FAIL name: detail" lines; tests/kmod/run.sh decides.
# Devices: nullb0 (null_blk, no memory backing), nullb1 (configfs, bad
# sectors 2048-2055), nullb2 (write cache, discard, nullb2p1 at sector
# 2048), nullb3 (throttled to 1 MB/s, mq-deadline), dm-0 (device-mapper
# "error" target), dm-1 (linear on nullb0); later nullb4 (3 ms per I/O).

M=/modules
P=/sys/module/vxtrace/parameters
BAD=2048

res() { echo "VXT-RESULT $1 $2: $3"; }

# wait_for SECS PID...: as the shell's wait, but SECS at most. A process
# still running then is named in $hung with its state, wait channel and
# kernel stack (and on the console), and killed, so one stuck tracer, dd
# or recorder fails its test in one line instead of holding the guest past
# its time limit and losing every result after it.
# @return the last process's exit status, as wait (137 when it was killed)
hung=
wait_for() {
	wf_secs=$1
	shift
	wf_i=0
	while [ $wf_i -lt $((wf_secs * 10)) ]; do
		wf_left=
		for wf_p in "$@"; do
			kill -0 "$wf_p" 2>/dev/null && wf_left="$wf_left $wf_p"
		done
		[ -z "$wf_left" ] && break
		wf_i=$((wf_i + 1))
		sleep 0.1
	done
	for wf_p in $wf_left; do
		wf_msg="$(cat /proc/$wf_p/comm 2>/dev/null)($wf_p) did not end in $wf_secs s: state $(awk '{ print $3 }' /proc/$wf_p/stat 2>/dev/null) wchan $(cat /proc/$wf_p/wchan 2>/dev/null) stack $(head -n 4 /proc/$wf_p/stack 2>/dev/null | awk '{ print $2 }' | tr '\n' ' ')"
		echo "VXT-HUNG $wf_msg"
		hung="$hung $wf_msg;"
		kill -9 "$wf_p" 2>/dev/null
	done
	wait "$@"
}
param() { cat "$P/$1" 2>/dev/null; }

# nullb_timer N NS [ATTR=VALUE...]: null_blk nullbN of 64 MiB whose I/Os
# each complete NS ns later on a timer, with the other configfs attributes
# given, and no I/O scheduler; waits for its node (5 s at most).
# @return 1 when it cannot be made
nullb_timer() {
	nt_d=/sys/kernel/config/nullb/nullb$1 nt_dev=/dev/nullb$1 nt_ns=$2
	shift 2
	mkdir $nt_d && echo 64 >$nt_d/size && echo 2 >$nt_d/irqmode &&
		echo $nt_ns >$nt_d/completion_nsec || return 1
	for nt_a in "$@"; do
		echo "${nt_a#*=}" >"$nt_d/${nt_a%%=*}" || return 1
	done
	echo 1 >$nt_d/power || return 1
	nt_i=0
	while [ ! -b $nt_dev ] && [ $nt_i -lt 50 ]; do
		nt_i=$((nt_i + 1))
		sleep 0.1
	done
	[ -b $nt_dev ] && echo none >/sys/block/${nt_dev#/dev/}/queue/scheduler
}

setup() {
	insmod $M/configfs.ko &&
	mount -t configfs none /sys/kernel/config &&
	insmod $M/null_blk.ko nr_devices=1 gb=4 bs=512 &&
	insmod $M/dm-mod.ko || return 1
	echo none >/sys/block/nullb0/queue/scheduler
	d=/sys/kernel/config/nullb/nullb1
	mkdir $d && echo 64 >$d/size && echo "+$BAD-$((BAD + 7))" >$d/badblocks &&
		echo 1 >$d/power || return 1
	d=/sys/kernel/config/nullb/nullb2
	mkdir $d && echo 64 >$d/size && echo 1 >$d/memory_backed && echo 1 >$d/discard &&
		echo 16 >$d/cache_size && echo 1 >$d/power || return 1
	d=/sys/kernel/config/nullb/nullb3
	mkdir $d && echo 64 >$d/size && echo 1 >$d/mbps && echo 1 >$d/power || return 1
	vxtest dm-create vxterr 8192 error || return 1
	vxtest dm-create vxtlin 65536 linear "/dev/nullb0 0" || return 1
	i=0
	while [ ! -b /dev/nullb1 ] || [ ! -b /dev/nullb2 ] || [ ! -b /dev/nullb3 ] ||
	      [ ! -b /dev/dm-1 ]; do
		i=$((i + 1))
		[ $i -gt 50 ] && return 1
		sleep 0.1
	done
	echo none >/sys/block/nullb1/queue/scheduler
	echo none >/sys/block/nullb2/queue/scheduler
	echo mq-deadline >/sys/block/nullb3/queue/scheduler
	vxtest mbr /dev/nullb2 2048 65536 || return 1
	i=0
	while [ ! -b /dev/nullb2p1 ]; do
		i=$((i + 1))
		[ $i -gt 50 ] && return 1
		sleep 0.1
	done
	return 0
}

if setup; then
	res PASS setup "null_blk nullb0, nullb1 (bad sectors $BAD-$((BAD + 7))), nullb2 (cache, discard, partition 1), nullb3 (1 MB/s, mq-deadline); dm-0 error, dm-1 linear on nullb0"
else
	res FAIL setup "could not create the test devices"
fi

if insmod $M/vxtrace.ko && [ -c /dev/vxtrace ] && [ "$(param open_channels)" = 0 ]; then
	res PASS load "/dev/vxtrace, error ring $(param errbuf_size) bytes, default bufsize $(param default_bufsize)"
else
	res FAIL load "insmod failed or /dev/vxtrace missing"
fi

vxtest exact /dev/nullb0 300
vxtest badblocks /dev/nullb1 $BAD
vxtest dmerror /dev/dm-0
vxtest eagain /dev/nullb0
vxtest clock /dev/nullb0
vxtest smallbuf /dev/nullb0
vxtest lost /dev/nullb0 2000
vxtest multi /dev/nullb0 100
vxtest stacked /dev/dm-1 /dev/nullb0 40
vxtest ops /dev/nullb2
vxtest partition /dev/nullb2 /dev/nullb2p1 2048
vxtest phases /dev/nullb2 /dev/nullb2p1 2048
vxtest requeue /dev/nullb3 24
# Saved so far: 1 request error (badblocks) + 3 bio errors (dm).
vxtest errchan /dev/nullb1 $BAD 4

# block_rq_error saw exactly the two bad reads; the error ring agrees.
n=$(param rq_errors)
if [ "$n" = 2 ]; then
	res PASS rq_errors "block_rq_error counted 2 request errors"
else
	res FAIL rq_errors "block_rq_error counted '$n', expected 2"
fi

vxtest ioctls /dev/nullb0
vxtest eperm
# More errors from here on: after the rq_errors count.
vxtest errshare /dev/nullb1 $BAD
vxtest spec_ctx /dev/nullb1 $BAD
vxtest spec_time /dev/nullb1 $BAD
# A disk whose every I/O takes 3 ms (timer completions): slow I/O for key request.
nullb_timer 4 3000000
vxtest spec_req /dev/nullb0 /dev/nullb4
vxtest spec_foreign /dev/nullb0 /dev/dm-0
vxtest spec_bad /dev/nullb0
vxtest spec_safety /dev/nullb1 $BAD

if [ "$(param open_channels)" = 0 ] && [ "$(param buffer_bytes)" = 0 ] &&
   [ "$(param tracing_channels)" = 0 ]; then
	res PASS leaks "no channel or buffer left after the tests"
else
	res FAIL leaks "open_channels=$(param open_channels) buffer_bytes=$(param buffer_bytes) tracing_channels=$(param tracing_channels)"
fi

vxtest hold
if rmmod vxtrace && [ ! -e /dev/vxtrace ] && ! grep -q '^vxtrace ' /proc/modules; then
	res PASS unload "rmmod clean once no channel is open"
else
	res FAIL unload "rmmod failed or left /dev/vxtrace"
fi

if insmod $M/vxtrace.ko errbuf_size=256; then
	vxtest errlost /dev/nullb1 $BAD 7
	rmmod vxtrace
else
	res FAIL errlost "insmod errbuf_size=256 failed"
fi

if [ -f /guest-more.sh ]; then
	insmod $M/vxtrace.ko
	. /guest-more.sh
	rmmod vxtrace
fi
[ -f /guest-blktrace.sh ] && . /guest-blktrace.sh
if [ -f /guest-phases.sh ]; then
	insmod $M/vxtrace.ko
	. /guest-phases.sh
	rmmod vxtrace
fi
if [ -f /guest-stack.sh ]; then
	insmod $M/vxtrace.ko
	. /guest-stack.sh
	rmmod vxtrace
fi
[ -f /guest-ebpf.sh ] && . /guest-ebpf.sh

if insmod $M/vxtrace.ko; then
	. /guest-stress.sh
else
	res FAIL stress "insmod failed"
fi

dmesg >/tmp/dmesg.txt
# the checks this kernel makes while the tests run, as the running kernel
# shows them: lockdep (/proc/lockdep), KASAN and KFENCE (their boot lines),
# kmemleak (its debugfs file)
kchecks() {
	yn() { if "$@" >/dev/null 2>&1; then echo on; else echo off; fi; }
	echo "lockdep $(yn test -e /proc/lockdep), KASAN $(yn grep -q 'KernelAddressSanitizer initialized' /tmp/dmesg.txt)," \
		"KFENCE $(yn grep -q 'kfence: initialized' /tmp/dmesg.txt), kmemleak $(yn test -e /sys/kernel/debug/kmemleak)"
}
if grep -E -q 'BUG|WARNING|Oops|Call Trace|general protection' /tmp/dmesg.txt; then
	res FAIL dmesg "kernel log has problems:"
	grep -E -B2 -A20 'BUG|WARNING|Oops|Call Trace|general protection' /tmp/dmesg.txt | head -60
else
	res PASS dmesg "no BUG, WARNING or Oops in the kernel log ($(uname -r) checks: $(kchecks))"
fi
echo "--- guest dmesg (vxtrace lines) ---"
grep -i vxtrace /tmp/dmesg.txt
