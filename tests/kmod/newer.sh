#!/bin/sh
# newer.sh - the kernel module on a newer kernel than Debian 12's own
#
#   tests/kmod/newer.sh [--if-possible] [--build-only] [--suite SUITE] [BUILD_DIR]
#
# Fetches the newest kernel of SUITE (default bookworm-backports): its
# linux-image, headers and linux-kbuild, with a private apt state, so the
# machine's apt configuration and installed packages are left alone, and
# unpacks the packages into a cache directory instead of installing them.
# Builds vxtrace.ko against those headers with W=1 (a warning is a failure),
# then boots that kernel under qemu with tests/kmod/run.sh and the same guest
# tests. A kernel built by a compiler the host lacks (trixie-backports: gcc-14)
# has the module built in a minimal chroot of its release (debootstrap, root
# only), kept in the cache. With --if-possible an unreachable archive or a
# missing tool skips (exit 0, a "kmod newer kernel: SKIP" line); without it
# they fail.
#
# env: VXT_KMOD_NEWER=0          skip at once
#      VXT_KMOD_CACHE            where the packages go (default
#                                /var/tmp/vxtrace-kmod-newer; ~350 MB a kernel,
#                                ~600 MB more with a chroot)
#      VXT_KMOD_MIRROR           default http://deb.debian.org/debian
#      VXT_KMOD_SUITE            default bookworm-backports (--suite)
#      KM_KVER                   a kernel of the suite other than the newest
set -u

if_possible=0
build_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--if-possible) if_possible=1 ;;
	--build-only) build_only=1 ;;
	--suite) VXT_KMOD_SUITE=${2:-}; shift ;;
	*) break ;;
	esac
	shift
