#!/bin/sh
# vxt.sh - writer and reader speed and size on the simulator's mixed workload
# (10 M events by default), with zstd -3 on the same events as 48-byte
# blktrace records measured in the same run as the peer.
#   env: VXT_BENCH_EVENTS (default 10000000)
set -e
B=$VXT_BUILD
n=${VXT_BENCH_EVENTS:-10000000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cc -O2 -std=c11 -D_GNU_SOURCE -I"$VXT_TOP/include" -I"$VXT_TOP/src/lib" \
	"$VXT_TOP/tests/bench/bench_vxt.c" "$B/libvxtrace.a" \
	$(pkg-config --libs libzstd yaml-0.1 libtracefs libtraceevent) -lm -o "$T/bench_vxt"
"$T/bench_vxt" "$n" "$T"
# the whole program, as a user runs it
"$B/vxrecord" --source sim -c "$n" -o "$T/t.vxt" -q
# three runs each: the machine is shared, the middle one is the figure; the
# peer is zstd -d of the same file (every column decompressed, none decoded)
for run in 1 2 3; do
	/usr/bin/time -f "vxreplay --report summary: %e s wall, %U s user for $n events" \
		"$B/vxreplay" "$T/t.vxt" --report summary >/dev/null
done
for run in 1 2 3; do
	/usr/bin/time -f "peer zstd -d -c of the same file: %e s wall, %U s user" \
		zstd -q -d -c "$T/t.vxt" >/dev/null
done
