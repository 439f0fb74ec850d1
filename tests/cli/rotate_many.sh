#!/bin/sh
# rotate_many.sh - a rotated set of more files than the usual soft limit of
# open files (1024) reads whole: vxreplay takes the hard limit, so a report, a
# glob and --sql over some 1 180 files hold every event of one recording.
. "$VXT_TOP/tests/lib.sh"

[ "$(ulimit -H -n)" = unlimited ] || [ "$(ulimit -H -n)" -gt 1300 ] ||
	{ echo "rotate_many: the hard limit of open files is $(ulimit -H -n)"; exit 77; }
B=$(cd "$B" && pwd)
cd "$T" || exit 1
"$B/vxrecord" -q -s sim --seed 5 -d 1200s --rate 100 --rotate 1s -o r.vxt || fail "record rotated"
"$B/vxrecord" -q -s sim --seed 5 -d 1200s --rate 100 -o one.vxt || fail "record one file"
mkdir set && mv r.*vxt set/
n=$(ls set | wc -l)
[ "$n" -gt 1100 ] && ok "$n rotated files" || fail "only $n rotated files"
want=$("$B/vxreplay" one.vxt --report summary --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
# rep ARGS...: vxreplay under a soft limit of 1024 open files
rep() { sh -c 'ulimit -S -n 1024 && exec "$@"' sh "$B/vxreplay" "$@"; }
rep set --report summary --format json >sum.json || fail "report over the directory"
expect_eq "events of the directory" "$(json sum.json 'j["events"]')" "$want"
rep 'set/r*.vxt' --sql 'select count(*) from events' --format csv >sql.csv || fail "--sql over a glob"
expect_eq "events of --sql over a glob" "$(sed -n 2p sql.csv)" "$want"
finish
