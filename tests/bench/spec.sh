#!/bin/sh
# spec.sh - filter and speculation engine speed, one line per measure
#   usage: tests/bench/spec.sh [BUILD_DIR]   (or VXT_BUILD in the environment)
#
# First the engines alone over an in-memory stream (spec_bench.c, CPU time of
# the thread). Then whole vxreplay runs over one simulated trace of
# VXT_BENCH_EVENTS events (default 10 M, ~1 000 I/Os in flight, so a
# per-request speculation has ~1 000 live keys):
#   filter     --filter error --report summary      (the plain filter pass)
#   spec       a per-request speculation script      (req->spec per I/O)
#   summary    --report summary
#   quantize   @[object, op] = quantize(latency)
#   context    --profile errors-in-context --report summary (YAML context:,
#              compiled to the same engine)
# each the best CPU time (user + sys) of VXT_BENCH_ROUNDS rounds that run the
# four in turn (the best wall time printed beside), and, where valgrind is
# installed, the instructions of each (callgrind) over the first
# VXT_BENCH_CG_EVENTS events (default 2 M): on a shared machine the
# instruction ratio is the figure that does not move.
# Then a run with ~1 M I/Os in flight (1 M live keys) shows the peak RSS
# (/usr/bin/time -v) of the speculation and of a 1 M-key aggregation over
# the filter pass's, each beside its bound: nspec x specsize plus the req->
# state's dynvarsize, and aggsize.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-${VXT_BUILD:-$top/build}}" && pwd)
cc=${CC:-cc}
out=$build/spec-bench
n=${VXT_BENCH_EVENTS:-10000000}
rounds=${VXT_BENCH_ROUNDS:-3}
cgn=${VXT_BENCH_CG_EVENTS:-2000000}
$cc -std=c11 -D_GNU_SOURCE -O2 -g -I"$top/include" -o "$out" \
	"$top/tests/bench/spec_bench.c" "$build/libvxtrace.a" \
	$(pkg-config --libs libzstd yaml-0.1 libtracefs libtraceevent 2>/dev/null) -lm -lpthread
"$out" all "${VXT_BENCH_ENGINE_EVENTS:-4000000}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp"
objs='sda:rand:70:4k:2ms,sdb:rand:50:8k-64k:2ms,nvme0n1:rand:80:4k:1ms'
errs='sda@0.5s+20:EIO,sdb@1s+20'
"$build/vxrecord" --source sim -c "$n" --seed 3 --rate 1000000 --sim-objects "$objs" \
	--sim-errors "$errs" -o t.vxt -q
cat >spec.d <<'EOF'
#pragma D option quiet
#pragma D option nspec=16384
#pragma D option specsize=4k
io:::start { req->spec = speculation(); }
io:::start, io:::done /req->spec/ { speculate(req->spec); }
io:::done /req->spec && error/ { commit(req->spec); }
io:::done /req->spec && !error/ { discard(req->spec); }
EOF
echo 'io:::done { @[object, op] = quantize(latency); }' >quant.d

# the arguments of each measure (after the file)
args() {
	case $1 in
	filter) echo "--filter error --report summary" ;;
	spec) echo "--script spec.d" ;;
	summary) echo "--report summary" ;;
	quant) echo "--script quant.d" ;;
	ctx) echo "--profile errors-in-context --profile-dir $top/formats/profiles --report summary" ;;
	esac
}

# CPU seconds (user + sys) and wall seconds of one run of measure $1 over
# file $2, as "CPU WALL"
time1() {
	/usr/bin/time -f "%U %S %e" -o tm "$build/vxreplay" "$2" $(args "$1") >/dev/null 2>&1 || true
	awk '{ printf "%.3f %.3f", $1 + $2, $3 }' tm
}
# the smaller of $1 and $2 ("" is none)
least() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }

for m in filter spec summary quant ctx; do eval "best_$m= wall_$m="; done
r=0
while [ "$r" -lt "$rounds" ]; do
	for m in filter spec summary quant ctx; do
		set -- $(time1 "$m" t.vxt)
		eval "best_$m=\$(least \"\$best_$m\" $1); wall_$m=\$(least \"\$wall_$m\" $2)"
	done
	r=$((r + 1))
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", (b > 0 ? a / b : 0) }'; }
rate() { awk -v n="$n" -v t="$1" 'BEGIN { printf "%.1f M events/s", (t > 0 ? n / t / 1e6 : 0) }'; }
ev_m=$(awk -v n="$n" 'BEGIN { printf "%g M", n / 1e6 }')
echo "script runs: $ev_m events, ~1 000 I/Os in flight; CPU seconds best of $rounds alternating rounds:" \
	"filter $best_filter, spec $best_spec, summary $best_summary, quantize $best_quant," \
	"context $best_ctx"
