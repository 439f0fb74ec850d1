#!/bin/sh
# script.sh - D-style scripts against their same-run peers (make bench)
#   usage: tests/bench/script.sh [BUILD_DIR]   (or VXT_BUILD in the environment)
#
# One simulated trace of VXT_BENCH_SCRIPT_EVENTS events (default 10 M) at
# 1 M events/s with ~2 ms latencies: about 1 000 I/Os in flight at any time,
# so a per-request speculation has about 1 000 live keys. On it, each the
# best CPU time (user + sys) of three whole vxreplay runs:
#   filter     --filter error --report summary       (the plain filter pass)
#   speculate  a per-request speculation script       (req->spec per I/O): one
#              pass printing what it commits (as dtrace -s), and with
#              --report summary (a second pass over the events it kept)
#   summary    --report summary                       (every event)
#   quantize   @[object, op] = quantize(latency)
#   args[]     bitesize's aggregation in the io provider's translators
#              (args[1]->dev_statname, args[0]->b_flags & B_READ,
#              args[0]->b_bcount) and its twin in flat fields (object,
#              op == "read", bytes): at most 1.1x
#   bpftrace   a biolatency-style bpftrace program (issue to completion by
#              device and sector, hist(), delete()) and its D twin, and the
#              one-liner @ = hist(args.bytes) and its twin: each at most 1.1x
# and the ratios speculate/filter (the one pass) and quantize/summary. Then a run with
# about 1 M I/Os in flight (1 M live keys) shows the memory (max RSS from
# /usr/bin/time -v): the speculation with nspec x specsize = 65536 x 4k,
# its req-> state bounded by DTrace's default dynvarsize (1m) and by
# dynvarsize=512m (about what a million I/Os in flight take, unbounded),
# and a 1 M-key aggregation under aggsize.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-${VXT_BUILD:-$top/build}}" && pwd)
n=${VXT_BENCH_SCRIPT_EVENTS:-10000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp"

objs='sda:rand:70:4k:2ms,sdb:rand:50:8k-64k:2ms,nvme0n1:rand:80:4k:1ms'
"$build/vxrecord" --source sim -c "$n" --seed 3 --rate 1000000 --sim-objects "$objs" \
	--sim-errors 'sda@0.5s+20:EIO,sdb@1s+20' -o t.vxt -q
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
cat >args.d <<'EOF'
io:::start { @[args[1]->dev_statname, args[0]->b_flags & B_READ ? "R" : "W"] =
	quantize(args[0]->b_bcount); }
EOF
echo 'io:::start { @[object, op == "read" ? "R" : "W"] = quantize(bytes); }' >flat.d
cat >lat.bt <<'EOF'
tracepoint:block:block_rq_issue { @start[args.dev, args.sector] = nsecs; }
tracepoint:block:block_rq_complete /@start[args.dev, args.sector]/
{
	@usecs = hist((nsecs - @start[args.dev, args.sector]) / 1000);
	delete(@start, (args.dev, args.sector));
}
EOF
cat >lat.d <<'EOF'
io:::start { start[dev, sector] = timestamp; }
io:::done /start[dev, sector]/
{
	@usecs = quantize((timestamp - start[dev, sector]) / 1000);
	start[dev, sector] = 0;
}
EOF
echo 'tracepoint:block:block_rq_issue { @ = hist(args.bytes); }' >one.bt
echo 'io:::start { @ = quantize(bytes); }' >one.d

# best CPU seconds of three runs, and the max RSS (KiB) of the last
cpu() {
	best=""
	for i in 1 2 3; do
		/usr/bin/time -f "%U %S %M" -o tm "$build/vxreplay" "$@" >/dev/null 2>&1 || true
		t=$(awk '{ printf "%.3f", $1 + $2 }' tm)
		rss=$(awk '{ print $3 }' tm)
		best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
	done
	echo "$best $rss"
}
rate() { awk -v n="$n" -v t="$1" 'BEGIN { printf "%.1f M events/s", (t > 0 ? n / t / 1e6 : 0) }'; }

set -- $(cpu t.vxt --filter error --report summary); filter=$1
set -- $(cpu t.vxt --script spec.d); spec=$1
set -- $(cpu t.vxt --script spec.d --report summary); specrep=$1
set -- $(cpu t.vxt --report summary); summary=$1
set -- $(cpu t.vxt --script quant.d); quant=$1
echo "events: $n, about 1 000 I/Os in flight (CPU seconds, best of 3)"
echo "filter pass:          ${filter} s  $(rate "$filter")"
echo "speculation (req->):  ${spec} s  $(rate "$spec")"
echo "  and --report summary: ${specrep} s  $(rate "$specrep")"
echo "summary report:       ${summary} s  $(rate "$summary")"
echo "quantize(latency):    ${quant} s  $(rate "$quant")"
awk -v a="$spec" -v b="$filter" -v c="$quant" -v d="$summary" 'BEGIN {
	printf "speculation / filter: %.2fx\nquantize / summary:   %.2fx\n", a / b, c / d }'
