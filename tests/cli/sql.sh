#!/bin/sh
# sql.sh - vxreplay --sql: the tables give what the reports and the CSV
# export give, pushdown never changes a result (every query also runs with
# VXT_SQL_PUSHDOWN=0), the index answers counts without decompressing, and
# bad input fails with a clear message.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
command -v python3 >/dev/null || skip "python3 not installed"
f=$tmp/t.vxt
"$b/vxrecord" -q -s sim -d 6s --rate 5000 --seed 7 \
	--sim-errors 'sda@1.5+20:EIO,sdb@3.2+30:ENOSPC,dm-0@4.5+12' -o "$f" || { fail "vxrecord failed"; finish; }
sql() { "$b/vxreplay" "$f" --sql "$@"; }

# --- events field for field as the events report -------------------------
cols="time_ns,object,phase,op,flags,sector,bytes,latency_ns,error,errname,pid,comm,cpu,host"
"$b/vxreplay" "$f" --report events --format csv > "$tmp/ev.csv" || { fail "events report failed"; finish; }
sql "SELECT $cols FROM events" --format csv > "$tmp/sq.csv" || fail "select failed"
cmp -s "$tmp/ev.csv" "$tmp/sq.csv" || fail "SELECT $cols FROM events differs from --report events"
sql "SELECT * FROM events" --format csv > "$tmp/star.csv" || fail "select * failed"
"$b/vxreplay" "$f" --report errors --format csv > "$tmp/er.csv" || { fail "errors report failed"; finish; }
sql "SELECT $cols FROM errors" --format csv > "$tmp/sqer.csv" || fail "select errors failed"
cmp -s "$tmp/er.csv" "$tmp/sqer.csv" || fail "the errors table differs from --report errors"
"$b/vxreplay" "$f" --report summary --format json > "$tmp/sum.json" || { fail "summary failed"; finish; }
"$b/vxreplay" "$f" --report objects --format csv > "$tmp/obj.csv" || { fail "objects report failed"; finish; }

# --- the reports' numbers ---------------------------------------------------
# the reports' rules: bytes of successful I/Os; latencies of done events
# that have one or did not fail
lat="CASE WHEN phase = 'done' AND (latency_ns != 0 OR error = 0) THEN latency_ns END"
sql "SELECT min(time_ns) AS start_ns, max(time_ns) AS end_ns, count(*) AS events,
	sum(phase = 'done') AS ios, sum(phase = 'done' AND op = 'read') AS reads,
	sum(phase = 'done' AND op = 'write') AS writes, sum(phase = 'done' AND op = 'flush') AS flushes,
	sum(CASE WHEN phase = 'done' AND error = 0 AND op = 'read' THEN bytes ELSE 0 END) AS bytes_read,
	sum(CASE WHEN phase = 'done' AND error = 0 AND op = 'write' THEN bytes ELSE 0 END) AS bytes_written,
	sum(CASE WHEN phase = 'done' AND error = 0 THEN bytes ELSE 0 END) AS bytes,
	sum(phase = 'done' AND error != 0) AS errors, sum(phase = 'start') AS starts,
	sum(CASE WHEN phase = 'lost' THEN sector ELSE 0 END) AS lost,
	count(DISTINCT CASE WHEN phase != 'lost' THEN object END) AS objects,
	vxt_lat_quantile($lat, 0.5) AS latency_p50_ns, vxt_lat_quantile($lat, 0.99) AS latency_p99_ns,
	max($lat) AS latency_max_ns FROM events" --format json > "$tmp/sqsum.json" ||
	fail "summary query failed"
sql "SELECT object, sum(phase = 'done') AS ios, sum(phase = 'done' AND op = 'read') AS reads,
	sum(phase = 'done' AND op = 'write') AS writes,
	sum(CASE WHEN phase = 'done' AND error = 0 AND op = 'read' THEN bytes ELSE 0 END) AS bytes_read,
	sum(CASE WHEN phase = 'done' AND error = 0 AND op = 'write' THEN bytes ELSE 0 END) AS bytes_written,
	sum($lat) / count($lat) AS latency_avg_ns,
	vxt_lat_quantile($lat, 0.5) AS latency_p50_ns, vxt_lat_quantile($lat, 0.99) AS latency_p99_ns,
	max($lat) AS latency_max_ns, sum(phase = 'done' AND error != 0) AS errors
	FROM events WHERE phase != 'lost' GROUP BY object_id ORDER BY object_id" --format csv \
	> "$tmp/sqobj.csv" || fail "objects query failed"
