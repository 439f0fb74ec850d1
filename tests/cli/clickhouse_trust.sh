#!/bin/sh
# clickhouse_trust.sh - the ClickHouse sink against tables and servers it did
# not make: a valid table with hundreds of extra columns is taken (its
# schema check reads every column it needs, however long the server's list).
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

finish