set -- $(cpu t.vxt --script args.d); argsd=$1
set -- $(cpu t.vxt --script flat.d); flatd=$1
awk -v a="$argsd" -v b="$flatd" 'BEGIN {
	printf "args[] translators: %s s, flat-field twin %s s: %.2fx (at most 1.10x)\n", a, b, a / b }'
set -- $(cpu t.vxt --script lat.bt); latbt=$1
set -- $(cpu t.vxt --script lat.d); latd=$1
set -- $(cpu t.vxt --script one.bt); onebt=$1
set -- $(cpu t.vxt --script one.d); oned=$1
awk -v a="$latbt" -v b="$latd" -v c="$onebt" -v d="$oned" 'BEGIN {
	printf "bpftrace biolatency (issue): %s s, its D twin %s s: %.2fx (at most 1.10x)\n", a, b, a / b
	printf "bpftrace @ = hist(args.bytes): %s s, its D twin %s s: %.2fx (at most 1.10x)\n", c, d, c / d }'

# 1 M live keys: ~1 M I/Os in flight (2 s latencies at 500 k I/Os per second)
m=${VXT_BENCH_SCRIPT_KEYS_EVENTS:-4000000}
"$build/vxrecord" --source sim -c "$m" --seed 3 --rate 1000000 \
	--sim-objects 'sda:rand:70:4k:2s,sdb:rand:50:8k:2s' --sim-errors none -o k.vxt -q
cat >many.d <<'EOF'
#pragma D option quiet
#pragma D option nspec=65536
#pragma D option specsize=4k
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
set -- $(cpu k.vxt --filter error --report summary); echo "1 M keys: $m events, at most $inflight I/Os in flight"
echo "  filter pass max RSS:                 $2 KiB"
# max RSS (KiB) and CPU seconds of one run, from /usr/bin/time -v
rss() {
	/usr/bin/time -v -o tv "$build/vxreplay" "$@" >/dev/null 2>&1 || true
	awk -F': *' '/Maximum resident set size/ { r = $2 } /User time/ { u = $2 }
		/System time/ { s = $2 } END { printf "%s %.2f\n", r, u + s }' tv
}
set -- $(rss k.vxt --script many.d --report summary)
echo "  speculation (65536 x 4k), dynvarsize 1m (default) max RSS:   $1 KiB, $2 s" \
	"(bound nspec x specsize + dynvarsize: $((65536 * 4 + 1024)) KiB over the filter pass)"
"$build/vxreplay" k.vxt --script many.d 2>&1 >/dev/null | sed 's/^/    /'
set -- $(rss k.vxt --script many.d -x dynvarsize=512m --report summary)
echo "  speculation (65536 x 4k), dynvarsize 512m max RSS:           $1 KiB, $2 s"
"$build/vxreplay" k.vxt --script many.d -x dynvarsize=512m 2>&1 >/dev/null | sed 's/^/    /'
set -- $(cpu k.vxt --script manyagg.d)
echo "  aggregation (aggsize 64m) max RSS:   $2 KiB, ${1} s (bound aggsize: 65536 KiB over the filter pass)"
"$build/vxreplay" k.vxt --script manyagg.d 2>&1 >/dev/null | sed 's/^/    /'
