# lib.sh - shared by tests/kmod/run.sh and tests/bench/kmod.sh (sourced, POSIX sh)
#
# Finds the Debian kernel, builds vxtrace.ko against its headers, packs a
# busybox initramfs with the module, the kernel's own null_blk, configfs and
# dm-mod, the test programs and chosen binaries (with their libraries), boots
# it under qemu (TCG) and leaves the serial console log in $KM_LOG.
# Every function returns non-zero with a reason in $KM_WHY.

KM_TOP=${KM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
KM_WHY=

km_why() { KM_WHY=$*; return 1; }

# The headers of kernel @2 under the root @1: lib/modules/V/build, or
# usr/src/linux-headers-V where an unpacked package's absolute link fails.
km_kdir() {
	for d in "$1/lib/modules/$2/build" "$1/usr/src/linux-headers-$2"; do
		[ -f "$d/Makefile" ] && { echo "$d"; return 0; }
	done
	return 1
}

# Pick the newest kernel that has an image, modules and headers, or the one
# named by $KM_KVER. Its boot/, lib/modules/ and usr/src/ are under $KM_ROOT
# (default /): a directory where Debian's kernel packages were unpacked works.
km_find_kernel() {
	command -v qemu-system-x86_64 >/dev/null 2>&1 ||
		{ km_why "qemu-system-x86_64 not installed"; return 1; }
	KM_ROOT=${KM_ROOT:-}
	want=${KM_KVER:-}
	KM_KVER=
	# /boot/vmlinuz-V, or /lib/modules/V/vmlinuz (Debian 13's newer kernels)
	for img in "$KM_ROOT"/boot/vmlinuz-* "$KM_ROOT"/lib/modules/*/vmlinuz; do
		[ -f "$img" ] || continue
		case $img in
		*/vmlinuz) v=${img%/vmlinuz} v=${v##*/} ;;
		*) v=${img##*/vmlinuz-} ;;
		esac
		[ -z "$want" ] || [ "$v" = "$want" ] || continue
		[ -d "$KM_ROOT/lib/modules/$v/kernel" ] || continue
		kdir=$(km_kdir "$KM_ROOT" "$v") || continue
		KM_KVER=$v
		KM_KDIR=$kdir
		KM_KIMG=$img
	done
	if [ -z "$KM_KVER" ]; then
		if [ -n "$want" ]; then
			km_why "no kernel $want (image, modules and headers) under ${KM_ROOT:-/}"
		elif ! ls "$KM_ROOT"/boot/vmlinuz-* >/dev/null 2>&1; then
			km_why "no kernel image in ${KM_ROOT:-}/boot (linux-image-amd64)"
		else
			km_why "no kernel headers for the kernels in ${KM_ROOT:-}/boot (linux-headers-amd64)"
		fi
		return 1
	fi
	[ -r "$KM_KIMG" ] || { km_why "$KM_KIMG not readable"; return 1; }
	for t in cpio gcc; do
		command -v $t >/dev/null 2>&1 || { km_why "$t not installed"; return 1; }
	done
	KM_BUSYBOX=
	for b in /bin/busybox /usr/bin/busybox; do
		if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then
			KM_BUSYBOX=$b
			break
		fi
	done
	[ -n "$KM_BUSYBOX" ] || { km_why "no static busybox (busybox-static)"; return 1; }
	return 0
}

# Which of the kernel's debugging checks the guest kernel was built with
# (its config beside the image or in its headers), as one line: the module
# is judged by them only where they are on.
km_kdebug() {
	cfg=
	for c in "$KM_ROOT/boot/config-$KM_KVER" "$KM_KDIR/.config"; do
		[ -f "$c" ] && { cfg=$c; break; }
	done
	[ -n "$cfg" ] || { echo "no config for $KM_KVER found"; return 0; }
	out=
	for o in PROVE_LOCKING:lockdep KASAN:KASAN KFENCE:KFENCE UBSAN:UBSAN \
		DEBUG_ATOMIC_SLEEP:might_sleep DEBUG_LIST:list_debug \
		DEBUG_KMEMLEAK:kmemleak; do
		if grep -q "^CONFIG_${o%%:*}=y" "$cfg"; then
			out="$out ${o#*:} on,"
		else
			out="$out ${o#*:} off,"
		fi
	done
	echo "${out# }" | sed 's/,$//'
}

# Build kmod/vxtrace.ko and the static test programs into $KM_WORK.
# $KM_KMODULE: a vxtrace.ko built elsewhere (for a kernel whose compiler
# the host lacks), used as it is.
km_build() {
	KM_WORK=${KM_WORK:-$(mktemp -d /tmp/vxt-kmod.XXXXXX)}
	rm -rf "$KM_WORK/kmod"
	cp -r "$KM_TOP/kmod" "$KM_WORK/kmod"
	mkdir -p "$KM_WORK/include"
	cp -r "$KM_TOP/include/vxtrace" "$KM_WORK/include/"
	if [ -n "${KM_KMODULE:-}" ]; then
		cp "$KM_KMODULE" "$KM_WORK/kmod/vxtrace.ko" ||
			{ km_why "cannot read $KM_KMODULE"; return 1; }
	elif ! make -s -C "$KM_KDIR" M="$KM_WORK/kmod" ${KM_KBUILD_FLAGS-W=1} modules \
		>"$KM_WORK/kbuild.log" 2>&1; then
		cat "$KM_WORK/kbuild.log"
		km_why "module build failed"
		return 1
	elif grep -q "warning:" "$KM_WORK/kbuild.log"; then
		cat "$KM_WORK/kbuild.log"
		km_why "module build has warnings"
		return 1
	fi
	gcc -static -O2 -Wall -Wextra -std=c11 -D_GNU_SOURCE -I"$KM_TOP/include" \
		-o "$KM_WORK/vxtest" "$KM_TOP"/tests/kmod/vxtest*.c -lpthread \
		>"$KM_WORK/cc.log" 2>&1 ||
		{ cat "$KM_WORK/cc.log"; km_why "vxtest build failed (static libc?)"; return 1; }
	return 0
}

# Copy a dynamic binary and its libraries into the root @1 under /usr/bin.
km_add_bin() {
	root=$1 bin=$2
	[ -x "$bin" ] || return 1
	cp -L "$bin" "$root/usr/bin/"
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	return 0
}

# Find one of the kernel's modules by file name (.ko, .ko.xz, .ko.zst).
km_kmod() {
	f=$(find "$KM_ROOT/lib/modules/$KM_KVER/kernel" -name "$1.ko*" | head -n 1)
	[ -n "$f" ] || return 1
	case $f in
	*.xz) xz -dc "$f" ;;
	*.zst) zstd -dc "$f" ;;
	*.gz) gzip -dc "$f" ;;
	*) cat "$f" ;;
	esac
}