# the index's own aggregates give the same per-object counts, chunk by chunk
sql "SELECT object, sum(ios) AS ios, sum(reads) AS reads, sum(writes) AS writes,
	sum(bytes_read) AS bytes_read, sum(bytes_written) AS bytes_written, sum(errors) AS errors
	FROM agg GROUP BY object_id ORDER BY object_id" --format csv > "$tmp/agg.csv" ||
	fail "agg query failed"

python3 - "$tmp" <<'PYEOF' || fail "the python check above"
import csv, json, sys
tmp = sys.argv[1]
def fail(m):
    print("sql:", m); sys.exit(1)
s = json.load(open(tmp + "/sum.json"))
q = json.load(open(tmp + "/sqsum.json"))[0]
for k, v in q.items():
    if s[k] != v:
        fail("summary %s: report %s, SQL %s" % (k, s[k], v))
rep = {r["object"]: r for r in csv.DictReader(open(tmp + "/obj.csv"))}
for name, path in (("events", "/sqobj.csv"), ("agg", "/agg.csv")):
    rows = list(csv.DictReader(open(tmp + path)))
    if sorted(r["object"] for r in rows) != sorted(rep):
        fail("%s objects %s, report %s" % (name, [r["object"] for r in rows], list(rep)))
    for r in rows:
        for k, v in r.items():
            if rep[r["object"]][k] != v:
                fail("%s %s %s: report %s, SQL %s" % (name, r["object"], k, rep[r["object"]][k], v))
# SELECT * starts with the export's columns; host, wall and real_ns agree
ev = list(csv.reader(open(tmp + "/ev.csv")))
st = list(csv.reader(open(tmp + "/star.csv")))
if len(ev) != len(st):
    fail("SELECT * has %d rows, the report %d" % (len(st), len(ev)))
h = st[0]
for a, b in zip(ev[1:], st[1:]):
    if a[:13] != b[:13] or a[13] != b[h.index("host")]:
        fail("SELECT * row %s differs from %s" % (b, a))
    r = dict(zip(h, b))
    if r["host"] != s["host"] or not r["wall"].endswith("Z"):
        fail("host/wall %s" % r)
PYEOF

# --- brute force from the CSV: exact percentiles, time ranges, IN -----------
awk -F, 'NR > 1 && $3 == "done" { print $2, $8 }' "$tmp/ev.csv" | sort -k1,1 -k2,2n |
	awk '{ v[$1, ++n[$1]] = $2 } END { for (o in n) { k = int(n[o] * 0.99); if (k < n[o] * 0.99) k++;
		print o "," v[o, k] } }' | sort > "$tmp/p99.awk"
sql "SELECT object, vxt_percentile(latency_ns, 0.99) FROM ios GROUP BY object ORDER BY object" \
	--format csv | tail -n +2 > "$tmp/p99.sql" || fail "percentile query failed"
cmp -s "$tmp/p99.awk" "$tmp/p99.sql" || { diff "$tmp/p99.awk" "$tmp/p99.sql"; fail "vxt_percentile differs from a sort"; }
# --- the latency table: the reports' histograms, counted by awk ---------------
"$b/vxreplay" "$f" --report objects --format csv > "$tmp/objrep.csv" || { fail "objects report failed"; finish; }
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "latency_p99_ns") c = i; next }
	{ print $1 "," $c }' "$tmp/objrep.csv" | sort > "$tmp/p99.rep"
sql "SELECT object, vxt_hist_percentile(hist, 0.99) FROM latency GROUP BY object ORDER BY object" \
	--format csv | tail -n +2 > "$tmp/p99.lat" || fail "latency table query failed"
[ -s "$tmp/p99.rep" ] && cmp -s "$tmp/p99.rep" "$tmp/p99.lat" ||
	{ diff "$tmp/p99.rep" "$tmp/p99.lat"; fail "latency table p99 differs from --report objects"; }
# n: every completion but a failed one of unknown latency; in windows of 1 s
awk -F, 'NR > 1 && $3 == "done" && ($8 != 0 || $9 == 0) { n[$2]++ }
	END { for (o in n) print o "," n[o] }' "$tmp/ev.csv" | sort > "$tmp/n.awk"
sql "SELECT object, sum(n) FROM latency GROUP BY object ORDER BY object" --format csv |
	tail -n +2 > "$tmp/n.lat"
