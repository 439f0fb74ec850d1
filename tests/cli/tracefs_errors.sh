#!/bin/sh
# tracefs_errors.sh - failed I/O is captured with its errno, once: a loop
# device over a file on a full tmpfs fails writes with ENOSPC; every failed
# write is one error completion (block_rq_error does not count it twice).
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
mkdir "$T/small"
mount -t tmpfs -o size=1m tmpfs "$T/small" || skip "cannot mount a tmpfs"
MNT=$T/small
cleanup_mnt() { [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null; LOOP=; umount "$MNT"; cleanup; }
trap cleanup_mnt EXIT
truncate -s 16M "$MNT/disk.img"
LOOP=$(losetup -f --show "$MNT/disk.img" 2>/dev/null) || skip "no free loop device"
LNAME=${LOOP#/dev/}
# fill most of the tmpfs through the device before recording
dd if=/dev/zero of="$LOOP" bs=4k count=240 oflag=direct 2>/dev/null || fail "prefill"

start_rec "$T/e.vxt" --source tracefs --objects "$LNAME" -q || finish
# blocks 240..319 of 4 KiB: the first fit in the 1 MiB tmpfs, the rest fail
good=0 bad=0
for i in $(seq 240 319); do
	if dd if=/dev/zero of="$LOOP" bs=4k seek="$i" count=1 oflag=direct 2>/dev/null; then
		good=$((good + 1))
	else
		bad=$((bad + 1))
	fi
done
sleep 0.5
stop_rec INT
expect_eq "vxrecord exit status" "$RC" 0
[ "$bad" -gt 0 ] && [ "$good" -gt 0 ] && ok "$good writes done, $bad failed" ||
	fail "$good writes done, $bad failed: want some of each"
"$B/vxreplay" "$T/e.vxt" --report summary --format json >"$T/sum.json" || fail "summary"
"$B/vxreplay" "$T/e.vxt" --report events --format csv >"$T/ev.csv" || fail "events"
expect_eq "error completions (dd failed $bad)" "$(json "$T/sum.json" 'j["errors"]')" "$bad"
expect_eq "completions" "$(awk -F, '$3 == "done"' "$T/ev.csv" | wc -l)" 80
expect_eq "errno of the failures" \
	"$(awk -F, '$3 == "done" && $9 != 0 { print $10 }' "$T/ev.csv" | sort -u | tr '\n' ' ')" "ENOSPC "
finish
