#!/bin/sh
# view.sh - the browser's virtual event list against a linear scan (oracle),
# with and without a filter (see view_oracle.c).
B=${VXT_BUILD:?VXT_BUILD unset}
top=${VXT_TOP:?VXT_TOP unset}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# a sanitizer build's library needs the sanitizers at link time too
san=
nm "$B/libvxtrace.a" 2>/dev/null | grep -q __asan_init && san="-fsanitize=address,undefined"
cc $san -std=c11 -D_GNU_SOURCE -O1 -I"$top/include" -I"$top/src/vxreplay" \
	"$top/tests/tui/view_oracle.c" "$top/src/vxreplay/browser/view.c" "$B/libvxtrace.a" \
	$(pkg-config --libs libzstd yaml-0.1 libtracefs libtraceevent) -lm -lpthread \
	-o "$T/view_oracle" || { echo "cannot build the oracle"; exit 77; }
# 120k events: several chunks, and the three scheduled error bursts
"$B/vxrecord" --source sim -c 120000 -o "$T/s.vxt" -q || exit 1
"$T/view_oracle" "$T/s.vxt"