cmp -s "$tmp/n.awk" "$tmp/n.lat" || { diff "$tmp/n.awk" "$tmp/n.lat"; fail "latency table counts differ from awk"; }
# the bounds are times of completions: both ends are in the range
lo=$(awk -F, 'NR > 1 && $3 == "done" && $9 == 0 && $1 >= 2000000000 { print $1; exit }' "$tmp/ev.csv")
hi=$(awk -F, 'NR > 1 && $3 == "done" && $9 == 0 && $1 >= 3900000000 { print $1; exit }' "$tmp/ev.csv")
awk -F, -v lo="$lo" -v hi="$hi" 'NR > 1 && $3 == "done" && ($8 != 0 || $9 == 0) && $1 >= lo && $1 <= hi {
	n[$2 "," sprintf("%.0f", int($1 / 1000000000) * 1000000000)]++ } END { for (k in n) print k "," n[k] }' \
	"$tmp/ev.csv" | sort > "$tmp/w.awk"
sql "SELECT object, window_ns, n FROM latency($lo, $hi, 1000000000) WHERE op = 'read'
	UNION ALL SELECT object, window_ns, n FROM latency($lo, $hi, 1000000000) WHERE op != 'read'" \
	--format csv | tail -n +2 |
	awk -F, '{ n[$1 "," $2] += $3 } END { for (k in n) print k "," n[k] }' | sort > "$tmp/w.lat"
[ "$(wc -l < "$tmp/w.awk")" -ge 8 ] && cmp -s "$tmp/w.awk" "$tmp/w.lat" ||
	{ diff "$tmp/w.awk" "$tmp/w.lat" | head; fail "latency(from, to, interval) differs from awk"; }
sql "SELECT count(*) FROM latency(0, 10, 0)" > /dev/null 2> "$tmp/l.err" && fail "interval_ns 0 accepted"
grep -q 'interval_ns must be > 0' "$tmp/l.err" || fail "interval_ns 0: $(cat "$tmp/l.err")"
sql "SELECT vxt_hist_percentile(object, 0.5) FROM latency" > /dev/null 2> "$tmp/l.err" &&
	fail "vxt_hist_percentile of a name accepted"
"$b/vxrecord" -q -s sim -d 3s --rate 50000 -o "$tmp/many.vxt" || { fail "vxrecord (many) failed"; finish; }
"$b/vxreplay" "$tmp/many.vxt" --sql "SELECT count(*) FROM latency(NULL, NULL, 1)" > /dev/null \
	2> "$tmp/l.err" && fail "a latency table of one window per nanosecond was made"
