#!/bin/sh
# clickhouse.sh - the ClickHouse sink's insert rate against clickhouse-client
# inserting the same rows from CSV, in the same run, on a clickhouse-server
# started here (127.0.0.1, a data directory of its own).
#   usage: tests/bench/clickhouse.sh [BUILD_DIR]   (or VXT_BUILD in the environment)
# Environment: VXT_BENCH_EVENTS (1000000).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
n=${VXT_BENCH_EVENTS:-1000000}
for b in clickhouse-server clickhouse-client curl python3; do
	command -v $b >/dev/null 2>&1 || { echo "clickhouse: skipped ($b is not installed)"; exit 0; }
done
T=$(mktemp -d)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
HP=$(port); TP=$(port)
cat >"$T/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <logger><level>error</level><console>1</console></logger>
    <http_port>$HP</http_port><tcp_port>$TP</tcp_port><listen_host>127.0.0.1</listen_host>
    <path>$T/data/</path><tmp_path>$T/tmp/</tmp_path><users_config>users.xml</users_config>
    <default_profile>default</default_profile><default_database>default</default_database>
    <mark_cache_size>5368709</mark_cache_size>
</yandex>
XML
cat >"$T/users.xml" <<'XML'
<?xml version="1.0"?>
<yandex><profiles><default></default></profiles>
<users><default><password></password><networks><ip>127.0.0.1</ip></networks>
<profile>default</profile><quota>default</quota></default></users>
<quotas><default></default></quotas></yandex>
XML
clickhouse-server --config-file="$T/config.xml" >"$T/log" 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
i=0
until curl -s "http://127.0.0.1:$HP/" --data-binary 'SELECT 1' 2>/dev/null | grep -q '^1$'; do
	i=$((i + 1)); [ $i -gt 100 ] && { echo "clickhouse: the server did not start"; exit 1; }
	sleep 0.1
done
sql() { curl -s -S "http://127.0.0.1:$HP/" --data-binary "$1"; }
now() { date +%s.%N; }

"$build/vxrecord" -s sim -c "$n" -q -o "$T/t.vxt"
"$build/vxreplay" "$T/t.vxt" --report events --format csv | tail -n +2 >"$T/t.csv"
sql "CREATE DATABASE vx"
sql "CREATE TABLE vx.csv (time UInt64, object String, phase String, op String, flags String,
	sector UInt64, bytes UInt32, latency_ns UInt64, error Int16, errname String, pid UInt32,
	comm String, cpu UInt16) ENGINE = MergeTree() ORDER BY (object, time)"

t0=$(now)
"$build/vxreplay" "$T/t.vxt" --export clickhouse+http://127.0.0.1:$HP/vx.events 2>/dev/null
t1=$(now)
clickhouse-client --port "$TP" -q "INSERT INTO vx.csv FORMAT CSV" <"$T/t.csv"
t2=$(now)
got=$(sql "SELECT count() FROM vx.events")
gotc=$(sql "SELECT count() FROM vx.csv")
awk -v n="$n" -v a="$t0" -v b="$t1" -v c="$t2" -v g="$got" -v gc="$gotc" 'BEGIN {
	printf "clickhouse: %d events: sink %.0f rows/s (%.2fs, %d rows), clickhouse-client CSV %.0f rows/s (%.2fs, %d rows): sink/client %.2f\n",
		n, g / (b - a), b - a, g, gc / (c - b), c - b, gc, (g / (b - a)) / (gc / (c - b)) }'
