#!/bin/sh
# vxtop_hostile_time.sh - vxtop --follow on crafted times: times near 2^64 neither
# spin nor deafen it to SIGTERM, times running backwards do not stop its
# output, and on a finished file batch mode reads it through and ends, every
# event counted (the reference is the number of events vxreplay lists).
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
top_pid= gen_pid=
trap '[ -n "$top_pid" ] && kill -9 "$top_pid" 2>/dev/null; [ -n "$gen_pid" ] && kill "$gen_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
. "${VXT_TOP:?}/tests/cli/vxtgen.inc"
cd "$tmp" || { fail "cd $tmp"; finish; }

# EVENTS START COUNT STEP: COUNT start/done pairs from time START, STEP ns apart
events() {
	awk -v t0="$1" -v n="$2" -v step="$3" 'BEGIN {
		for (i = 0; i < n; i++) {
			printf "%.0f sda 0 0 %d 4096 0 0 dd\n", t0 + i * step, i * 8
			printf "%.0f sda 1 0 %d 4096 1000 0 dd\n", t0 + i * step + 1000, i * 8
		}
	}'
}
listed() { "$b/vxreplay" "$1" --report events --format csv | tail -n +2 | wc -l; }
json_sum() { python3 -c 'import json,sys; print(sum(iv["events"] for iv in json.load(open(sys.argv[1]))))' "$1"; }

# a finished file with times near 2^64, and one whose times run backwards
{ events 18446744073709000000 50 1000; } > huge.txt
"$gen" huge.vxt < huge.txt || fail "vxtgen huge.vxt"
{ events 50000000000 100 1000000; events 2000000000 100 1000000; } > back.txt
"$gen" -c 50 back.vxt < back.txt || fail "vxtgen back.vxt"
"$b/vxrecord" -q -s sim --seed 3 -c 20000 -o done.vxt || { fail "vxrecord done.vxt"; finish; }
for f in huge back done; do
	timeout -s KILL 20 "$b/vxtop" -b -i 1s --format json --follow $f.vxt > $f.json 2> $f.err
	rc=$?
	[ $rc -ne 137 ] || fail "vxtop -b --follow $f.vxt did not end at the end of the file"
	[ $rc -eq 0 ] || fail "vxtop -b --follow $f.vxt exit $rc: $(cat $f.err)"
	want=$(listed $f.vxt) got=$(json_sum $f.json)
	[ "$got" -eq "$want" ] || fail "vxtop -b --follow $f.vxt counted $got events, the file has $want"
	ok "$f.vxt read through, $got events"
done

# following a growing file: a chunk of ordinary times, one running 48 s
# backwards, one near 2^64, then ordinary times again
now=$(awk '{ printf "%.0f", $1 * 1e9 }' /proc/uptime)
{
	echo "sleep 1500"
	events $((now + 2000000000)) 100 1000000; echo "sleep 1500"
	events $((now - 48000000000)) 100 1000000; echo "sleep 1500"
	events 18446744073709000000 100 1000; echo "sleep 1500"
	events $((now + 6000000000)) 100 1000000; echo "sleep 4000"
} > grow.txt
"$b/vxtop" -b -i 500ms --follow grow.vxt > grow.out 2> grow.err &
top_pid=$!
"$gen" -c 200 grow.vxt < grow.txt &
gen_pid=$!
wait "$gen_pid"
gen_pid=
kill -TERM "$top_pid"
i=0
while kill -0 "$top_pid" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$top_pid" 2>/dev/null && fail "vxtop --follow ignores SIGTERM after times near 2^64"
wait "$top_pid"
top_pid=
seen=$(awk '/ events [0-9]+ / { for (i = 1; i < NF; i++) if ($i == "events") n += $(i + 1) } END { print n + 0 }' grow.out)
# every event counts, those after times ran backwards or jumped to 2^64 too
[ "$seen" -eq 800 ] || fail "following: $seen of the 800 events shown (times running backwards or past 2^64 dropped?)"
[ $fails = 0 ] && ok "following a file through backwards and near-2^64 times ($seen events shown), SIGTERM obeyed"
finish
