#!/bin/sh
# checkpatch.sh - the kernel's own style checker over kmod/
#
#   tests/kmod/checkpatch.sh [--fetch] [--if-possible]
#
# Runs scripts/checkpatch.pl (--strict, every file of kmod/ as a whole
# file) and fails on any error, warning or check it prints. The script is
# $CHECKPATCH, or the one of an unpacked linux-source in /usr/src, or (with
# --fetch, as root) taken from Debian's linux-source package, unpacked into
# $VXT_CHECKPATCH_CACHE (default /var/tmp/vxtrace-checkpatch) and kept there.
# With --if-possible a missing checkpatch.pl skips (exit 0).
#
# Two of checkpatch's types are left out, for a reason of the module's own:
# it is built out of tree for every kernel from Debian 12's 6.1 to the
# newest (tests/kmod/newer.sh), so it tests LINUX_VERSION_CODE
# (LINUX_VERSION_CODE) in the kernel's own idiom, `LINUX_VERSION_CODE >=
# KERNEL_VERSION(6, 8, 0)`, whose constant is on the left
# (CONSTANT_COMPARISON).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fetch=0
if_possible=0
for a in "$@"; do
	case $a in
	--fetch) fetch=1 ;;
	--if-possible) if_possible=1 ;;
	*) echo "usage: checkpatch.sh [--fetch] [--if-possible]" >&2; exit 2 ;;
	esac
done
cache=${VXT_CHECKPATCH_CACHE:-/var/tmp/vxtrace-checkpatch}
skip() {
	echo "checkpatch: SKIP ($1)"
	[ "$if_possible" = 1 ] && exit 0
	exit 1
}

cp=${CHECKPATCH:-}
if [ -z "$cp" ]; then
	for f in /usr/src/linux-source-*/scripts/checkpatch.pl "$cache"/scripts/checkpatch.pl; do
		[ -f "$f" ] && cp=$f
	done
fi
if [ -z "$cp" ] && [ "$fetch" = 1 ]; then
	[ "$(id -u)" = 0 ] || skip "fetching linux-source needs root"
	command -v apt-get > /dev/null || skip "no apt-get to fetch linux-source"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	pkg=$(apt-cache depends linux-source 2>/dev/null | awk '/Depends: linux-source-/ { print $2; exit }')
	[ -n "$pkg" ] || skip "apt knows no linux-source package"
	(cd "$tmp" && apt-get download -q "$pkg" > /dev/null 2>&1) || skip "apt-get download $pkg failed"
	dpkg-deb --fsys-tarfile "$tmp"/"$pkg"_*.deb | tar -x -C "$tmp" --wildcards './usr/src/*.tar.xz' ||
		skip "$pkg has no source tarball"
	mkdir -p "$cache"
	# checkpatch.pl reads its spelling and const_structs lists from beside it
	tar -xJf "$tmp"/usr/src/*.tar.xz -C "$cache" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' ||
		skip "no checkpatch.pl in $pkg"
	cp=$cache/scripts/checkpatch.pl
fi
[ -n "$cp" ] && [ -f "$cp" ] || skip "no checkpatch.pl (set CHECKPATCH, or run with --fetch as root)"
command -v perl > /dev/null || skip "no perl"

out=$(cd "$top" && perl "$cp" --no-tree --strict --terse --show-types \
	--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f kmod/*.c kmod/*.h 2>&1)
files=$(ls "$top"/kmod/*.c "$top"/kmod/*.h | wc -l)
bad=$(printf '%s\n' "$out" | grep -E '^kmod/[^:]+:[0-9]+: (ERROR|WARNING|CHECK):')
if [ -n "$bad" ]; then
	printf '%s\n' "$bad"
	echo "checkpatch: FAIL ($(printf '%s\n' "$bad" | wc -l) findings in kmod/, $cp)"
	exit 1
fi
echo "checkpatch: ok ($files files of kmod/ clean with --strict, $cp)"
