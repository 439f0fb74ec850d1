#!/bin/sh
# run.sh - build and run the libFuzzer targets (make fuzz FUZZ_SECONDS=N)
#
#   usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
#
# Each tests/fuzz/fuzz_NAME.c is built with clang -fsanitize=fuzzer,address,
# undefined against the library sources (src/lib/*/*.c compiled here, in
# build/fuzz/, never the normal build's objects). Its corpus starts from the
# seeds in tests/fuzz/seeds/NAME/, the regression inputs in
# tests/fuzz/regress/NAME/, files made by vxrecord --source sim (reader),
# vxreplay --export blktrace and ../shared/data (blktrace), the shipped
# and broken profiles (profile) and bpftrace's tools in ../shared (bt).
# The regression inputs are replayed first; then each target runs for
# SECONDS (default 60); 0 builds the targets and replays those inputs only.
# One line per target gives its total executions.
# FUZZ_JOBS=N compiles N library sources at a time (default: the CPUs).
# FUZZ_CLAIM=DIR lets several runs share the targets: each takes a target
# by making DIR/NAME, and skips one another run has taken.
# A crash leaves its input in build/fuzz/crashes/ and makes the script
# exit 1: turn it into a regression input under regress/NAME/.
set -u
secs=${1:-60}
[ $# -gt 0 ] && shift
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/fuzz
shared=${VXT_SHARED:-$top/../shared}
CLANG=${CLANG:-clang}

if ! command -v "$CLANG" >/dev/null 2>&1 ||
   ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n){return 0;}' |
	"$CLANG" -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		echo "fuzz: installing clang and libclang-rt-14-dev"
		DEBIAN_FRONTEND=noninteractive apt-get install -y clang libclang-rt-14-dev \
			>/dev/null 2>&1 || { echo "fuzz: cannot install clang" >&2; exit 1; }
	else
		echo "fuzz: needs clang with libFuzzer: apt-get install clang libclang-rt-14-dev" >&2
		exit 1
	fi
fi

mkdir -p "$out/obj" "$out/crashes"
pkgs="libzstd yaml-0.1 libtracefs libtraceevent sqlite3 libmicrohttpd libcurl"	# as the Makefile's PKGS
cflags="-std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
 -I$top/include -I$top/src/lib $(pkg-config --cflags $pkgs)"
libs="$(pkg-config --libs $pkgs) -lm -lpthread"