grep -q 'more than 65536' "$tmp/l.err" || fail "too many latency rows: $(cat "$tmp/l.err")"
# vxt_percentile against ORDER BY ... OFFSET, on values with many repeats
for p in 0 0.01 0.5 0.9 0.999 1; do
	got=$(sql "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 5000),
		v(x) AS (SELECT (i * 7919) % 613 / 3 FROM s)
		SELECT vxt_percentile(x, $p) = (SELECT x FROM v ORDER BY x
			LIMIT 1 OFFSET max(CAST(ceil($p * 5000) AS INTEGER) - 1, 0)) FROM v" --format csv | tail -n 1)
	[ "$got" = 1 ] || fail "vxt_percentile(x, $p) differs from ORDER BY x OFFSET"
done
want=$(awk -F, 'NR > 1 && $1 >= 3000000000 && $1 < 5000000000 && ($2 == "sdb" || $2 == "dm-0") && $9 != 0' "$tmp/ev.csv" | wc -l)
got=$(sql "SELECT count(*) FROM events WHERE time_ns >= 3000000000 AND time_ns < 5000000000
	AND object IN ('sdb', 'dm-0') AND error != 0" --format csv | tail -n 1)
[ "$want" -gt 0 ] && [ "$got" = "$want" ] || fail "time + IN + error count: SQL $got, awk $want"
want=$(awk -F, 'NR > 1 && $1 >= 1000000000 && $1 <= 2000000000 && $2 == "sda"' "$tmp/ev.csv" | wc -l)
got=$(sql "SELECT count(*) FROM events WHERE time_ns BETWEEN 1000000000 AND 2000000000
	AND object = 'sda'" --format csv | tail -n 1)
[ "$got" = "$want" ] || fail "BETWEEN + object count: SQL $got, awk $want"

# --- pushdown never changes a result ---------------------------------------
cat > "$tmp/queries.sql" <<'EOF'
SELECT count(*) FROM events WHERE error != 0;
SELECT count(*), sum(bytes) FROM events WHERE error != 0 AND object = 'sdb';
SELECT count(*) FROM events WHERE time_ns >= 2000000000 AND time_ns < 3000000000;
SELECT count(*) FROM events WHERE time_ns > 2000000000.5 AND time_ns <= 3000000000;
SELECT count(*) FROM events WHERE time_ns = 1000000000;
SELECT count(*), min(time_ns), max(time_ns) FROM events WHERE time_ns BETWEEN 1500000000 AND 4500000000 AND error != 0;
SELECT object, count(*) FROM events WHERE object IN ('sda', 'nvme0n1', 'nosuch') GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM ios WHERE object IN ('sda', 'dm-0') AND time_ns < 5000000000;
SELECT count(*) FROM ios WHERE object = 'sdb' AND error != 0;
SELECT ordinal, time_ns, object, errname FROM errors WHERE object != 'sda' ORDER BY ordinal LIMIT 20;
SELECT count(*) FROM events WHERE real_ns >= (SELECT anchor_real_ns FROM files) + 2000000000 AND real_ns < (SELECT anchor_real_ns FROM files) + 2600000000;
SELECT e.ordinal, (SELECT count(*) FROM ios i WHERE i.object = e.object AND i.time_ns < e.time_ns AND i.time_ns >= e.time_ns - 100000000) FROM errors e ORDER BY 1 LIMIT 10;
SELECT count(*) FROM events a JOIN events b ON a.rowid = b.rowid + 1 WHERE a.error != 0 AND b.object = 'sdb';
SELECT count(*) FROM events WHERE time_ns < 0 OR time_ns > 99999999999999;
SELECT object, vxt_percentile(latency_ns, 99), vxt_lat_quantile(latency_ns, 0.99) FROM ios WHERE time_ns >= 1000000000 GROUP BY object ORDER BY 1;
EOF
sql "$(cat "$tmp/queries.sql")" --format csv > "$tmp/on.csv" || fail "pushdown queries failed"
VXT_SQL_PUSHDOWN=0 "$b/vxreplay" "$f" --sql "$(cat "$tmp/queries.sql")" --format csv \
	> "$tmp/off.csv" || fail "queries without pushdown failed"
cmp -s "$tmp/on.csv" "$tmp/off.csv" || { diff "$tmp/on.csv" "$tmp/off.csv" | head; fail "pushdown changed a result"; }
[ "$(wc -l < "$tmp/on.csv")" -gt 40 ] || fail "the queries gave too little: $(cat "$tmp/on.csv")"
# object order keeps rows of several objects per read of the file, or of
# one (memory 0), or gives up objects that do not fit: the same results
cat > "$tmp/byobj.sql" <<'EOF'
SELECT object, count(*), sum(latency_ns), min(ordinal), max(ordinal), sum(ordinal % 7919), sum(error) FROM ios GROUP BY object;
SELECT object, count(*), sum(sector), min(time_ns), max(time_ns), total(ordinal * bytes) FROM events GROUP BY object;
SELECT object, vxt_percentile(latency_ns, 0.5), vxt_percentile(latency_ns, 0.99), max(pid), max(comm) FROM ios WHERE time_ns >= 1000000000 GROUP BY object;
SELECT object, count(*), sum(ordinal) FROM errors GROUP BY object;
SELECT count(*), sum(x) FROM (SELECT object, rowid % 1000 AS x FROM events ORDER BY object LIMIT 70000);
EOF
VXT_SQL_PUSHDOWN=0 "$b/vxreplay" "$f" --sql "$(cat "$tmp/byobj.sql")" --format csv \
	> "$tmp/byobj.off" || fail "object-order queries without pushdown failed"
for mem in 268435456 300000 200000 0; do
	plan=$(sql "SELECT vxt_group_memory($mem); EXPLAIN QUERY PLAN $(head -n 1 "$tmp/byobj.sql")")
	echo "$plan" | grep -q 'by object' || fail "object order not planned: $plan"
	sql "SELECT vxt_group_memory($mem); $(cat "$tmp/byobj.sql")" --format csv | tail -n +3 \
		> "$tmp/byobj.on" || fail "object-order queries (memory $mem) failed"
	cmp -s "$tmp/byobj.on" "$tmp/byobj.off" ||
		{ diff "$tmp/byobj.on" "$tmp/byobj.off" | head; fail "object order with memory $mem changed a result"; }
done
sql "SELECT vxt_group_memory(-1)" > /dev/null 2>&1 && fail "vxt_group_memory(-1) accepted"
sql "SELECT vxt_pushdown(0); SELECT count(*) FROM errors WHERE object = 'sdb'" --format csv \
	> "$tmp/fn.csv" || fail "vxt_pushdown(0) failed"
grep -q '^30$' "$tmp/fn.csv" || fail "vxt_pushdown(0) then a count: $(cat "$tmp/fn.csv")"

# the examples of formats/sql.md run, give rows, and give them with pushdown off too
top=${VXT_TOP:?}
awk '/^```sql$/ { on = 1; n++; next } /^```$/ { on = 0 } on { print > ("'"$tmp"'/ex" n ".sql") }' \
	"$top/formats/sql.md"
[ -f "$tmp/ex6.sql" ] || fail "formats/sql.md has fewer than 6 example queries"
for q in "$tmp"/ex*.sql; do
	sql "$(cat "$q")" --format csv > "$q.on" || fail "example $(cat "$q") failed"
	VXT_SQL_PUSHDOWN=0 "$b/vxreplay" "$f" --sql "$(cat "$q")" --format csv > "$q.off" ||
		fail "example $(cat "$q") failed without pushdown"
	cmp -s "$q.on" "$q.off" || fail "pushdown changed the result of $(cat "$q")"
	[ "$(wc -l < "$q.on")" -gt 1 ] || fail "no rows from $(cat "$q")"
done

# --- EXPLAIN QUERY PLAN shows the pushdown ---------------------------------
plan=$(sql "EXPLAIN QUERY PLAN SELECT count(*) FROM events WHERE time_ns >= 5 AND object IN ('sda', 'sdb') AND error != 0" --format csv)
echo "$plan" | grep -q 'time_ns>=? AND object IN(?) AND error!=0' || fail "plan: $plan"
plan=$(sql "EXPLAIN QUERY PLAN SELECT object, count(*) FROM ios GROUP BY object")
echo "$plan" | grep -q 'by object' || fail "GROUP BY object plan: $plan"
echo "$plan" | grep -q 'TEMP B-TREE' && fail "GROUP BY object still sorts: $plan"
plan=$(VXT_SQL_PUSHDOWN=0 "$b/vxreplay" "$f" --sql "EXPLAIN QUERY PLAN SELECT * FROM events WHERE error != 0")
echo "$plan" | grep -q 'no pushdown' || fail "plan without pushdown: $plan"

# --- counts from the index: a chunk whose data is damaged is never read ----
cp "$f" "$tmp/d.vxt"
off=$(sql "SELECT data_offset + data_size / 2 FROM chunks WHERE chunk = 1" --format csv | tail -n 1)
printf '\377\377\377\377' | dd of="$tmp/d.vxt" bs=1 seek="$off" conv=notrunc 2>/dev/null
n=$("$b/vxreplay" "$tmp/d.vxt" --sql "SELECT count(*) FROM events WHERE error != 0; SELECT count(*) FROM ios" --format csv) ||
	fail "counting from the index read the damaged chunk"
[ "$(echo "$n" | sed -n 2p)" = "$(grep -c . "$tmp/sqer.csv" | awk '{ print $1 - 1 }')" ] ||
	fail "index count of errors: $n"
"$b/vxreplay" "$tmp/d.vxt" --sql "SELECT sum(bytes) FROM events" > "$tmp/d.out" 2> "$tmp/d.err" &&
	fail "reading the damaged chunk succeeded"
grep -q "d.vxt" "$tmp/d.err" || fail "damage message names no file: $(cat "$tmp/d.err")"

# --- many files as one table: a rotated set -------------------------------
"$b/vxrecord" -q -s sim -d 6s --rate 3000 --rotate 2s -o "$tmp/rot.vxt" || { fail "rotating vxrecord failed"; finish; }
total=0
for r in "$tmp"/rot*.vxt; do
	e=$("$b/vxreplay" "$r" --report summary --format csv | tail -n 1 | cut -d, -f4)
	total=$((total + e))
done
got=$("$b/vxreplay" "$tmp/rot*.vxt" --sql "SELECT count(*), count(DISTINCT file), count(DISTINCT host) FROM events" --format csv | tail -n 1)
[ "$got" = "$total,$(ls "$tmp"/rot*.vxt | wc -l),1" ] || fail "rotated set: $got, want $total events"
got=$("$b/vxreplay" "$tmp"/rot*.vxt --sql "SELECT count(*) FROM files; SELECT count(*) FROM events WHERE rowid IN (SELECT rowid FROM events)" --format csv | tr '\n' ' ')
[ "$got" = "count(*) 3 count(*) $total " ] || fail "rotated set as arguments: $got"

# --- ios phases on a real blktrace capture (queue, getrq, insert events) -------
bt=${VXT_SHARED:-$VXT_TOP/../shared}/data/blktrace/centos7-sda
if [ -f "$bt/sda.blktrace.0" ]; then
	"$b/vxrecord" --import blktrace "$bt/sda" -o "$tmp/bt.vxt" -q || { fail "blktrace import failed"; finish; }
	"$b/vxreplay" "$tmp/bt.vxt" --report events --format csv > "$tmp/bt.csv" || { fail "bt events"; finish; }
	# each completion takes the oldest queue/getrq/insert of its (object, sector, bytes)
	awk -F, 'NR > 1 { k = $2 SUBSEP $6 SUBSEP $7 }
		NR > 1 && ($3 == "queue" || $3 == "getrq" || $3 == "insert") { q[$3, k, ++n[$3, k]] = $1 }
		NR > 1 && $3 == "done" { line = $1
			split("queue getrq insert", ph, " ")
			for (i = 1; i <= 3; i++) { p = ph[i]; v = ""
				if (h[p, k] < n[p, k]) v = q[p, k, ++h[p, k]]
				line = line "," v }
			print line }' "$tmp/bt.csv" > "$tmp/bt.awk"
	"$b/vxreplay" "$tmp/bt.vxt" --sql "SELECT time_ns, queue_ns, getrq_ns, insert_ns FROM ios" \
		--format csv | tail -n +2 > "$tmp/bt.sql" || { fail "ios phases query failed"; finish; }
	[ "$(cut -d, -f2 "$tmp/bt.sql" | grep -c .)" -gt 50 ] || fail "few queue times: $(head "$tmp/bt.sql")"
	cmp -s "$tmp/bt.awk" "$tmp/bt.sql" || { diff "$tmp/bt.awk" "$tmp/bt.sql" | head; fail "ios phases differ from a pairing by hand"; }
	q="SELECT count(*), sum(q2c_ns), sum(q2d_ns), sum(issue_ns) FROM ios WHERE time_ns > (SELECT first_ns FROM files) + 100000000"
	a=$("$b/vxreplay" "$tmp/bt.vxt" --sql "$q" --format csv) || fail "ios phase sums failed"
	c=$(VXT_SQL_PUSHDOWN=0 "$b/vxreplay" "$tmp/bt.vxt" --sql "$q" --format csv)
	[ "$a" = "$c" ] || fail "pushdown changed ios phases: $a / $c"
else
	echo "sql: $bt absent: ios phases not checked on a real capture"
fi

# --- bad input -------------------------------------------------------------
"$b/vxreplay" "$tmp/missing.vxt" --sql "SELECT 1" > /dev/null 2> "$tmp/e1" && fail "missing file succeeded"
grep -q "missing.vxt" "$tmp/e1" || fail "missing file message: $(cat "$tmp/e1")"
sql "SELECT count(*) FROM events;
SELECT * FORM events" > /dev/null 2> "$tmp/e2" && fail "a syntax error succeeded"
grep -q '^vxreplay: --sql:2:10: near "FORM": syntax error$' "$tmp/e2" || fail "syntax error message: $(cat "$tmp/e2")"
sql "SELECT nosuch FROM events" 2> "$tmp/e3" && fail "an unknown column succeeded"
grep -q 'no such column: nosuch' "$tmp/e3" || fail "unknown column message: $(cat "$tmp/e3")"
sql "SELECT vxt_percentile(latency_ns, 'x') FROM events" 2> "$tmp/e4" && fail "a bad percentile succeeded"
grep -q 'vxt_percentile: p must be' "$tmp/e4" || fail "bad percentile message: $(cat "$tmp/e4")"
# a torn file: the recovered part, and a warning row
size=$(stat -c %s "$f")
head -c $((size * 2 / 3)) "$f" > "$tmp/torn.vxt"
want=$("$b/vxreplay" "$tmp/torn.vxt" --report summary --format csv 2>/dev/null | tail -n 1 | cut -d, -f4)
got=$("$b/vxreplay" "$tmp/torn.vxt" --sql "SELECT count(*) FROM events; SELECT idx, warning IS NOT NULL FROM files" --format csv 2>/dev/null | tr '\n' ' ')
[ -n "$want" ] && [ "$got" = "count(*) $want idx,warning IS NOT NULL recovered,1 " ] || fail "torn file: $got (want $want events)"
[ $fails = 0 ] && ok "sql: ok"
finish