echo "goal speculation / filter <= 1.5x (CPU time):        $(ratio "$best_spec" "$best_filter")"
echo "goal speculation >= 10 M events/s (CPU time):        $(rate "$best_spec")"
echo "goal quantize / summary <= 1.3x (CPU time):          $(ratio "$best_quant" "$best_summary")"
echo "goal context profile / filter <= 1.5x (CPU time):    $(ratio "$best_ctx" "$best_filter")"
echo "wall seconds, best of $rounds: filter $wall_filter, spec $wall_spec, summary $wall_summary," \
	"quantize $wall_quant; speculation / filter $(ratio "$wall_spec" "$wall_filter")," \
	"$(rate "$wall_spec"); quantize / summary $(ratio "$wall_quant" "$wall_summary")"

if command -v valgrind >/dev/null 2>&1; then
	"$build/vxrecord" --source sim -c "$cgn" --seed 3 --rate 1000000 --sim-objects "$objs" \
		--sim-errors "$errs" -o c.vxt -q
	# instructions of measure $1 over c.vxt
	ins() {
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$build/vxreplay" c.vxt \
			$(args "$1") 2>&1 >/dev/null | awk '/Collected :/ { print $NF }'
	}
	i_f=$(ins filter); i_s=$(ins spec); i_m=$(ins summary); i_q=$(ins quant); i_c=$(ins ctx)
	gi() { awk -v i="$1" 'BEGIN { printf "%.3f G", i / 1e9 }'; }
	cg_m=$(awk -v n="$cgn" 'BEGIN { printf "%g M", n / 1e6 }')
	echo "goal speculation / filter <= 1.5x (instructions):    $(ratio "$i_s" "$i_f")" \
		"($(gi "$i_s") / $(gi "$i_f"), callgrind, $cg_m events)"
	echo "goal quantize / summary <= 1.3x (instructions):      $(ratio "$i_q" "$i_m")" \
		"($(gi "$i_q") / $(gi "$i_m"), callgrind, $cg_m events)"
	echo "goal context profile / filter <= 1.5x (instructions): $(ratio "$i_c" "$i_f")" \
		"($(gi "$i_c") / $(gi "$i_f"), callgrind, $cg_m events)"
else
	echo "(valgrind not installed: no instruction counts)"
fi

# 1 M live keys: ~1 M I/Os in flight (2 s latencies at 500 k I/Os per second)
m=${VXT_BENCH_KEYS_EVENTS:-4000000}
"$build/vxrecord" --source sim -c "$m" --seed 3 --rate 1000000 \
	--sim-objects 'sda:rand:70:4k:2s,sdb:rand:50:8k:2s' --sim-errors none -o k.vxt -q
cat >many.d <<'EOF'
#pragma D option quiet
#pragma D option nspec=65536
#pragma D option specsize=4k
#pragma D option dynvarsize=64m
io:::start { req->spec = speculation(); }
io:::start, io:::done /req->spec/ { speculate(req->spec); }
io:::done /req->spec && error/ { commit(req->spec); }
io:::done /req->spec/ { discard(req->spec); }
EOF
cat >manyagg.d <<'EOF'
#pragma D option aggsize=64m
io:::start { @[sector] = count(); }
END { trunc(@, 1); }
EOF
inflight=$("$build/vxreplay" k.vxt --report events --format csv | awk -F, '
	NR > 1 { if ($3 == "start") n++; else if ($3 == "done") n--; if (n > m) m = n }
	END { print m }')
# peak RSS (KiB) of one run
rss() {
	/usr/bin/time -v -o tv "$build/vxreplay" k.vxt "$@" >/dev/null 2>&1 || true
	awk -F': *' '/Maximum resident set size/ { print $2 }' tv
}
base=$(rss --filter error --report summary)
spec_rss=$(rss --script many.d)
agg_rss=$(rss --script manyagg.d)
spec_bound=$((65536 * 4 + 64 * 1024))
echo "1 M keys: $m events, at most $inflight I/Os in flight; filter pass peak RSS $base KiB"
echo "goal speculation memory <= nspec x specsize + dynvarsize:" \
	"$((spec_rss - base)) KiB over the filter pass (bound 65536 x 4k + 64m = $spec_bound KiB)"
"$build/vxreplay" k.vxt --script many.d 2>&1 >/dev/null | sed 's/^/    /'
echo "goal aggregation memory <= aggsize:" \
	"$((agg_rss - base)) KiB over the filter pass (bound aggsize 64m = 65536 KiB)"
"$build/vxreplay" k.vxt --script manyagg.d 2>&1 >/dev/null | sed 's/^/    /'
