#!/bin/sh
# linkage.sh - vxrecord (the recorder, run on servers) needs no terminal
# library: only the two browsers, vxreplay and vxtop, link ncurses (through
# build/libvxtui.a, the shared widgets of src/tui/).
. "${VXT_TOP:?}/tests/lib.sh"
build=$B
command -v readelf >/dev/null 2>&1 || skip "readelf not installed"
needs_curses() {
	readelf -d "$build/$1" | grep NEEDED | grep -Eq 'lib(n?cursesw?|tinfo)\.so'
}
for p in vxrecord vxreplay vxtop; do
	[ -x "$build/$p" ] || { fail "missing $build/$p"; finish; }
done
if needs_curses vxrecord; then
	fail "vxrecord links a curses library:"
	readelf -d "$build/vxrecord" | grep NEEDED
fi
for p in vxreplay vxtop; do
	needs_curses $p || fail "$p does not link ncurses (is it a browser?)"
done
[ -f "$build/libvxtui.a" ] || fail "missing $build/libvxtui.a"
[ $fails = 0 ] && ok "linkage: vxrecord without curses; vxreplay and vxtop with libvxtui.a"
finish
