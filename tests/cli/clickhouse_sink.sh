#!/bin/sh
# clickhouse_sink.sh - a real clickhouse-server (Debian's, started here on
# 127.0.0.1 with a config and data directory of its own) receives a trace:
# `SELECT count(), countIf(error != 0) ... FINAL` equals the counts of the
# file (awk over its events), a second export adds nothing, a server killed
# mid-export and restarted loses no row and duplicates none; an unreachable
# server, a 500, a connection closed mid-batch and a table of another schema
# are one line each, and the local file is untouched.
. "${VXT_TOP:?}/tests/lib.sh"

. "$VXT_TOP/tests/cli/clickhouse_env.inc"

# until_rows TABLE PID: wait until TABLE has a row while PID runs; stop PID
# there (SIGSTOP), so what follows comes in the middle of its run whatever
# the machine's speed. @return 1 if PID ended first.
until_rows() {
	until [ "$(sql "SELECT count() FROM $1" 2>/dev/null)" -gt 0 ] 2>/dev/null; do
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.02
	done
	kill -STOP "$2"
}
# kill_restart PID: kill the server while PID holds still; a listener on the
# server's port takes PID's next connection and drops it, so PID's next batch
# fails however fast or slow the machine is; then start the server again
kill_restart() {
	kill -9 $ch_pid
	wait $ch_pid 2>/dev/null
	rm -f "$T/dropped"
	python3 - "$HP" "$T/dropped" <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(8)
open(sys.argv[2], "w").write("listening\n")
s.settimeout(600)
c, _ = s.accept()
c.recv(1000)
c.close()
PY
	drop_pid=$!
	until [ -s "$T/dropped" ]; do
		kill -0 $drop_pid 2>/dev/null || { fail "no listener on $HP: $(cat "$T/dropped" 2>/dev/null)"; break; }
		sleep 0.02
	done
	kill -CONT "$1"
	wait $drop_pid || fail "no connection reached the listener on $HP"
	start_server
}
start_server
URL=clickhouse+http://127.0.0.1:$HP/vx.events

# the reference, from the file's events
"$B/vxrecord" -s sim --seed 4 --rate 4000 -c 20000 -q -o "$T/a.vxt" || fail "vxrecord"
md5=$(md5sum <"$T/a.vxt")
want=$("$B/vxreplay" "$T/a.vxt" --report events --format csv |
	awk -F, 'NR > 1 { n++; if ($9 != 0) e++ } END { printf "%d\t%d\n", n, e }')

"$B/vxreplay" "$T/a.vxt" --export "$URL" --sink-batch 5000 2>"$T/err" ||
	fail "export: $(cat "$T/err")"
expect_eq "rows and errors in ClickHouse" "$(sql "SELECT count(), countIf(error != 0) FROM vx.events FINAL")" "$want"
"$B/vxreplay" "$T/a.vxt" --export "$URL" --sink-batch 5000 2>"$T/err" ||
	fail "second export: $(cat "$T/err")"
expect_eq "a second export adds no row" \
	"$(sql "SELECT count(), countIf(error != 0) FROM vx.events FINAL")" "$want"
expect_eq "one row per (trace, seq)" \
	"$(sql "SELECT uniqExact(trace, seq) FROM vx.events")" "$(echo "$want" | cut -f1)"
# the error rows carry the file's errno and object
fe=$("$B/vxreplay" "$T/a.vxt" --report events --format csv |
	awk -F, 'NR > 1 && $9 != 0 { print $2, $9 }' | sort | uniq -c | awk '{print $2, $3, $1}')
ge=$(sql "SELECT object, error, count() FROM vx.events FINAL WHERE error != 0 GROUP BY object, error ORDER BY object, error FORMAT TabSeparated" | tr '\t' ' ')
expect_eq "errors by object and errno" "$ge" "$fe"

# the shipped schema is the one the sink creates and accepts
sed 's/--.*//' "$VXT_TOP/contrib/clickhouse/schema.sql" | tr '\n' ' ' | tr ';' '\n' |
while read -r stmt; do
	[ -n "$stmt" ] && sql "$stmt"
done
"$B/vxreplay" "$T/a.vxt" --export clickhouse+http://127.0.0.1:$HP/vxtrace.events 2>"$T/err" ||
	fail "export into contrib/clickhouse/schema.sql's table: $(cat "$T/err")"
expect_eq "rows in the schema.sql table" \
	"$(sql "SELECT count(), countIf(error != 0) FROM vxtrace.events FINAL")" "$want"

# a server killed mid-export and restarted: the export retries and completes
"$B/vxrecord" -s sim --seed 8 -c 60000 -q -o "$T/b.vxt" || fail "vxrecord b"
want_b=$("$B/vxreplay" "$T/b.vxt" --report events --format csv |
	awk -F, 'NR > 1 { n++; if ($9 != 0) e++ } END { printf "%d\t%d\n", n, e }')
"$B/vxreplay" "$T/b.vxt" --export clickhouse+http://127.0.0.1:$HP/vx.restart --sink-batch 3000 \
	--sink-retry 120s 2>"$T/err_b" &
ex_pid=$!
until_rows vx.restart $ex_pid || fail "the export ended before a row arrived: $(cat "$T/err_b")"
before=$(sql "SELECT count() FROM vx.restart")
kill_restart $ex_pid
wait $ex_pid || fail "export across a restart: $(cat "$T/err_b")"
[ "${before:-0}" -gt 0 ] && [ "$before" -lt 60000 ] &&
	ok "server killed after $before of 60000 rows" || fail "the kill came at $before rows"
