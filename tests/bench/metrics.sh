#!/bin/sh
# metrics.sh - the /metrics endpoint at 1000 objects: a scrape's server time
# (render, and the HTTP exchange on loopback) and the cost of a scrape a second
# to a collector feeding events as fast as it can (both in one run), against
# the goals; exit 1 if a scrape's answer is not a 200 with every object's series.
#   usage: tests/bench/metrics.sh [BUILD_DIR]   (or VXT_BUILD in the environment)
# Environment: VXT_BENCH_OBJECTS (1000), VXT_BENCH_SECONDS (5).
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
cc=${CC:-cc}
out=$build/metrics-bench
$cc -std=c11 -D_GNU_SOURCE -O2 -g -I"$top/include" -o "$out" \
	"$top/tests/bench/metrics_bench.c" "$build/libvxtrace.a" \
	$(pkg-config --libs libzstd yaml-0.1 libtracefs libtraceevent libmicrohttpd libcurl \
	  2>/dev/null) -lm -lpthread
"$out" "${VXT_BENCH_OBJECTS:-1000}" "${VXT_BENCH_SECONDS:-5}"
