#!/bin/sh
# sql.sh - speed of SQL over .vxt files (vxreplay --sql, the SQLite module),
# with same-run peers:
#   1. SELECT count(*) FROM events WHERE error != 0 on a 100 M-event file
#      (~1 GB, made here and deleted after): answered from the index
#   2. p99 latency per object over 10 M events: --sql (the latency table, and
#      the exact percentile over every completion) vs --report objects
#   3. the same query in the sqlite3 shell after importing the CSV export of
#      the same 10 M events (import time + query time)
#   usage: tests/bench/sql.sh [BUILD_DIR]
#   VXT_BENCH_SQL_BIG (events of file 1, default 100000000),
#   VXT_BENCH_SQL_EVENTS (events of 2 and 3, default 10000000)
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
big=${VXT_BENCH_SQL_BIG:-100000000}
n=${VXT_BENCH_SQL_EVENTS:-10000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
# best wall time of 3 runs of "$@" (output to /dev/null)
best3() {
	b=
	for i in 1 2 3; do
		t0=$(now)
		"$@" > /dev/null
		t=$(since "$t0")
		b=$(awk -v a="$b" -v t="$t" 'BEGIN { print (a == "" || t < a) ? t : a }')
	done
	echo "$b"
}
rate=100000

# --- 1. the index answers -----------------------------------------------------
t0=$(now)
"$build/vxrecord" -q -s sim -d "$((big / rate))s" --rate $rate -o "$dir/big.vxt"
echo "sql: made $big events in $(since "$t0") s, $(($(stat -c %s "$dir/big.vxt") / 1048576)) MiB"
q1="SELECT count(*) FROM events WHERE error != 0"
t=$(best3 "$build/vxreplay" "$dir/big.vxt" --sql "$q1")
echo "sql: $q1: $("$build/vxreplay" "$dir/big.vxt" --sql "$q1" --format csv | tail -n 1) rows;" \
	"vxreplay --sql $t s (the whole process: start, open, index, query)"
if command -v sqlite3 > /dev/null && [ -f "$build/vxtrace_sqlite.so" ]; then
	# .timer reports statements read from the standard input
	printf '.load %s\nCREATE VIRTUAL TABLE events USING vxtrace(%s);\n.timer on\n%s;\n%s;\n%s;\n' \
		"$build/vxtrace_sqlite" "'$dir/big.vxt'" "$q1" "$q1" "$q1" | sqlite3 :memory: |
		awk '/^Run Time/ { r = $4 } END { printf "sql: the query alone (sqlite3 .timer, last of 3): %.4f s\n", r }'
	printf '.load %s\nSELECT vxt_pushdown(0);\nCREATE VIRTUAL TABLE events USING vxtrace(%s);\n.timer on\n%s;\n' \
		"$build/vxtrace_sqlite" "'$dir/big.vxt'" "$q1" | sqlite3 :memory: |
		awk '/^Run Time/ { r = $4 } END { printf "sql: the same without pushdown (every chunk decoded): %.3f s\n", r }'
fi
rm -f "$dir/big.vxt"

# --- 2. p99 per object: --sql vs --report objects -------------------------------
"$build/vxrecord" -q -s sim -d "$((n / rate))s" --rate $rate -o "$dir/t.vxt"
q2="SELECT object, vxt_percentile(latency_ns, 0.99) AS p99_ns FROM ios GROUP BY object"
tr=$(best3 "$build/vxreplay" "$dir/t.vxt" --report objects)
ts=$(best3 "$build/vxreplay" "$dir/t.vxt" --sql "$q2")
th=$(best3 "$build/vxreplay" "$dir/t.vxt" --sql \
	"SELECT object, vxt_lat_quantile(latency_ns, 0.99) AS p99_ns FROM ios GROUP BY object")
tl=$(best3 "$build/vxreplay" "$dir/t.vxt" --sql \
	"SELECT object, vxt_hist_percentile(hist, 0.99) AS p99_ns FROM latency GROUP BY object")
awk -v n="$n" -v r="$tr" -v s="$ts" -v h="$th" -v l="$tl" 'BEGIN {
	printf "sql: p99 per object, %d events: --report objects %.3f s; --sql over the latency table (the report'"'"'s histograms) %.3f s (%.2fx); vxt_percentile over ios (exact) %.3f s (%.2fx); vxt_lat_quantile over ios %.3f s (%.2fx)\n",
	n, r, l, l / r, s, s / r, h, h / r }'

# --- 3. the sqlite3 shell over the CSV export -------------------------------
if command -v sqlite3 > /dev/null && [ -f "$build/vxtrace_sqlite.so" ]; then
	t0=$(now)
	"$build/vxreplay" "$dir/t.vxt" --export csv -o "$dir/t.csv"
	te=$(since "$t0")
	t0=$(now)
	sqlite3 "$dir/t.db" ".import --csv $dir/t.csv events" \
		"CREATE VIEW ios AS SELECT * FROM events WHERE phase = 'done'"
	ti=$(since "$t0")
	t0=$(now)
	sqlite3 "$dir/t.db" ".load $build/vxtrace_sqlite" "$q2" > /dev/null
	tq=$(since "$t0")
	awk -v e="$te" -v i="$ti" -v q="$tq" -v s="$ts" -v sz="$(stat -c %s "$dir/t.db")" 'BEGIN {
		printf "sql: sqlite3 shell: export csv %.3f s + .import %.3f s + query %.3f s = %.3f s (database %d MiB); vxreplay --sql on the .vxt %.3f s\n",
		e, i, q, e + i + q, sz / 1048576, s }'
fi