done
BUILD=${1:-build}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
MIRROR=${VXT_KMOD_MIRROR:-http://deb.debian.org/debian}
SUITE=${VXT_KMOD_SUITE:-bookworm-backports}
CACHE=${VXT_KMOD_CACHE:-/var/tmp/vxtrace-kmod-newer}/$SUITE
t0=$(date +%s)

skip() {
	echo "kmod newer kernel: SKIP ($*)"
	[ $if_possible = 1 ] && exit 0
	exit 1
}

fail() {
	echo "kmod newer kernel: FAILED ($*)"
	exit 1
}

[ "${VXT_KMOD_NEWER:-1}" = 0 ] && { echo "kmod newer kernel: SKIP (VXT_KMOD_NEWER=0)"; exit 0; }
for t in apt-get apt-cache dpkg-deb make gcc; do
	command -v $t >/dev/null 2>&1 || skip "$t not installed"
done
mkdir -p "$CACHE/lists/partial" "$CACHE/debs/partial" 2>/dev/null &&
	[ -w "$CACHE" ] && [ -w "$CACHE/lists" ] && [ -w "$CACHE/debs" ] ||
	skip "cannot write $CACHE (VXT_KMOD_CACHE)"
# a kernel's packages, unpacked, and a chroot take about 1.5 GB
free_mb=$(df -Pm "$CACHE" | awk 'NR == 2 { print $4 }')
[ "${free_mb:-0}" -ge 2048 ] || skip "only ${free_mb:-?} MB free under $CACHE, 2048 needed"
: >"$CACHE/status"
echo "deb $MIRROR $SUITE main" >"$CACHE/sources.list"

# apt-get and apt-cache with the private state only
apt_priv() {
	cmd=$1
	shift
	$cmd -q -o Dir::Etc::SourceList="$CACHE/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$CACHE/lists" \
		-o Dir::State::status="$CACHE/status" -o Dir::Cache::pkgcache= \
		-o Dir::Cache::srcpkgcache= -o Dir::Cache::archives="$CACHE/debs" \
		-o Acquire::http::Timeout=20 -o Acquire::Retries=1 \
		-o APT::Sandbox::User=root "$@"
}

# The package's "Depends:" names that match the pattern @2.
depends() {
	apt_priv apt-cache show "$1" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1 |
		tr ',|' '\n\n' | sed 's/^ *\([^ ]*\).*/\1/' | grep -x "$2" | head -n 1
}

# A failed fetch leaves the lists of an earlier run, if any, in use.
apt_priv apt-get update >"$CACHE/update.log" 2>&1
if ! ls "$CACHE/lists/"*_Packages* >/dev/null 2>&1; then
	skip "$SUITE unreachable at $MIRROR: $(grep -m1 -E '^(E|W):' "$CACHE/update.log")"
fi
if [ -n "${KM_KVER:-}" ]; then
	kver=$KM_KVER
else
	kver=$(depends linux-headers-amd64 'linux-headers-.*-amd64')
	kver=${kver#linux-headers-}
fi
[ -n "$kver" ] || skip "no linux-headers-amd64 in $SUITE"
common=$(depends "linux-headers-$kver" 'linux-headers-.*-common')
kbuild=$(depends "linux-headers-$kver" 'linux-kbuild-.*')
[ -n "$common" ] && [ -n "$kbuild" ] || fail "linux-headers-$kver: no common headers or kbuild in its Depends"
# The image: linux-image-V-unsigned, or (Debian 13's newer kernels)
# linux-binary-V with linux-modules-V.
if apt_priv apt-cache show "linux-image-$kver-unsigned" >/dev/null 2>&1; then
	image=linux-image-$kver-unsigned
elif apt_priv apt-cache show "linux-binary-$kver" >/dev/null 2>&1; then
	image="linux-binary-$kver linux-modules-$kver"
else
	image=linux-image-$kver
fi
# The compiler the kernel was built with: the host's, or a chroot's.
gcc=$(depends "linux-headers-$kver" 'gcc-[0-9][0-9]*.*' | sed 's/^\(gcc-[0-9]*\).*/\1/')
[ -n "$gcc" ] || gcc=gcc
chroot_dir=
if ! command -v "$gcc" >/dev/null 2>&1; then
	release=${SUITE%%-*}
	chroot_dir=$CACHE/chroot-$release
	[ "$(id -u)" = 0 ] || skip "$kver needs $gcc: a $release chroot, which needs root"
	command -v debootstrap >/dev/null 2>&1 ||
		skip "$kver needs $gcc: a $release chroot, and debootstrap is not installed"
fi

# Download and unpack what the cache lacks.
fetch() {
	for p in "$@"; do
		if ! ls "$CACHE/debs/${p}_"*.deb >/dev/null 2>&1; then
			(cd "$CACHE/debs" && apt_priv apt-get download "$p") >"$CACHE/download.log" 2>&1 ||
				skip "cannot download $p: $(grep -m1 -E '^(E|W):' "$CACHE/download.log")"
		fi
		if [ ! -f "$root/.$p" ]; then
			mkdir -p "$root"
			dpkg-deb -x "$CACHE/debs/${p}_"*.deb "$root" || fail "cannot unpack $p"
			: >"$root/.$p"
		fi
	done
}

# Debian builds the BTF of modules with pahole (dwarves); without it the
# module is built without BTF, which loading does not need.
flags=W=1
work=$(mktemp -d /tmp/vxt-knewer.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
if [ -z "$chroot_dir" ]; then
	root=$CACHE/root-$kver
	fetch "linux-headers-$kver" "$common" "$kbuild"
	# The headers' Makefile includes the common one by its installed path.
	kdir=$root/usr/src/linux-headers-$kver
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$kdir/Makefile"
	if ! command -v pahole >/dev/null 2>&1; then
		flags="$flags CONFIG_DEBUG_INFO_BTF_MODULES="
		echo "kmod newer kernel: pahole not installed (dwarves): vxtrace.ko without BTF"
	fi
	build() {
		cp -r "$TOP/kmod" "$TOP/include" "$work/"
		make -C "$kdir" M="$work/kmod" $flags modules >"$work/kbuild.log" 2>&1
	}
	ko=$work/kmod/vxtrace.ko
else
	root=$chroot_dir
	if [ ! -f "$root/.$gcc" ]; then
		echo "kmod newer kernel: $kver needs $gcc: making a $release chroot in $root"
		if [ ! -f "$root/.debootstrap" ]; then
			rm -rf "$root"
			debootstrap --variant=minbase "$release" "$root" "$MIRROR" \
				>"$CACHE/debootstrap.log" 2>&1 ||
				skip "debootstrap $release failed: $(tail -n 1 "$CACHE/debootstrap.log")"
			: >"$root/.debootstrap"
		fi
		cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
		echo "deb $MIRROR $SUITE main" >"$root/etc/apt/sources.list.d/vxtrace-$SUITE.list"
		chroot "$root" sh -c "export DEBIAN_FRONTEND=noninteractive
			apt-get -q update && apt-get install -y -q --no-install-recommends \
			-t $SUITE linux-headers-$kver binutils make dwarves" \
			>"$CACHE/chroot-apt.log" 2>&1 ||
			skip "cannot install $kver's headers in the chroot: $(grep -m1 '^E:' "$CACHE/chroot-apt.log")"
		: >"$root/.$gcc"
	fi
	kdir=/usr/src/linux-headers-$kver
	build() {
		rm -rf "$root/tmp/vxt-build"
		mkdir -p "$root/tmp/vxt-build"
		cp -r "$TOP/kmod" "$TOP/include" "$root/tmp/vxt-build/"
		# objtool reads /proc
		mount -t proc proc "$root/proc" || return 1
		trap 'umount "$root/proc"; rm -rf "$work"' EXIT INT TERM
		chroot "$root" make -C "$kdir" M=/tmp/vxt-build/kmod $flags modules \
			>"$work/kbuild.log" 2>&1
		rc=$?
		umount "$root/proc"
		trap 'rm -rf "$work"' EXIT INT TERM
		return $rc
	}
	ko=$root/tmp/vxt-build/kmod/vxtrace.ko
fi
[ $build_only = 1 ] || fetch $image
echo "kmod newer kernel: $kver from $SUITE, packages ready in $(($(date +%s) - t0)) s"

build || { cat "$work/kbuild.log"; fail "vxtrace.ko does not build against $kver"; }
if grep -q "warning:" "$work/kbuild.log"; then
	cat "$work/kbuild.log"
	fail "vxtrace.ko builds against $kver with warnings"
fi
echo "kmod newer kernel: vxtrace.ko builds against $kver with W=1, no warnings${chroot_dir:+ ($gcc in the chroot)}"
[ $build_only = 1 ] && exit 0

maybe=
[ $if_possible = 1 ] && maybe=--if-possible
KM_ROOT=$root KM_KVER=$kver KM_KMODULE=$ko sh "$TOP/tests/kmod/run.sh" $maybe "$BUILD"
rc=$?
echo "kmod newer kernel: $kver, $(($(date +%s) - t0)) s in all"
exit $rc