# km_initramfs GUEST_SCRIPT [BINARY...]: pack $KM_WORK/initramfs.cpio.
km_initramfs() {
	guest=$1
	shift
	root=$KM_WORK/root
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/usr/bin" "$root/modules" "$root/proc" "$root/sys" \
		"$root/dev" "$root/tmp" "$root/etc"
	cp "$KM_BUSYBOX" "$root/bin/busybox"
	for m in configfs null_blk dm-mod; do
		km_kmod $m >"$root/modules/$m.ko" || { km_why "kernel module $m not found"; return 1; }
	done
	# md RAID-1 for the stack tests, when the kernel has it (they skip without)
	for m in md-mod raid1; do
		km_kmod $m >"$root/modules/$m.ko" || rm -f "$root/modules/$m.ko"
	done
	cp "$KM_WORK/kmod/vxtrace.ko" "$root/modules/"
	cp "$KM_WORK/vxtest" "$root/usr/bin/"
	for b in "$@"; do
		km_add_bin "$root" "$b" || { km_why "cannot add $b"; return 1; }
	done
	cp "$guest" "$root/guest.sh"
	echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
	echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>"$root/etc/passwd"
	cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
echo "VXT-BOOTED $(uname -r) $(nproc) cpus"
cd /tmp
sh /guest.sh 2>&1
echo "VXT-GUEST-DONE"
sync
poweroff -f
INIT
	chmod +x "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$KM_WORK/initramfs.cpio" ||
		{ km_why "cpio failed"; return 1; }
	return 0
}

# km_boot TIMEOUT_SECONDS [EXTRA_CMDLINE]: boot, serial log in $KM_LOG.
# $KM_QEMU_EXTRA: more qemu options (the benchmark's -icount).
# A guest whose console stays empty for $KM_SILENT_LIMIT seconds (default
# 240; a loaded host's TCG reaches init in well under 60) hung before init,
# before anything of ours ran: it is stopped and booted once more, saying so.
km_boot() {
	KM_LOG=$KM_WORK/console.log
	km_silent_limit=${KM_SILENT_LIMIT:-240}
	km_boot_once "$@" && return 0
	[ "$KM_SILENT" = 1 ] || return 1
	echo "kmod: the guest printed nothing in $km_silent_limit s (hung before init); booting it again"
	km_boot_once "$@"
}

km_boot_once() {
	KM_SILENT=0
	: >"$KM_LOG"
	timeout "$1" qemu-system-x86_64 -accel tcg -smp 2 -m 2048 ${KM_QEMU_EXTRA:-} \
		-kernel "$KM_KIMG" -initrd "$KM_WORK/initramfs.cpio" \
		-append "console=ttyS0 quiet panic=-1 ${2:-}" \
		-display none -monitor none -serial "file:$KM_LOG" -no-reboot \
		-nodefaults >"$KM_WORK/qemu.log" 2>&1 &
	qpid=$!
	waited=0
	while kill -0 $qpid 2>/dev/null; do
		if [ $waited -ge "$km_silent_limit" ] && [ ! -s "$KM_LOG" ]; then
			KM_SILENT=1
			kill $qpid 2>/dev/null
			break
		fi
		sleep 1
		waited=$((waited + 1))
	done
	wait $qpid
	rc=$?
	[ $KM_SILENT = 1 ] && { km_why "the guest printed nothing in $km_silent_limit s"; return 1; }
	[ $rc -eq 124 ] && { km_why "guest timed out after $1 s"; return 1; }
	[ $rc -eq 0 ] || { cat "$KM_WORK/qemu.log"; km_why "qemu failed ($rc)"; return 1; }
	return 0
}
