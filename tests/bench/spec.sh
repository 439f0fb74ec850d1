#!/bin/sh
# spec.sh - filter and speculation engine speed (events per second, one core)
#   usage: tests/bench/spec.sh [BUILD_DIR]   (or VXT_BUILD in the environment)
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
cc=${CC:-cc}
out=$build/spec-bench
mkdir -p "$build"
$cc -std=c11 -D_GNU_SOURCE -O2 -g -I"$top/include" -o "$out" \
	"$top/tests/bench/spec_bench.c" "$build/libvxtrace.a" \
	$(pkg-config --libs libzstd yaml-0.1 libtracefs libtraceevent 2>/dev/null) -lm -lpthread
"$out" all "${VXT_BENCH_EVENTS:-4000000}"
