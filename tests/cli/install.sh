#!/bin/sh
# install.sh - `make install` into a temporary DESTDIR gives working programs,
# a shared library with its soname, headers and a vxtrace.pc that a tiny
# program builds and runs against; `make uninstall` removes every file; an
# installed vxreplay and vxrecord find the shipped profiles in share/.
. "${VXT_TOP:?}/tests/lib.sh"
[ -n "${VXT_SAN:-}" ] && skip "builds and installs with its own compiler flags: run once, not again under the sanitizers"
top=$VXT_TOP tmp=$T
dest=$tmp/root
prefix=/opt/vxtrace

command -v pkg-config >/dev/null || skip "pkg-config not installed"
make -s -C "$top" install DESTDIR="$dest" PREFIX=$prefix >"$tmp/make.log" 2>&1 ||
	{ tail -n 20 "$tmp/make.log"; fail "make install failed"; finish; }

p=$dest$prefix
for f in bin/vxrecord bin/vxreplay bin/vxtop lib/libvxtrace.a lib/libvxtrace.so \
	 lib/libvxtrace.so.0 lib/vxtrace_sqlite.so lib/pkgconfig/vxtrace.pc include/vxtrace/vxtrace.h \
	 include/vxtrace/vxt.h include/vxtrace/voltrace.h; do
	[ -e "$p/$f" ] || fail "missing $prefix/$f"
