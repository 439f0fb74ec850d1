#!/bin/sh
# sql_sqlite3.sh - the SQL tables from the sqlite3 shell (.load
# vxtrace_sqlite) agree with vxreplay --sql, with pushdown on and off; and
# vxreplay's own prompt (--sql -): dot-commands, errors, Ctrl-C.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
f=$tmp/t.vxt
"$b/vxrecord" -q -s sim -d 4s --rate 5000 --seed 3 --sim-errors 'sdb@1+25:EIO,dm-0@2.5+10' \
	-o "$f" || { fail "vxrecord failed"; finish; }

# --- vxreplay's prompt -------------------------------------------------------
printf '.tables\n.mode csv\nSELECT count(*)\n  FROM errors;\n.schema files\n.mode json\nSELECT vxt_errno(-28) AS e;\n.quit\nSELECT 1;\n' |
	"$b/vxreplay" "$f" --sql - > "$tmp/p.out" 2> "$tmp/p.err" || { fail "prompt failed: $(cat "$tmp/p.err")"; finish; }
for t in agg chunks errors events files ios latency objects; do
	grep -qx "$t" "$tmp/p.out" || fail ".tables lacks $t: $(cat "$tmp/p.out")"
done
grep -qx '35' "$tmp/p.out" || fail "a statement over two lines: $(cat "$tmp/p.out")"
grep -q '^CREATE TABLE files(host TEXT, file TEXT, version INTEGER' "$tmp/p.out" || fail ".schema files"
grep -q '"e": "ENOSPC"' "$tmp/p.out" || fail ".mode json: $(cat "$tmp/p.out")"
grep -qx '1' "$tmp/p.out" && fail "a statement after .quit ran"
printf 'SELECT * FROM nosuch;\nSELECT 7;\n' | "$b/vxreplay" "$f" --sql - > "$tmp/q.out" 2> "$tmp/q.err" &&
	fail "a failed statement from a pipe exits 0"
grep -q 'sql:1:[0-9]*: no such table: nosuch' "$tmp/q.err" || fail "prompt error: $(cat "$tmp/q.err")"
grep -qx '7' "$tmp/q.out" || fail "the prompt stopped after an error"
# Ctrl-C interrupts a long query, and the prompt goes on
mkfifo "$tmp/in"
"$b/vxreplay" "$f" --sql - < "$tmp/in" > "$tmp/i.out" 2> "$tmp/i.err" &
pid=$!
exec 3> "$tmp/in"
echo "SELECT count(*) FROM events a, events b, events c WHERE a.bytes + b.bytes + c.bytes = 1;" >&3
sleep 1
kill -INT "$pid"
echo "SELECT 40 + 2;" >&3
echo ".quit" >&3
exec 3>&-
wait "$pid"
pid=
grep -q 'interrupted' "$tmp/i.err" || fail "no interruption: $(cat "$tmp/i.err")"
grep -qx '42' "$tmp/i.out" || fail "the prompt did not go on after Ctrl-C: $(cat "$tmp/i.out")"

# --- the sqlite3 shell --------------------------------------------------------
command -v sqlite3 >/dev/null || skip "sqlite3 not installed"
if [ -n "${VXT_SAN:-}" ]; then
	skip "the extension is not loaded into sqlite3 under the sanitizers (their runtime must come first)"
fi
[ -f "$b/vxtrace_sqlite.so" ] || fail "$b/vxtrace_sqlite.so not built"
q="SELECT count(*), sum(bytes), sum(error != 0) AS errs FROM events;
SELECT object, count(*) FROM events WHERE error != 0 GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM events WHERE time_ns BETWEEN 1500000000 AND 3000000000 AND object IN ('sdb', 'sda');
SELECT object, vxt_percentile(latency_ns, 0.99) FROM ios GROUP BY 1 ORDER BY 1;
SELECT errname, count(*) FROM errors GROUP BY 1 ORDER BY 1;
SELECT sum(errors), sum(ios) FROM agg;"
"$b/vxreplay" "$f" --sql "$q" --format csv > "$tmp/vx.csv" || { fail "vxreplay --sql failed"; finish; }
tables="CREATE VIRTUAL TABLE temp.events USING vxtrace('$f');
CREATE VIRTUAL TABLE temp.ios USING vxtrace('$f', 'ios');
CREATE VIRTUAL TABLE temp.errors USING vxtrace('$f', errors);
CREATE VIRTUAL TABLE temp.agg USING vxtrace('$f', 'agg');"
for pd in 1 0; do
	sqlite3 -batch -csv :memory: ".load $b/vxtrace_sqlite" "SELECT vxt_pushdown($pd)" "$tables" \
		".headers on" "$q" > "$tmp/s$pd.csv" 2> "$tmp/s$pd.err" ||
		fail "sqlite3 failed: $(cat "$tmp/s$pd.err")"
	tail -n +2 "$tmp/s$pd.csv" > "$tmp/s$pd.rows"
	cmp -s "$tmp/vx.csv" "$tmp/s$pd.rows" ||
		{ diff "$tmp/vx.csv" "$tmp/s$pd.rows"; fail "sqlite3 (pushdown $pd) differs from vxreplay --sql"; }
done
[ "$(wc -l < "$tmp/vx.csv")" -gt 10 ] || fail "too few rows: $(cat "$tmp/vx.csv")"
sqlite3 -batch :memory: ".load $b/vxtrace_sqlite" \
	"CREATE VIRTUAL TABLE t USING vxtrace('$f', 'errors')" \
	"EXPLAIN QUERY PLAN SELECT * FROM t WHERE object = 'sdb'" > "$tmp/plan" ||
	fail "explain failed"
grep -q "VIRTUAL TABLE INDEX .*object=?" "$tmp/plan" || fail "sqlite3 plan: $(cat "$tmp/plan")"
sqlite3 -batch :memory: ".load $b/vxtrace_sqlite" \
	"CREATE VIRTUAL TABLE t USING vxtrace('$tmp/missing.vxt')" 2> "$tmp/m.err" &&
	fail "a missing file loaded"
grep -q "missing.vxt" "$tmp/m.err" || fail "missing file message: $(cat "$tmp/m.err")"
[ $fails = 0 ] && ok "sql_sqlite3: ok"
finish
