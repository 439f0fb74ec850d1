#!/bin/sh
# clickhouse_trust.sh - the ClickHouse sink against tables and servers it did
# not make: a valid table with hundreds of extra columns is taken (its
# schema check reads every column it needs, however long the server's list);
# a table that cannot fold a row sent twice (a plain MergeTree, a Log, a
# sorting key without trace and seq) is refused, saying why, before any row;
# an export that fails says how many of the events in scope it sent, of
# their total (vxrecord: the file's); an export of several files gives the
# rows each file exported alone gives.
. "${VXT_TOP:?}/tests/lib.sh"
. "$VXT_TOP/tests/cli/clickhouse_env.inc"
start_server
sql "CREATE DATABASE vx"
"$B/vxrecord" -s sim --seed 4 --rate 4000 -c 20000 -q -o "$T/a.vxt" || fail "vxrecord"
ours="host String, object String, time UInt64, wall_ns UInt64, trace UInt64, seq UInt64,
	phase String, op String, flags UInt16, sector UInt64, bytes UInt32, latency_ns UInt64,
	error Int16, pid UInt32, comm String, cpu UInt16"
key="ORDER BY (host, object, time, trace, seq)"

# --- a table with 300 extra columns, listed before ours --------------------------
extra=$(i=0; while [ $i -lt 300 ]; do printf 'an_extra_column_of_the_users_own_%03d String, ' $i
	i=$((i + 1)); done)
sql "CREATE TABLE vx.wide ($extra $ours) ENGINE = ReplacingMergeTree() $key"
"$B/vxreplay" "$T/a.vxt" --export "clickhouse+http://127.0.0.1:$HP/vx.wide" 2>"$T/err" ||
	fail "a table with 300 extra columns: $(cat "$T/err")"
expect_eq "rows in the wide table" "$(sql "SELECT count() FROM vx.wide FINAL")" 20000

# --- tables that cannot fold a row sent twice: refused before any row ------------
sql "CREATE TABLE vx.plain ($ours) ENGINE = MergeTree() $key"
expect_fail "a plain MergeTree" 1 "vx.plain: the table cannot fold rows sent twice: its engine is not a ReplacingMergeTree (engine MergeTree" -- \
	"$B/vxreplay" "$T/a.vxt" --export "clickhouse+http://127.0.0.1:$HP/vx.plain"
sql "CREATE TABLE vx.nokey ($ours) ENGINE = ReplacingMergeTree() ORDER BY (host, object, time)"
expect_fail "a key without trace and seq" 1 "vx.nokey: the table cannot fold rows sent twice: its sorting key lacks trace or seq (engine ReplacingMergeTree, ORDER BY (host, object, time))" -- \
	"$B/vxreplay" "$T/a.vxt" --export "clickhouse+http://127.0.0.1:$HP/vx.nokey"
sql "CREATE TABLE vx.log ($ours) ENGINE = Log"
expect_fail "a Log table" 1 "vx.log: the table cannot fold rows sent twice: its engine is not" -- \
	"$B/vxrecord" -s sim -d 1s -q -o "$T/l.vxt" --sink "clickhouse+http://127.0.0.1:$HP/vx.log"
expect_eq "nothing sent to the refused tables" \
	"$(sql "SELECT (SELECT count() FROM vx.plain) + (SELECT count() FROM vx.nokey) + (SELECT count() FROM vx.log)")" 0
# a key of trace and seq alone folds too
sql "CREATE TABLE vx.short ($ours) ENGINE = ReplacingMergeTree() ORDER BY (trace, seq)"
"$B/vxreplay" "$T/a.vxt" --export "clickhouse+http://127.0.0.1:$HP/vx.short" 2>"$T/err" &&
"$B/vxreplay" "$T/a.vxt" --export "clickhouse+http://127.0.0.1:$HP/vx.short" 2>"$T/err" ||
	fail "ORDER BY (trace, seq): $(cat "$T/err")"
expect_eq "exported twice, FINAL" "$(sql "SELECT count() FROM vx.short FINAL")" 20000

# --- a failed export says how many of the events in scope were sent --------------
echo "after 2" >"$T/mode"
start_proxy "$T/mode"
PURL=clickhouse+http://127.0.0.1:$PP/vx.failing
expect_fail "the total in scope" 1 "Memory limit exceeded (tried [0-9]* times); 4000 of 20000 events sent" -- \
	"$B/vxreplay" "$T/a.vxt" --export "$PURL" --sink-batch 2000 --sink-retry 1s
echo 500 >"$T/mode"
n=$("$B/vxreplay" "$T/a.vxt" --from 1 --to 4 --report events --format csv | tail -n +2 | wc -l)
expect_fail "the total in --from 1 --to 4" 1 "; 0 of $n events sent" -- \
	"$B/vxreplay" "$T/a.vxt" --from 1 --to 4 --export "$PURL" --sink-batch 2000 --sink-retry 1s
expect_fail "vxrecord: the file's total" 1 "0 of 30000 events shipped, the rest is in" -- \
	"$B/vxrecord" -s sim --seed 2 -c 30000 -q -o "$T/r.vxt" --sink "$PURL" --sink-batch 2000 \
	--sink-retry 1s

# --- several files: each row is the one its own file gives ---------------------------
"$B/vxrecord" -s sim --seed 5 --host hA -c 15000 -q -o "$T/hA.vxt" || fail "vxrecord hA"
"$B/vxrecord" -s sim --seed 6 --host hB --clock-offset 2.5s -c 12000 -q \
	--sim-errors 'sdb@0.5+6:EIO' -o "$T/hB.vxt" || fail "vxrecord hB"
for t in alone together; do
	sql "CREATE TABLE vx.$t ($ours) ENGINE = ReplacingMergeTree() $key"
done
for f in hA hB; do
	"$B/vxreplay" "$T/$f.vxt" --export "clickhouse+http://127.0.0.1:$HP/vx.alone" 2>"$T/err" ||
		fail "export $f alone: $(cat "$T/err")"
done
"$B/vxreplay" "$T/hA.vxt" "$T/hB.vxt" --export "clickhouse+http://127.0.0.1:$HP/vx.together" \
	2>"$T/err" || fail "export hA and hB together: $(cat "$T/err")"
rows() {
	sql "SELECT host, object, time, wall_ns, trace, seq, phase, op, flags, sector, bytes,
		latency_ns, error, pid, comm, cpu FROM vx.$1 FINAL ORDER BY trace, seq
		FORMAT TabSeparated" | md5sum
}
expect_eq "rows of two files together = of each alone" "$(rows together)" "$(rows alone)"
expect_eq "hosts together" "$(sql "SELECT arraySort(groupUniqArray(host)) FROM vx.together")" "['hA','hB']"
"$B/vxreplay" "$T/hA.vxt" "$T/hB.vxt" --export "clickhouse+http://127.0.0.1:$HP/vx.alone" \
	2>"$T/err" || fail "export together after alone: $(cat "$T/err")"
expect_eq "exported alone then together: FINAL folds them" \
	"$(sql "SELECT count() FROM vx.alone FINAL")" 27000

finish
