#!/bin/sh
# ebpf_end.sh - what the end of an ebpf capture says of the I/O it saw issued
# and not completed. Writes held in flight when the capture ends (a loop
# device over a file on a frozen ext4 file system: its writes wait in the
# loop device for the thaw) are named in a line as issues without a
# completion, never counted lost (which a completion the kernel ran without
# our programs is, found by the device's own count of I/O in flight), and
# their completions after the end are not in the file; the reads before the
# end all are, each completion or a counted loss.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_ebpf
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4 (apt-get install e2fsprogs)"
command -v fsfreeze >/dev/null || skip "no fsfreeze (util-linux)"
grep -qw ext4 /proc/filesystems || skip "the kernel has no ext4"
. "$VXT_TOP/tests/cli/ebpf_lost.inc"

MNT= INNER= FIO=
end_cleanup() {
	[ -n "$MNT" ] && fsfreeze -u "$MNT" 2>/dev/null
	[ -n "$FIO" ] && wait "$FIO" 2>/dev/null
	[ -n "$INNER" ] && losetup -d "$INNER" 2>/dev/null
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	cleanup	# tracefs_env.inc's: the recorder, $LOOP, $T
}
trap end_cleanup EXIT

make_loop 64M
mkfs.ext4 -q -F "$LOOP" >/dev/null 2>&1 || skip "mkfs.ext4 failed on $LOOP"
mkdir "$T/mnt"
mount -t ext4 "$LOOP" "$T/mnt" 2>/dev/null || skip "cannot mount ext4 on $LOOP"
MNT=$T/mnt
dd if=/dev/zero of="$MNT/img" bs=1M count=16 conv=fsync 2>/dev/null || fail "backing file"
INNER=$(losetup -f --show "$MNT/img") || skip "no free loop device"
INAME=${INNER#/dev/}
command -v udevadm >/dev/null && udevadm settle 2>/dev/null
sleep 0.5
inflight_writes() { awk '{ print $2 }' "/sys/block/$INAME/inflight"; }

start_rec "$T/e.vxt" --source ebpf --objects "$INAME" || finish
set -- $(fio_run "$INNER" r randread 100)
reads=$1
expect_eq "fio reads before the end" "$reads" 100
fsfreeze -f "$MNT" || fail "fsfreeze"
fio --name=held --filename="$INNER" --direct=1 --rw=randwrite --bs=4k --ioengine=libaio \
	--iodepth=4 --number_ios=4 --size=8M --output-format=json >"$T/held.json" 2>"$T/held.err" &
FIO=$!
i=0	# the 4 writes reach the loop device and wait there
while [ "$(inflight_writes)" -lt 4 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
held=$(inflight_writes)
[ "$held" -ge 1 ] || skip "the frozen file system did not hold the loop device's writes"
expect_eq "writes held in flight" "$held" 4
stop_rec INT
expect_eq "vxrecord exit status" "$RC" 0
fsfreeze -u "$MNT"
wait "$FIO"
expect_eq "fio's held writes done after the thaw" "$?" 0
FIO=

"$B/vxreplay" "$T/e.vxt" --report summary --format json >"$T/sum.json" || fail "vxreplay summary"
starts=$(json "$T/sum.json" 'j["starts"]')
ios=$(json "$T/sum.json" 'j["ios"]')
lost=$(json "$T/sum.json" 'j["lost"]')
skipped=$(kernel_skipped "$T/rec.err")
expect_eq "issues in the file (reads + held writes)" "$starts" $((reads + held))
expect_eq "the held writes named as issues without a completion" "$(unfinished "$T/rec.err")" "$held"
expect_eq "lost events = those the kernel ran without our programs ($skipped)" "$lost" "$skipped"
expect_eq "completions + lost = the reads (no held write's completion)" $((ios + lost)) "$reads"
finish
