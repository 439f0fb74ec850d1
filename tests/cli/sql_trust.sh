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

finish
