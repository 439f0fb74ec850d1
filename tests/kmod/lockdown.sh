#!/bin/sh
# lockdown.sh - vxrecord --source ebpf on a kernel locked down for
# confidentiality: boots the Debian kernel (as run.sh does, under qemu TCG;
# about 20 s) with lockdown=confidentiality on its command line and runs
# guest-lockdown.sh there; vxrecord, vxreplay and their libraries (libbpf)
# go into the initramfs. Ends with "lockdown: N passed, N failed"; skips
# (exit 0) with --if-possible when qemu, the kernel or the programs are
# missing.
#   tests/kmod/lockdown.sh [--if-possible] [BUILD_DIR]
set -u
if_possible=0
[ "${1:-}" = "--if-possible" ] && { if_possible=1; shift; }
BUILD=${1:-build}
KM_TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$KM_TOP/tests/kmod/lib.sh"
case $BUILD in /*) ;; *) BUILD=$KM_TOP/$BUILD ;; esac
give_up() {
	[ $if_possible = 1 ] && { echo "lockdown: skipped ($1)"; exit 0; }
	echo "lockdown: FAILED ($1)"; echo "lockdown: 0 passed, 1 failed"; exit 1
}
km_find_kernel || give_up "$KM_WHY"
for b in vxrecord vxreplay; do
	[ -x "$BUILD/$b" ] || give_up "no $BUILD/$b"
done
grep -q 'this build has no BPF programs' "$BUILD/vxrecord" &&
	give_up "vxrecord was built without the ebpf source"
KM_WORK=$(mktemp -d /tmp/vxt-lockdown.XXXXXX)
trap 'rm -rf "$KM_WORK"' EXIT INT TERM
km_build || give_up "$KM_WHY"
km_initramfs "$KM_TOP/tests/kmod/guest-lockdown.sh" "$BUILD/vxrecord" "$BUILD/vxreplay" || give_up "$KM_WHY"
start=$(date +%s)
km_boot "${VXT_KMOD_TIMEOUT:-600}" "lockdown=confidentiality"
boot_rc=$?
echo "lockdown: guest ran $(($(date +%s) - start)) s"
tr -d '\r' <"$KM_LOG" >"$KM_LOG.txt" 2>/dev/null || : >"$KM_LOG.txt"
pass=0 failn=0
for t in $(sed -n 's/^# expect: //p' "$KM_TOP/tests/kmod/guest-lockdown.sh"); do
	line=$(grep "^VXT-RESULT [A-Z]* $t: " "$KM_LOG.txt" | head -n 1)
	case $line in
	"VXT-RESULT PASS "*) pass=$((pass + 1)); echo "  ok    ${line#VXT-RESULT PASS }" ;;
	"VXT-RESULT FAIL "*) failn=$((failn + 1)); echo "  FAIL  ${line#VXT-RESULT FAIL }" ;;
	*) failn=$((failn + 1)); echo "  FAIL  $t: no result from the guest" ;;
	esac
done
if [ $boot_rc != 0 ] || [ $failn != 0 ]; then
	[ $boot_rc != 0 ] && echo "lockdown: $KM_WHY"
	echo "--- guest console (last 40 lines) ---"
	tail -n 40 "$KM_LOG.txt"
	[ $failn = 0 ] && failn=1
fi
echo "lockdown: $pass passed, $failn failed"
[ $failn = 0 ]