grep -q ' [1-9][0-9]* retries$' "$T/err_b" && ok "the export retried: $(cat "$T/err_b")" ||
	fail "no retry reported: $(cat "$T/err_b")"
expect_eq "rows and errors after the restart" \
	"$(sql "SELECT count(), countIf(error != 0) FROM vx.restart FINAL")" "$want_b"
expect_eq "none duplicated after the restart" \
	"$(sql "SELECT uniqExact(trace, seq) FROM vx.restart")" "$(echo "$want_b" | cut -f1)"

# vxrecord --sink ships the file as it grows; the server killed during the
# recording and restarted: every row arrives once
"$B/vxrecord" -s sim --seed 6 --rate 20000 --realtime -d 3s -o "$T/live.vxt" \
	--sink clickhouse+http://127.0.0.1:$HP/vx.live --sink-batch 2000 --sink-retry 120s 2>"$T/err_l" &
rec_pid=$!
until_rows vx.live $rec_pid || fail "vxrecord ended before a row arrived: $(cat "$T/err_l")"
kill_restart $rec_pid
wait $rec_pid || fail "vxrecord --sink across a restart: $(cat "$T/err_l")"
want_l=$("$B/vxreplay" "$T/live.vxt" --report events --format csv |
	awk -F, 'NR > 1 { n++; if ($9 != 0) e++ } END { printf "%d\t%d\n", n, e }')
expect_eq "vxrecord --sink: rows and errors = the file's" \
	"$(sql "SELECT count(), countIf(error != 0) FROM vx.live FINAL")" "$want_l"
expect_eq "vxrecord --sink: none duplicated" \
	"$(sql "SELECT uniqExact(trace, seq) FROM vx.live")" "$(echo "$want_l" | cut -f1)"
grep -q "shipped to .* ([1-9][0-9]* retries)" "$T/err_l" && ok "$(grep shipped "$T/err_l")" ||
	fail "vxrecord did not retry: $(cat "$T/err_l")"
# the same file exported afterwards adds nothing
"$B/vxreplay" "$T/live.vxt" --export clickhouse+http://127.0.0.1:$HP/vx.live 2>/dev/null
expect_eq "vxrecord --sink then --export: no row twice" \
	"$(sql "SELECT count() FROM vx.live FINAL")" "$(echo "$want_l" | cut -f1)"

# with a profile, only what it keeps is shipped
"$B/vxrecord" -s sim --seed 6 -c 60000 -q --profile errors-in-context -o "$T/kept.vxt" \
	--sink clickhouse+http://127.0.0.1:$HP/vx.kept || fail "vxrecord --profile --sink"
want_k=$("$B/vxreplay" "$T/kept.vxt" --report events --format csv |
	awk -F, 'NR > 1 { n++; if ($9 != 0) e++ } END { printf "%d\t%d\n", n, e }')
expect_eq "vxrecord --profile --sink: the kept events" \
	"$(sql "SELECT count(), countIf(error != 0) FROM vx.kept FINAL")" "$want_k"
[ "$(echo "$want_k" | cut -f1)" -lt 60000 ] && ok "the profile kept $(echo "$want_k" | cut -f1) of 60000" ||
	fail "the profile kept everything"

# bad sinks: one line each, exit 1, nothing lost locally
expect_fail "vxrecord, unreachable" 1 "127.0.0.1:1/vx.t: Couldn't connect to server" -- \
	"$B/vxrecord" -s sim -d 1s -o "$T/u.vxt" --sink clickhouse+http://127.0.0.1:1/vx.t
expect_fail "vxrecord, --sink with --rotate" 2 "--sink and --rotate together" -- \
	"$B/vxrecord" -s sim -d 1s -o "$T/u.vxt" --rotate 1M --sink clickhouse+http://127.0.0.1:1/vx.t
expect_fail "unreachable" 1 "127.0.0.1:1/vx.events: Couldn't connect to server" -- \
	"$B/vxreplay" "$T/a.vxt" --export clickhouse+http://127.0.0.1:1/vx.events
sql "CREATE TABLE vx.wrong (host String, object UInt32, time UInt64) ENGINE = MergeTree() ORDER BY host"
expect_fail "wrong schema" 1 "vx.wrong: wrong schema: column object is UInt32, vxtrace writes String" -- \
	"$B/vxreplay" "$T/a.vxt" --export clickhouse+http://127.0.0.1:$HP/vx.wrong
expect_fail "bad URL" 2 "expected clickhouse+http://HOST:PORT/DB.TABLE" -- \
	"$B/vxreplay" "$T/a.vxt" --export clickhouse+http://127.0.0.1:$HP/events

echo 500 >"$T/mode"
start_proxy "$T/mode"
expect_fail "HTTP 500" 1 "vx.proxied: HTTP 500: Code: 241.*Memory limit exceeded (tried [0-9]* times); 0 of [0-9]* events sent" -- \
	"$B/vxreplay" "$T/a.vxt" --export clickhouse+http://127.0.0.1:$PP/vx.proxied \
	--sink-batch 2000 --sink-retry 1s
echo close >"$T/mode"
expect_fail "closed mid-batch" 1 "vx.proxied: .*(tried [0-9]* times); 0 of [0-9]* events sent" -- \
	"$B/vxreplay" "$T/a.vxt" --export clickhouse+http://127.0.0.1:$PP/vx.proxied \
	--sink-batch 2000 --sink-retry 1s
expect_eq "nothing reached the table" "$(sql "SELECT count() FROM vx.proxied")" "0"
expect_eq "the local file is untouched" "$(md5sum <"$T/a.vxt")" "$md5"
finish
