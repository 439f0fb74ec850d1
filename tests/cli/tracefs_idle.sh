#!/bin/sh
# tracefs_idle.sh - on the tracefs source, a completion a ring overrun took
# leaves no I/O in flight. fio runs randrw at iodepth 16 on a loop device
# while the reader, with 16 KiB rings, is stopped for 2 s (the rings
# overrun), then the device rests. The reference is the block layer's own
# count, /sys/block/DEV/inflight: 0 0 once fio is done.
# - A capture: each start in the file (paired FIFO by object, op and sector
#   in the text report, by brute force here) ends in its completion or in a
#   lost event naming it ("LOST the completion of ..."); none is left open,
#   and some were closed so (the overrun took completions); the summary's
#   closed_by_loss counts those same I/Os, and its lost total is the sum of
#   the overruns' rows (a completion is not counted twice).
# - Live vxtop -b (16 KiB rings, stopped as long): two
#   intervals after fio, the device's row shows
#   in_flight 0 and util 0, and its /metrics' vxtrace_io_in_flight is 0;
#   the I/Os it closed by loss (closed_by_loss_total) are the summary's of
#   its own recording (-o).
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs

TOP=
idle_cleanup() {
	[ -n "$TOP" ] && kill -9 "$TOP" 2>/dev/null
	cleanup
}
trap idle_cleanup EXIT

make_loop 256M
# fio_stalling PID: fio randrw for 4 s, PID stopped from its second 1 to 3
fio_stalling() {
	fio --name=idle --filename="$LOOP" --direct=1 --rw=randrw --bs=4k --ioengine=libaio \
		--iodepth=16 --time_based --runtime=4 --size=200M --output-format=json \
		>"$T/fio.json" 2>"$T/fio.err" &
	fio=$!
	sleep 1
	kill -STOP "$1"
	sleep 2
	kill -CONT "$1"
	wait $fio || fail "fio: $(cat "$T/fio.err")"
	expect_eq "the block layer's count in flight after fio" \
		"$(tr -s ' ' <"/sys/block/$LNAME/inflight" | sed 's/^ //')" "0 0"
}

# the capture
start_rec "$T/t.vxt" --source tracefs --objects "$LNAME" --bufsize 16k -q || finish
fio_stalling "$REC"
sleep 2	# rounds at rest find the issues whose completion was lost
stop_rec INT
expect_eq "vxrecord exit status" "$RC" 0
"$B/vxreplay" "$T/t.vxt" --report events >"$T/ev.txt" || fail "events"
set -- $(awk '
$2 == "LOST" && $3 == "the" { k = $6 SUBSEP $7 SUBSEP $8
	if (q[k] > 0) { q[k]--; closed++ } else stray++; next }
$2 == "LOST" { lost += $3; next }
{ k = $2 SUBSEP $4 SUBSEP $5 }
$3 == "start" { q[k]++; starts++; next }
$3 == "done" && q[k] > 0 { q[k]-- }
END { for (k in q) left += q[k]; print starts + 0, left + 0, closed + 0, stray + 0, lost + 0 }' "$T/ev.txt")
[ "$5" -gt 0 ] || skip "no ring overrun with 16 KiB rings and the reader stopped 2 s"
[ "$1" -gt 1000 ] || fail "only $1 starts captured"
expect_eq "starts left open at rest (of $1; $5 events lost to overruns)" "$2" 0
[ "$3" -gt 0 ] && ok "$3 starts closed by a lost event naming them" ||
	fail "no start closed by a lost event, $5 events lost to overruns"
expect_eq "lost events naming a start not open" "$4" 0
# the summary's stats close the same I/Os, each once (closed_by_loss)
"$B/vxreplay" "$T/t.vxt" --report summary --format json >"$T/sum.json" || fail "summary"
# (a lost event naming its I/O that comes more than 0.5 s after the ring's
# gap finds that I/O closed by the gap's rule already: it closes nothing
# more, not the next start of the same object, op and sector)
expect_eq "the summary's I/Os closed by loss" "$(json "$T/sum.json" 'j["closed_by_loss"]')" "$3"
# a lost event naming its I/O stands for a completion the overrun's own lost
# row already counted: the file's lost total is the overruns' alone
expect_eq "the summary's lost events (the overruns' rows alone)" "$(json "$T/sum.json" 'j["lost"]')" "$5"

# live vxtop
"$B/vxtop" -b -F jsonl -i 1 -c 11 -s tracefs --bufsize 16k --objects "$LNAME" \
	--listen 127.0.0.1:0 -o "$T/top.vxt" >"$T/top.jsonl" 2>"$T/top.err" &
TOP=$!
url=$(metrics_url "$T/top.err")
[ -n "$url" ] || { fail "vxtop did not serve: $(cat "$T/top.err")"; finish; }
fio_stalling "$TOP"
end=$(date +%s.%N)
sleep 3
scrape "$url" >"$T/metrics.txt" || fail "scrape vxtop"
expect_eq "/metrics' vxtrace_io_in_flight of $LNAME 3 s after fio" \
	"$(in_flight_metric "$T/metrics.txt")" 0
wait $TOP
expect_eq "vxtop exit status" $? 0
TOP=
lost=$(python3 -c 'import json, sys
print(max(json.loads(l)["lost_total"] for l in open(sys.argv[1])))' "$T/top.jsonl")
echo "vxtop: $lost events lost"
closed=$(python3 -c 'import json, sys
print(max(json.loads(l)["closed_by_loss_total"] for l in open(sys.argv[1])))' "$T/top.jsonl")
"$B/vxreplay" "$T/top.vxt" --report summary --format json >"$T/topsum.json" || fail "summary of -o"
expect_eq "vxtop's I/Os closed by loss, against the summary of its recording" "$closed" \
	"$(json "$T/topsum.json" 'j["closed_by_loss"]')"
late_busy "$T/top.jsonl" "$end" >"$T/after.txt" || fail "vxtop's intervals: $(cat "$T/after.txt")"
expect_eq "vxtop rows busy two intervals after fio" "$(grep -c '^busy' "$T/after.txt")" 0
late=$(sed -n 's/^intervals //p' "$T/after.txt")
[ "${late:-0}" -ge 1 ] || fail "only ${late:-0} intervals two intervals after fio"
finish