# The library, compiled once (rebuilt when a source is newer than its object),
# FUZZ_JOBS sources at a time (default: one per CPU).
objs="" stale=""
for src in "$top"/src/lib/*/*.c; do
	o=$out/obj/$(basename "$(dirname "$src")")_$(basename "$src" .c).o
	if [ ! -e "$o" ] || [ -n "$(find "$top/src/lib" "$top/include" -newer "$o" -name '*.[ch]' \
		2>/dev/null | head -n 1)" ]; then
		stale="$stale $src"
	fi
	objs="$objs $o"
done
if [ -n "$stale" ]; then
	printf '%s\n' $stale | CLANG=$CLANG FUZZ_CFLAGS=$cflags FUZZ_OBJ=$out/obj \
		xargs -P "${FUZZ_JOBS:-$(nproc)}" -n 1 sh -c \
		'exec $CLANG $FUZZ_CFLAGS -c "$1" \
			-o "$FUZZ_OBJ/$(basename "$(dirname "$1")")_$(basename "$1" .c).o"' sh ||
		exit 1
fi

# Files the project makes: small simulated captures, whole, torn and footerless.
make_reader_seeds() {
	dir=$1
	rec=${VXT_BUILD:-$top/build}/vxrecord
	if [ ! -x "$rec" ]; then
		make -C "$top" -s all >/dev/null 2>&1 || return 0
		rec=$top/build/vxrecord
	fi
	tmp=$out/seedtmp-reader.vxt
	for spec in "1 400 200" "2 1500 500" "7 120 40" "3 3000 1000"; do
		set -- $spec
		rm -f "$tmp"
		"$rec" -q --source sim --seed "$1" -c "$2" --rate "$3" -o "$tmp" || continue
		cp "$tmp" "$dir/sim-$1-$2"
		size=$(wc -c < "$tmp")
		head -c $((size - 24)) "$tmp" > "$dir/sim-$1-$2-nofooter"
		head -c $((size * 2 / 3)) "$tmp" > "$dir/sim-$1-$2-torn"
	done
	rm -f "$tmp"
}

# blktrace files the project writes (vxreplay --export blktrace), so the
# importer's corpus never depends on ../shared being there.
make_blktrace_seeds() {
	dir=$1
	bdir=${VXT_BUILD:-$top/build}
	if [ ! -x "$bdir/vxrecord" ] || [ ! -x "$bdir/vxreplay" ]; then
		make -C "$top" -s all >/dev/null 2>&1 || return 0
		bdir=$top/build
	fi
	tmp=$out/seedtmp-blktrace.vxt
	for spec in "1 300 100" "5 2000 500"; do
		set -- $spec
		rm -f "$tmp"
		"$bdir/vxrecord" -q --source sim --seed "$1" -c "$2" --rate "$3" -o "$tmp" || continue
		"$bdir/vxreplay" "$tmp" --export blktrace -f -o "$out/seedtmp.blk" || continue
		head -c 65536 "$out/seedtmp.blk" > "$dir/export-$1-$2"
	done
	rm -f "$tmp" "$out/seedtmp.blk"
}

targets=$*
if [ -z "$targets" ]; then
	for f in "$top"/tests/fuzz/fuzz_*.c; do
		targets="$targets $(basename "$f" .c | sed 's/^fuzz_//')"
	done
fi

status=0
summary=""
for t in $targets; do
	if [ -n "${FUZZ_CLAIM:-}" ]; then
		mkdir "$FUZZ_CLAIM/$t" 2>/dev/null || continue
	fi
	bin=$out/fuzz_$t
	corpus=$out/corpus/$t
	# linked again only when its source or the library is newer than it
	if [ ! -x "$bin" ] ||
	   [ -n "$(find "$top/tests/fuzz/fuzz_$t.c" $objs -newer "$bin" 2>/dev/null | head -n 1)" ]; then
		$CLANG $cflags -fsanitize=fuzzer "$top/tests/fuzz/fuzz_$t.c" $objs $libs -o "$bin" ||
			{ status=1; summary="$summary\n$t: build failed"; continue; }
	fi
	# every regression input must pass before fuzzing starts
	if [ -d "$top/tests/fuzz/regress/$t" ] && [ -n "$(ls "$top/tests/fuzz/regress/$t")" ]; then
		if ! "$bin" "$top/tests/fuzz/regress/$t"/* >"$out/$t-regress.log" 2>&1; then
			echo "fuzz: $t: a regression input fails; see $out/$t-regress.log"
			tail -n 30 "$out/$t-regress.log"
			status=1
			summary="$summary\n$t: regression input FAILS"
			continue
		fi
	fi
	if [ "$secs" = 0 ]; then
		summary="$summary\n$t: built, its regression inputs pass"
		continue
	fi
	mkdir -p "$corpus"
	for d in "$top/tests/fuzz/seeds/$t" "$top/tests/fuzz/regress/$t"; do
		[ -d "$d" ] && cp "$d"/* "$corpus"/ 2>/dev/null
	done
	case $t in
	reader) make_reader_seeds "$corpus" ;;
	blktrace)
		make_blktrace_seeds "$corpus"
		for f in "$shared"/data/blktrace/*/*.blktrace.*; do
			[ -f "$f" ] && head -c 65536 "$f" > "$corpus/shared-$(basename "$f")"
		done ;;
	profile)
		for f in "$top"/formats/profiles/*.yaml "$top"/tests/profiles-bad/*.yaml; do
			[ -f "$f" ] && cp "$f" "$corpus/"
		done ;;
	script)	# the shipped scripts start the corpus
		for f in "$top"/formats/profiles/*.d; do
			[ -f "$f" ] && cp "$f" "$corpus/"
		done ;;
	bt)	# and bpftrace's tools in ../shared
		for f in "$shared"/data/dscripts/*.bt; do
			[ -f "$f" ] && cp "$f" "$corpus/"
		done ;;
	esac
	log=$out/$t.log
	echo "fuzz: $t for ${secs}s ($(ls "$corpus" | wc -l) inputs in the corpus)"
	# -timeout: the reader's chunk-claims-max seed (every chunk claiming the
	# format's maximum sizes) takes 9 s of CPU under the fuzzer's
	# instrumentation, and three times that of the clock on a busy machine
	"$bin" -max_total_time="$secs" -print_final_stats=1 -rss_limit_mb=2048 -timeout=60 \
		-max_len=65536 -artifact_prefix="$out/crashes/$t-" "$corpus" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ $rc -ne 0 ]; then
		status=1
		summary="$summary\n$t: CRASH after ${execs:-?} executions (inputs in $out/crashes/)"
		grep -m1 -A25 'ERROR\|runtime error\|deadly signal' "$log"
	else
		summary="$summary\n$t: ${execs:-0} executions in ${secs}s"
	fi
done
printf "fuzz results:$summary\n"
exit $status