done
for m in "$top"/contrib/man/*.[1-8]; do
	[ -e "$m" ] || continue
	s=${m##*.}
	[ -f "$p/share/man/man$s/$(basename "$m")" ] || fail "man page $(basename "$m") not installed"
done
for c in vxrecord vxreplay vxtop; do
	[ -e "$top/contrib/bash-completion/$c" ] || continue
	[ -f "$p/share/bash-completion/completions/$c" ] || fail "completion $c not installed"
done
for y in "$top"/formats/profiles/*.yaml "$top"/formats/profiles/*.d; do
	[ -e "$y" ] || continue
	[ -f "$p/share/vxtrace/profiles/$(basename "$y")" ] || fail "profile $(basename "$y") not installed"
done
grep -qa "$prefix/share/vxtrace/profiles" "$p/bin/vxreplay" ||
	fail "vxreplay does not look for profiles in $prefix/share/vxtrace/profiles"
soname=$(readelf -d "$p/lib/libvxtrace.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libvxtrace.so.0 ] || fail "soname is '$soname', expected libvxtrace.so.0"
grep -q "^prefix=$prefix\$" "$p/lib/pkgconfig/vxtrace.pc" || fail "vxtrace.pc does not say prefix=$prefix"

# A tiny consumer: count events and errors of a trace through the public API.
cat > "$tmp/count.c" <<'CEOF'
#include <stdio.h>
#include <vxtrace/vxtrace.h>

int main(int argc, char **argv)
{
	char err[VXT_ERRBUF_SIZE];
	const struct vxt_event *ev;
	unsigned long long n = 0, errors = 0;
	struct vxt_reader *r;
	int rc;

	if (argc != 2)
		return 2;
	r = vxt_reader_open(argv[1], err);
	if (!r) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	while ((rc = vxt_reader_next(r, &ev)) == 1) {
		n++;
		errors += vxt_event_is_error(ev);
	}
	printf("%s %llu %llu\n", vxt_version(), n, errors);
	vxt_reader_close(r);
	return rc < 0;
}
CEOF
export PKG_CONFIG_PATH=$p/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest
flags=$(pkg-config --cflags --libs vxtrace) || { fail "pkg-config --cflags --libs vxtrace failed"; finish; }
echo "pkg-config: $flags"
case $flags in *"-I$p/include"*) ;; *) fail "cflags do not point into DESTDIR: $flags" ;; esac
cc -std=c11 -Wall -Werror -o "$tmp/count" "$tmp/count.c" $flags || fail "tiny program does not build"
readelf -d "$tmp/count" | grep -q 'NEEDED.*libvxtrace.so.0' || fail "tiny program not linked to libvxtrace.so.0"

# Static: libvxtrace.a with the libraries vxtrace.pc lists for --static.
static=$(pkg-config --static --libs-only-l vxtrace | sed 's/-lvxtrace//')
cc -std=c11 -Wall -Werror -o "$tmp/count-static" "$tmp/count.c" \
	$(pkg-config --cflags vxtrace) "$p/lib/libvxtrace.a" $static ||
	fail "tiny program does not link statically with: $static"
readelf -d "$tmp/count-static" | grep -q 'NEEDED.*libvxtrace' && fail "static build needs libvxtrace.so"
LD_LIBRARY_PATH=$p/lib "$p/bin/vxrecord" -q -s sim -d 5s --rate 4000 -o "$tmp/t.vxt" ||
	{ fail "installed vxrecord failed"; finish; }
out=$(LD_LIBRARY_PATH=$p/lib "$tmp/count" "$tmp/t.vxt") || fail "tiny program failed: $out"
LD_LIBRARY_PATH=$p/lib ldd "$tmp/count" | grep -q "libvxtrace.so.0 => $p/lib/" ||
	fail "tiny program does not load the installed library"
sum=$("$p/bin/vxreplay" "$tmp/t.vxt" --report summary --format json) || fail "vxreplay failed"
events=$(echo "$sum" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
errors=$(echo "$sum" | python3 -c 'import json,sys; print(json.load(sys.stdin)["errors"])')
version=$("$p/bin/vxreplay" --version | awk '{print $2}')
echo "tiny program: $out; vxreplay: $version $events $errors"
[ "$out" = "$version $events $errors" ] || fail "tiny program disagrees with vxreplay"
[ "$("$tmp/count-static" "$tmp/t.vxt")" = "$out" ] || fail "the static build disagrees"
# The installed man pages are found through the installed tree.
if command -v man >/dev/null && [ -d "$p/share/man/man1" ]; then
	MANPATH=$p/share/man man -w vxreplay | grep -q "^$p/share/man/man1/vxreplay.1" ||
		fail "man does not find the installed vxreplay(1)"
fi
[ "$errors" -gt 0 ] || fail "the simulated trace has no errors"

make -s -C "$top" uninstall DESTDIR="$dest" PREFIX=$prefix >"$tmp/make.log" 2>&1 ||
	{ tail -n 20 "$tmp/make.log"; fail "make uninstall failed"; }

# Installed for real (no DESTDIR): the programs find the shipped profiles by
# name in their own share/vxtrace/profiles, with no source tree around.
direct=$tmp/direct
make -s -C "$top" install PREFIX="$direct" >"$tmp/make.log" 2>&1 ||
	{ tail -n 20 "$tmp/make.log"; fail "make install PREFIX=$direct failed"; }
mkdir "$tmp/xdg"
for prog in vxreplay vxrecord; do
	case $prog in
	vxreplay) set -- "$tmp/t.vxt" --profile errors-in-context --report summary ;;
	vxrecord) set -- -s sim -c 2000 -o "$tmp/p.vxt" --profile errors-in-context ;;
	esac
	env -u VXT_PROFILE_DIR XDG_CONFIG_HOME="$tmp/xdg" LD_LIBRARY_PATH="$direct/lib" \
		"$direct/bin/$prog" "$@" >"$tmp/prof.out" 2>&1 ||
		{ cat "$tmp/prof.out"; fail "installed $prog does not find errors-in-context"; }
	grep -q 'errors-in-context' "$tmp/prof.out" ||
		{ cat "$tmp/prof.out"; fail "installed $prog did not apply errors-in-context"; }
done
make -s -C "$top" uninstall PREFIX="$direct" >"$tmp/make.log" 2>&1 ||
	{ tail -n 20 "$tmp/make.log"; fail "make uninstall PREFIX=$direct failed"; }
left=$(find "$dest" ! -type d)
[ -z "$left" ] || fail "uninstall left files behind: $left"
[ $fails = 0 ] && ok "install: installs, builds against, uninstalls"
finish
