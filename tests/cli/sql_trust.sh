#!/bin/sh
# sql_trust.sh - SQL over files a user did not make: pushdown gives what a
# scan gives whatever the query's collation or the file's clock anchor.
. "${VXT_TOP:-.}/tests/lib.sh"
f=$T/t.vxt
"$B/vxrecord" -q -s sim -d 2s --rate 5000 --seed 7 --sim-errors 'sda@0.5+20:EIO' -o "$f" ||
	{ echo "vxrecord failed"; exit 1; }

# same WHAT WANT QUERY FILE...: QUERY's one value is WANT, pushdown on and off
same() {
	what=$1 want=$2 q=$3; shift 3
	on=$("$B/vxreplay" "$@" --sql "$q" --format csv 2>&1 | tail -n 1)
	off=$(VXT_SQL_PUSHDOWN=0 "$B/vxreplay" "$@" --sql "$q" --format csv 2>&1 | tail -n 1)
	expect_eq "$what (no pushdown)" "$off" "$want"
	expect_eq "$what (pushdown)" "$on" "$want"
}

# --- a collation other than BINARY is SQLite's to apply -----------------------
sda=$("$B/vxreplay" "$f" --sql "SELECT count(*) FROM events WHERE object = 'sda'" --format csv |
	tail -n 1)
[ "$sda" -gt 0 ] || fail "no events of sda"
same "object = 'SDA' COLLATE NOCASE" "$sda" \
	"SELECT count(*) FROM events WHERE object = 'SDA' COLLATE NOCASE" "$f"
same "object COLLATE NOCASE IN ('SDA')" "$sda" \
	"SELECT count(*) FROM events WHERE object COLLATE NOCASE IN ('SDA', 'nothing')" "$f"
same "errors of object = 'SDA' COLLATE NOCASE" 20 \
	"SELECT count(*) FROM errors WHERE object = 'SDA' COLLATE NOCASE AND error != 0" "$f"
same "ios of object = 'Sda' COLLATE NOCASE" "$(($("$B/vxreplay" "$f" --sql \
	"SELECT count(*) FROM ios WHERE object = 'sda'" --format csv | tail -n 1)))" \
	"SELECT count(*) FROM ios WHERE object = 'Sda' COLLATE NOCASE" "$f"

# --- a clock anchor that puts events before 1970, or past 2^63 ns -------------
b=$B tmp=$T
. "${VXT_TOP:-.}/tests/cli/vxtgen.inc"
i=1
while [ $i -le 100 ]; do
	echo "$((i * 1000000)) sda 1 0 $i 4096 1000 0 dd"
	i=$((i + 1))
done > "$T/ev.txt"
# real_ns = time_ns - 2e18 + 1: every event near 1906
"$gen" -c 10 -a 2000000000000000000,1 "$T/old.vxt" < "$T/ev.txt" || fail "vxtgen failed"
same "real_ns > 0 before 1970" 0 "SELECT count(*) FROM events WHERE real_ns > 0" "$T/old.vxt"
same "real_ns < 0 before 1970" 100 "SELECT count(*) FROM events WHERE real_ns < 0" "$T/old.vxt"
same "real_ns >= -1e18 before 1970" 0 \
	"SELECT count(*) FROM events WHERE real_ns >= -1000000000000000000" "$T/old.vxt"
same "real_ns in a range before 1970" 10 "SELECT count(*) FROM events WHERE
	real_ns BETWEEN -1999999999948999999 AND -1999999999939999999" "$T/old.vxt"
same "real_ns < 0.5 before 1970" 100 "SELECT count(*) FROM events WHERE real_ns < 0.5" \
	"$T/old.vxt"
# real_ns = time_ns + 2^63 - 50000001: the last 50 events past 2^63 - 1
"$gen" -c 10 -a 1,9223372036804775808 "$T/far.vxt" < "$T/ev.txt" || fail "vxtgen failed"
same "real_ns = 2^63 - 1" 51 "SELECT count(*) FROM events WHERE real_ns = 9223372036854775807" \
	"$T/far.vxt"
same "real_ns < 2^63 - 1" 49 "SELECT count(*) FROM events WHERE real_ns < 9223372036854775807" \
	"$T/far.vxt"

# --- an empty latency table (under UBSan: no qsort_r() of NULL) ----------------
same "latency rows from_ns > to_ns" 0 "SELECT count(*) FROM latency(10, 5)" "$f"

# --- no statement creates or opens a file: ATTACH, VACUUM INTO ----------------
ln -s "$T/victim" "$T/link.db"
for q in "ATTACH '$T/a.db' AS a" "ATTACH '$T/link.db' AS a; CREATE TABLE a.x(y)" \
	 "VACUUM INTO '$T/v.db'" "VACUUM INTO '$T/link.db'" \
	 "SELECT 1; ATTACH 'file:$T/u.db?mode=rwc' AS u"; do
	expect_fail "--sql $q" 1 "ATTACH and VACUUM INTO are refused" -- \
		"$B/vxreplay" "$f" --sql "$q"
done
for x in a.db v.db victim u.db; do
	[ -e "$T/$x" ] && fail "--sql created $x"
done
expect_eq "CREATE TEMP TABLE still works" "$("$B/vxreplay" "$f" --sql "CREATE TEMP TABLE x AS
	SELECT count(*) AS n FROM errors; SELECT n FROM x" --format csv | tail -n 1)" 20

finish
