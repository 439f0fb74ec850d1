#!/bin/sh
# linkage.sh - vxrecord (the recorder, run on servers) needs no terminal
# library: only the two browsers, vxreplay and vxtop, link ncurses (through
# build/libvxtui.a, the shared widgets of src/tui/).
build=${VXT_BUILD:?VXT_BUILD unset}
command -v readelf >/dev/null 2>&1 || { echo "readelf not installed"; exit 77; }
bad=0
needs_curses() {
	readelf -d "$build/$1" | grep NEEDED | grep -Eq 'lib(n?cursesw?|tinfo)\.so'
}
for p in vxrecord vxreplay vxtop; do
	[ -x "$build/$p" ] || { echo "missing $build/$p"; exit 1; }
done
if needs_curses vxrecord; then
	echo "vxrecord links a curses library:"
	readelf -d "$build/vxrecord" | grep NEEDED
	bad=1
fi
for p in vxreplay vxtop; do
	needs_curses $p || { echo "$p does not link ncurses (is it a browser?)"; bad=1; }
done
[ -f "$build/libvxtui.a" ] || { echo "missing $build/libvxtui.a"; bad=1; }
[ $bad = 0 ] && echo "linkage: vxrecord without curses; vxreplay and vxtop with libvxtui.a"
exit $bad
