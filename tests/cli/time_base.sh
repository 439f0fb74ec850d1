#!/bin/sh
# time_base.sh - every output counts time from the file's start: the HTML
# report shows the same error at the same time as the text report, with or
# without --objects and --from (the reference computed here from the events'
# time_ns and the file's first event); --info and the HTML report show the
# creation date with its zone offset, the errors report a date with each time
# of day, which --from reads back.
. "$VXT_TOP/tests/lib.sh"
export TZ=UTC

"$B/vxrecord" -q -s sim --seed 5 -d 5s --rate 4000 -o "$T/t.vxt" || { fail "record"; finish; }
rep() { "$B/vxreplay" "$T/t.vxt" "$@"; }
rep --report events --format csv >"$T/ev.csv" || fail "events csv"
base=$(awk -F, 'NR == 2 { print $1 }' "$T/ev.csv")
# rel NS: seconds from the file's first event, as the reports print them
rel() { awk -v t="$1" -v b="$base" 'BEGIN { d = t - b; printf "%d.%09d\n", d / 1e9, d % 1e9 }'; }
# the first error at or after 0.5 s, and the first of its object
first=$(awk -F, -v b="$base" 'NR > 1 && $9 != 0 && $1 - b >= 5e8 { print $1 "," $2; exit }' "$T/ev.csv")
e_ns=${first%,*} obj=${first#*,}
f_ns=$(awk -F, -v o="$obj" 'NR > 1 && $9 != 0 && $2 == o { print $1; exit }' "$T/ev.csv")
[ -n "$e_ns" ] && [ -n "$f_ns" ] || { fail "no errors in the trace"; finish; }
want_e=$(rel "$e_ns") want_f=$(rel "$f_ns")

# html_first FILE: the time of the first row of the HTML error table
html_first() { sed -n 's|^<tr><td>\([0-9.]*\)</td><td>.*|\1|p' "$1" | head -n 1; }
rep --report html --from 0.5 -o "$T/from.html" || fail "html --from"
expect_eq "html --from 0.5: first error" "$(html_first "$T/from.html")" "$want_e"
rep --report html --from 0.5 --objects "$obj" -o "$T/from-obj.html" || fail "html --from --objects"
expect_eq "html --from 0.5 --objects $obj: first error" "$(html_first "$T/from-obj.html")" "$want_e"
rep --report html --objects "$obj" -o "$T/obj.html" || fail "html --objects"
expect_eq "html --objects $obj: first error" "$(html_first "$T/obj.html")" "$want_f"
expect_eq "text --from 0.5: first error" \
	"$(rep --report errors --from 0.5 | awk 'NR == 2 { print $1 }')" "$want_e"
expect_eq "text --objects $obj: first error" \
	"$(rep --report errors --objects "$obj" | awk 'NR == 2 { print $1 }')" "$want_f"

# dates where a time of day is shown (the simulator's clock starts 2026-01-01 00:00 UTC)
expect_eq "--info created" "$(rep --info 2>/dev/null | sed -n 's/^created: *\([^(]*\) (.*/\1/p')" \
	"2026-01-01 00:00:00.000000 +0000"
expect_eq "--info created, TZ=Asia/Tokyo" \
	"$(TZ=Asia/Tokyo "$B/vxreplay" --info "$T/t.vxt" | sed -n 's/^created: *\([^(]*\) (.*/\1/p')" \
	"2026-01-01 09:00:00.000000 +0900"
grep -q 'created 2026-01-01 00:00:00.000000 +0000' "$T/obj.html" && ok "html: the creation date" ||
	fail "html: no creation date"
wall=$(rep --report errors | awk 'NR == 2 { print $2 }')
case $wall in
2026-01-01T00:00:0[0-9].[0-9][0-9][0-9][0-9][0-9][0-9]) ok "errors report: date and time ($wall)" ;;
*) fail "errors report: wall column '$wall' has no date" ;;
esac
expect_eq "--from reads the wall column back" \
	"$(rep --report errors --from "$wall" | awk 'NR == 2 { print $2 }')" "$wall"
finish
