#!/bin/sh
# dkms.sh - contrib/dkms/dkms.conf works: `make install-dkms` stages the
# module's source, and `dkms add` + `dkms build` (in a private dkms tree, so
# the system's is untouched) build vxtrace.ko against the installed Debian
# kernel headers; the module carries that kernel's vermagic. The udev rule
# names the device and its group.
. "${VXT_TOP:?}/tests/lib.sh"
[ -n "${VXT_SAN:-}" ] && skip "builds the module, no program of this build runs: run once, not again under the sanitizers"
top=$VXT_TOP tmp=$T

grep -q '^KERNEL=="vxtrace", SUBSYSTEM=="misc",.*MODE="0660"' "$top/contrib/udev/60-vxtrace.rules" ||
	fail "the udev rule does not set /dev/vxtrace's mode"
[ -f "$top/kmod/Makefile" ] || skip "kmod/Makefile not in this tree"
command -v dkms >/dev/null || skip "dkms not installed (apt-get install dkms)"
kver=""
for d in /lib/modules/*/build; do
	[ -f "$d/Makefile" ] && kver=$(basename "$(dirname "$d")")
done
[ -n "$kver" ] || skip "no kernel headers installed (apt-get install linux-headers-amd64)"

version=$(sed -n 's/^#define VXT_VERSION_STRING "\(.*\)"/\1/p' "$top/include/vxtrace/vxtrace.h")
make -s -C "$top" install-dkms DESTDIR="$tmp/stage" DKMSDIR=/src > "$tmp/make.log" 2>&1 ||
	{ cat "$tmp/make.log"; fail "make install-dkms failed"; finish; }
src=$tmp/stage/src/vxtrace-$version
grep -q "^PACKAGE_VERSION=\"$version\"\$" "$src/dkms.conf" || fail "dkms.conf has no version $version"
[ -f "$src/include/vxtrace/voltrace.h" ] || fail "the ABI header is not staged"
mkdir -p "$tmp/tree"
opts="--sourcetree $tmp/stage/src --dkmstree $tmp/tree"
dkms add -m vxtrace -v "$version" $opts > "$tmp/dkms.log" 2>&1 ||
	{ cat "$tmp/dkms.log"; fail "dkms add failed"; finish; }
dkms build -m vxtrace -v "$version" -k "$kver" $opts > "$tmp/dkms.log" 2>&1 ||
	{ tail -n 30 "$tmp/dkms.log"; cat "$tmp/tree/vxtrace/$version/build/make.log" 2>/dev/null | tail -n 30
	  fail "dkms build failed for $kver"; finish; }
ko=$(find "$tmp/tree/vxtrace/$version/$kver" -name 'vxtrace.ko*' | head -n 1)
[ -n "$ko" ] || { fail "dkms build made no vxtrace.ko"; finish; }
modinfo -F vermagic "$ko" | grep -q "^$kver " || fail "vxtrace.ko is not built for $kver"
modinfo -F name "$ko" | grep -qx vxtrace || fail "the module is not named vxtrace"
dkms status -m vxtrace $opts | grep -q "$kver.*built" || fail "dkms status does not say built"
ok "dkms: vxtrace/$version built for $kver: $(basename "$ko")"
finish
