#!/bin/sh
# debian.sh - `make deb` builds the four Debian packages from contrib/debian:
# vxtrace (programs, man pages, completions, profiles, the service) with its
# library dependencies, libvxtrace0 (the shared library by its soname),
# libvxtrace-dev (headers, static library, vxtrace.pc) and vxtrace-dkms (the
# module's source, registered with dkms by its maintainer scripts). A tiny
# program builds against the unpacked -dev package and runs on a trace.
. "${VXT_TOP:?}/tests/lib.sh"
[ -n "${VXT_SAN:-}" ] && skip "builds its packages with its own compiler flags: run once, not again under the sanitizers"
top=$VXT_TOP b=$B tmp=$T
for t in dpkg-buildpackage dh git; do
	command -v $t >/dev/null || skip "$t not installed (apt-get install debhelper)"
done
dpkg -s dh-dkms >/dev/null 2>&1 || skip "dh-dkms not installed (apt-get install dh-dkms)"
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"

version=$(sed -n 's/^#define VXT_VERSION_STRING "\(.*\)"/\1/p' "$top/include/vxtrace/vxtrace.h")
DEB_BUILD_OPTIONS="nocheck parallel=2" make -s -C "$top" deb DEB_DIR="$tmp/deb" \
	> "$tmp/build.log" 2>&1 || { tail -n 30 "$tmp/build.log"; fail "make deb failed"; finish; }
arch=$(dpkg --print-architecture)
d=$tmp/deb
for p in vxtrace_${version}_$arch libvxtrace0_${version}_$arch libvxtrace-dev_${version}_$arch \
	 vxtrace-dkms_${version}_all; do
	[ -f "$d/$p.deb" ] || { fail "$p.deb was not built"; continue; }
	dpkg-deb -x "$d/$p.deb" "$tmp/root" || fail "$p.deb does not unpack"
done
dpkg-deb -f "$d/vxtrace_${version}_$arch.deb" Depends | grep -q 'libzstd1' ||
	fail "vxtrace does not depend on libzstd1"
dpkg-deb -f "$d/vxtrace-dkms_${version}_all.deb" Depends | grep -q 'dkms' ||
	fail "vxtrace-dkms does not depend on dkms"
dpkg-deb -e "$d/vxtrace-dkms_${version}_all.deb" "$tmp/ctl"
grep -q 'dkms' "$tmp/ctl/postinst" || fail "vxtrace-dkms's postinst does not run dkms"
grep -q 'addgroup --system --quiet vxtrace' "$tmp/ctl/postinst" ||
	fail "vxtrace-dkms's postinst does not create the group of the udev rule"
r=$tmp/root
multi=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for f in usr/bin/vxrecord usr/bin/vxreplay usr/bin/vxtop usr/share/man/man1/vxreplay.1.gz \
	 usr/share/man/man5/vxt.5.gz usr/share/man/man4/vxtrace.4.gz \
	 usr/share/bash-completion/completions/vxreplay lib/systemd/system/vxrecord@.service \
	 lib/udev/rules.d/60-vxtrace.rules usr/share/vxtrace/profiles/errors-in-context.yaml \
	 usr/lib/$multi/libvxtrace.so.0 usr/lib/$multi/libvxtrace.a \
	 usr/lib/$multi/pkgconfig/vxtrace.pc usr/include/vxtrace/vxtrace.h \
	 usr/src/vxtrace-$version/dkms.conf usr/src/vxtrace-$version/kmod/Kbuild; do
	[ -e "$r/$f" ] || fail "no /$f in the packages"
done
grep -q '^ExecStart=/usr/bin/vxrecord ' "$r/lib/systemd/system/vxrecord@.service" ||
	fail "the service does not run /usr/bin/vxrecord"
grep -q "^PACKAGE_VERSION=\"$version\"" "$r/usr/src/vxtrace-$version/dkms.conf" ||
	fail "dkms.conf does not carry version $version"
grep -qa '/usr/share/vxtrace/profiles' "$r/usr/bin/vxreplay" ||
	fail "the packaged vxreplay does not look in /usr/share/vxtrace/profiles"
[ "$("$r/usr/bin/vxreplay" --version)" = "vxreplay $version" ] || fail "packaged vxreplay --version"

"$b/vxrecord" -q -s sim -d 2s -o "$tmp/t.vxt" || { fail "vxrecord failed"; finish; }
cat > "$tmp/v.c" <<'CEOF'
#include <stdio.h>
#include <vxtrace/vxtrace.h>
int main(int argc, char **argv)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r = argc > 1 ? vxt_reader_open(argv[1], err) : NULL;

	if (!r)
		return 1;
	printf("%s %llu\n", vxt_version(), (unsigned long long)vxt_reader_nevents(r));
	vxt_reader_close(r);
	return 0;
}
CEOF
flags=$(PKG_CONFIG_PATH=$r/usr/lib/$multi/pkgconfig PKG_CONFIG_SYSROOT_DIR=$r \
	pkg-config --cflags --libs vxtrace) || fail "pkg-config on the -dev package failed"
cc -std=c11 -o "$tmp/v" "$tmp/v.c" $flags || fail "a program does not build against libvxtrace-dev"
out=$(LD_LIBRARY_PATH=$r/usr/lib/$multi "$tmp/v" "$tmp/t.vxt") || fail "the program failed"
n=$("$b/vxreplay" "$tmp/t.vxt" --report summary --format csv | tail -n 1 | cut -d, -f4)
[ "$out" = "$version $n" ] || fail "the program printed '$out', expected '$version $n'"
ok "debian: $(cd "$d" && ls *.deb | grep -v dbgsym | tr '\n' ' ')"
finish
