#!/bin/sh
# run.sh - the kernel module tests: build vxtrace.ko, boot it under qemu, judge
#
#   tests/kmod/run.sh [--if-possible] [BUILD_DIR]
#
# Builds the module against the installed Debian kernel headers, boots the
# Debian kernel with a busybox initramfs under qemu TCG, runs guest.sh there
# and counts the "VXT-RESULT" lines on the serial console. With --if-possible
# a missing qemu, kernel image or headers skips the tests (exit 0); without
# it they are a failure. A check the guest cannot make prints
# "VXT-RESULT SKIP name: why". Ends with "kmod: N passed, N failed, N skipped".
set -u

if_possible=0
if [ "${1:-}" = "--if-possible" ]; then
	if_possible=1
	shift
fi
BUILD=${1:-build}
KM_TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$KM_TOP/tests/kmod/lib.sh"
case $BUILD in /*) ;; *) BUILD=$KM_TOP/$BUILD ;; esac

EXPECTED="setup load exact badblocks dmerror eagain clock smallbuf lost multi stacked ops partition phases requeue errchan
rq_errors ioctls eperm errshare spec_ctx spec_time spec_req spec_foreign spec_key spec_trigger spec_window
spec_e2big spec_ebusy spec_errchan spec_safety leaks hold unload errlost dmesg"

fail_early() {
	echo "kmod tests: FAILED ($1)"
	echo "kmod: 0 passed, 1 failed"
	exit 1
}

if ! km_find_kernel; then
	if [ $if_possible = 1 ]; then
		echo "kmod tests: skipped ($KM_WHY)"
		exit 0
	fi
	fail_early "$KM_WHY"
fi
if [ "$(id -u)" != 0 ] && [ ! -r "$KM_KIMG" ]; then
	fail_early "cannot read $KM_KIMG"
fi

KM_WORK=$(mktemp -d /tmp/vxt-kmod.XXXXXX)
trap 'rm -rf "$KM_WORK"' EXIT INT TERM
echo "kmod: kernel $KM_KVER, work dir $KM_WORK"
echo "kmod: kernel checks: $(km_kdebug)"
km_build || fail_early "$KM_WHY"

# The capture checks run when the programs are built.
# The blktrace import and phase checks need blktrace, blkparse and btt too; without them
# the guest says why it skips.
expects() { sed -n 's/^# expect: //p' "$KM_TOP/tests/kmod/$1"; }
bins=
if [ -x "$BUILD/vxrecord" ] && [ -x "$BUILD/vxreplay" ]; then
	bins="$BUILD/vxrecord $BUILD/vxreplay"
	[ -x "$BUILD/vxtop" ] && bins="$bins $BUILD/vxtop"
	fio=$(command -v fio) || fail_early "fio not installed"
	bins="$bins $fio"
	for t in blktrace blkparse btt; do
		p=$(command -v $t) && bins="$bins $p"
	done
	EXPECTED="$EXPECTED $(expects guest-record.sh) $(expects guest-blktrace.sh)"
	EXPECTED="$EXPECTED $(expects guest-ebpf.sh) $(expects guest-phases.sh)"
	EXPECTED="$EXPECTED $(expects guest-stack.sh)"
fi
EXPECTED="$EXPECTED $(expects guest-stress.sh)"
km_initramfs "$KM_TOP/tests/kmod/guest.sh" $bins || fail_early "$KM_WHY"
if [ -n "$bins" ]; then
	cp "$KM_TOP/tests/kmod/guest-record.sh" "$KM_WORK/root/guest-more.sh"
	cp "$KM_TOP/tests/kmod/guest-blktrace.sh" "$KM_WORK/root/"
	cp "$KM_TOP/tests/kmod/guest-ebpf.sh" "$KM_WORK/root/"
	cp "$KM_TOP/tests/kmod/guest-phases.sh" "$KM_WORK/root/"
	cp "$KM_TOP/tests/kmod/guest-stack.sh" "$KM_WORK/root/"
	mkdir -p "$KM_WORK/root/profiles"
	cp "$KM_TOP"/formats/profiles/*.yaml "$KM_WORK/root/profiles/"
fi
cp "$KM_TOP/tests/kmod/guest-stress.sh" "$KM_WORK/root/"
(cd "$KM_WORK/root" && find . | cpio -o -H newc --quiet) >"$KM_WORK/initramfs.cpio"

start=$(date +%s)
km_boot "${VXT_KMOD_TIMEOUT:-600}"
boot_rc=$?
# Under TCG the kernel patching its own text (a jump label flipped when a
# tracepoint gets its first probe) can trap on a stale int3 in code that is
# not the module's. That crash alone, with no frame of vxtrace.ko in it,
# boots the guest once more; the first console is shown, never hidden.
if tr -d '\r' <"$KM_WORK/console.log" | grep -q 'Oops: int3' &&
   ! tr -d '\r' <"$KM_WORK/console.log" | grep -q '\[vxtrace\]'; then
	echo "kmod: the guest kernel trapped on an int3 outside vxtrace.ko while patching its text; booting it again"
	tr -d '\r' <"$KM_WORK/console.log" | grep -A 12 'Oops: int3' | sed 's/^/  first boot: /'
	km_boot "${VXT_KMOD_TIMEOUT:-600}"
	boot_rc=$?
fi
echo "kmod: guest ran $(($(date +%s) - start)) s"
log=$KM_WORK/console.log
[ -f "$log" ] || : >"$log"
tr -d '\r' <"$log" >"$log.txt"
if [ -n "${VXT_KMOD_LOG:-}" ]; then
	cp "$log.txt" "$VXT_KMOD_LOG"
fi

pass=0
failn=0
skipn=0
for t in $EXPECTED; do
	line=$(grep "^VXT-RESULT [A-Z]* $t: " "$log.txt" | head -n 1)
	case $line in
	"VXT-RESULT PASS "*)
		pass=$((pass + 1))
		echo "  ok    ${line#VXT-RESULT PASS }"
		;;
	"VXT-RESULT SKIP "*)
		skipn=$((skipn + 1))
		echo "  skip  ${line#VXT-RESULT SKIP }"
		;;
	"VXT-RESULT FAIL "*)
		failn=$((failn + 1))
		echo "  FAIL  ${line#VXT-RESULT FAIL }"
		;;
	*)
		failn=$((failn + 1))
		echo "  FAIL  $t: no result from the guest"
		;;
	esac
done
if [ $boot_rc != 0 ] || ! grep -q "^VXT-GUEST-DONE" "$log.txt" || [ $failn != 0 ]; then
	[ $boot_rc != 0 ] && echo "kmod: $KM_WHY"
	grep "^VXT-HUNG " "$log.txt" | sed 's/^VXT-HUNG /kmod: stuck in the guest: /'
	echo "--- guest console (last 80 lines) ---"
	tail -n 80 "$log.txt"
	[ $failn = 0 ] && failn=1
fi
echo "kmod: $pass passed, $failn failed, $skipn skipped"
[ $failn = 0 ]
