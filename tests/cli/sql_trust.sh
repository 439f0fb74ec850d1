#!/bin/sh
# sql_trust.sh - SQL over files a user did not make: pushdown gives what a
# scan gives whatever the query's collation, the file's clock anchor or its
# times (past 2^63 - 1 ns, which SQL shows negative).
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
# 9.21e18 as a bound, below those 49 (a real bound is not taken for 2^63 - 1)
same "real_ns > 9.21e18" 100 "SELECT count(*) FROM events WHERE real_ns > 9.21e18" "$T/far.vxt"
# time_ns past 2^63 - 1 (SQL shows it negative): the last two events, in a
# chunk with two before them; a signed range is no unsigned one
{ cat "$T/ev.txt"; echo "9223372036854775808 sda 1 0 1 4096 1000 0 dd"
  echo "9223372036854775809 sda 1 0 2 4096 1000 -5 dd"; } > "$T/ev2.txt"
"$gen" -c 17 "$T/neg.vxt" < "$T/ev2.txt" || fail "vxtgen failed"
same "time_ns < 0 past 2^63" 2 "SELECT count(*) FROM events WHERE time_ns < 0" "$T/neg.vxt"
same "time_ns >= 0 past 2^63" 100 "SELECT count(*) FROM events WHERE time_ns >= 0" "$T/neg.vxt"
same "time_ns < 0.5 past 2^63" 2 "SELECT count(*) FROM events WHERE time_ns < 0.5" "$T/neg.vxt"
same "time_ns <= 5e6 past 2^63" 7 "SELECT count(*) FROM events WHERE time_ns <= 5000000" \
	"$T/neg.vxt"
same "time_ns > 95e6 past 2^63" 5 "SELECT count(*) FROM events WHERE time_ns > 95000000" \
	"$T/neg.vxt"
same "time_ns = -2^63 + 1 past 2^63" 1 \
	"SELECT count(*) FROM events WHERE time_ns = -9223372036854775807" "$T/neg.vxt"
same "errors with time_ns < 0 past 2^63" 1 "SELECT count(*) FROM errors WHERE time_ns < 0" \
	"$T/neg.vxt"
same "time_ns between -1 and 1e9 past 2^63" 100 \
	"SELECT count(*) FROM events WHERE time_ns BETWEEN -1 AND 1000000000" "$T/neg.vxt"
# the latency table's bounds compare time_ns as the events table shows it
same "latency(NULL, -1) past 2^63" 2 "SELECT sum(n) FROM latency(NULL, -1)" "$T/neg.vxt"
same "latency(0, NULL) past 2^63" 100 "SELECT sum(n) FROM latency(0, NULL)" "$T/neg.vxt"
same "latency(-2^63 + 1, -1) past 2^63" 1 \
	"SELECT sum(n) FROM latency(-9223372036854775807, -1)" "$T/neg.vxt"
# ... and so do its windows: a time past 2^63 - 1 is in a window before 0,
# aligned to the interval as SQL shows the time (the first window starts at
# -2^63 when its multiple is below that); rows in window order (as text: the
# CSV output quotes a leading minus). The reference: Python's floor division
# over the events report's times.
{ cat "$T/ev2.txt"; echo "18446744073704551616 sda 1 0 3 4096 1000 0 dd"
  echo "18446744073708551615 sda 1 0 4 4096 1000 0 dd"
  echo "18446744073709551615 sda 1 0 5 4096 1000 0 dd"; } > "$T/ev3.txt"
"$gen" -c 17 "$T/neg3.vxt" < "$T/ev3.txt" || fail "vxtgen failed"
"$B/vxreplay" "$T/neg3.vxt" --report events --format csv > "$T/neg3.csv" || fail "events report"
for iv in 1000000 1024 7 9223372036854775807; do
	python3 - "$T/neg3.csv" $iv > "$T/win.ref" <<'PY'
import csv, sys
iv, n = int(sys.argv[2]), {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["phase"] != "done" or (r["latency_ns"] == "0" and r["error"] != "0"):
        continue
    t = int(r["time_ns"])
    t = t - 2**64 if t >= 2**63 else t
    w = max(t // iv * iv, -2**63)
    n[w] = n.get(w, 0) + 1
for w in sorted(n):
    print("w=%d n=%d" % (w, n[w]))
PY
	"$B/vxreplay" "$T/neg3.vxt" --sql "SELECT 'w=' || window_ns || ' n=' || n FROM latency(NULL, NULL, $iv)" \
		--format csv 2>&1 | tail -n +2 > "$T/win.sql"
	if [ "$(wc -l < "$T/win.ref")" -ge 2 ] && cmp -s "$T/win.ref" "$T/win.sql"; then
		ok "latency windows of $iv ns past 2^63: $(tr '\n' ' ' < "$T/win.sql")"
	else
		fail "latency windows of $iv ns past 2^63: $(tr '\n' ' ' < "$T/win.sql"), want $(tr '\n' ' ' < "$T/win.ref")"
	fi
done
# an interval that is no whole number of ns below 2^63 is refused, not clamped
for iv in -5 1e19 9223372036854775808.0 2.5; do
	expect_fail "latency interval_ns $iv" 1 "interval_ns must be > 0, in whole ns below 2^63" -- \
		"$B/vxreplay" "$T/neg3.vxt" --sql "SELECT count(*) FROM latency(NULL, NULL, $iv)"
done

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
