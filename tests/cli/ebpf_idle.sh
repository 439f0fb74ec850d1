#!/bin/sh
# ebpf_idle.sh - live views on the ebpf source go idle after the I/O ends,
# whatever completions were lost. The programs skip every 701st completion
# on purpose (VXT_EBPF_SKIP_DONE, as the kernel sometimes runs the
# tracepoint without them), fio runs randrw at iodepth 16 beside `vxtop -b
# --listen` (on events, then with --maps), then the device rests. The reference is the block layer's own
# count, /sys/block/DEV/inflight: 0 0 once fio is done. Within two
# intervals of that, vxtop's row shows in_flight 0 and util 0, and
# /metrics' vxtrace_io_in_flight is 0 for the device; the completions it
# lost are counted lost, and a capture of the same kind holds each as a
# lost event naming its I/O: issues = completions + lost, while vxtop
# --follow on that file goes idle as well. Before fio the
# idle device has its row of zeros, as in iostat; an unknown device is
# refused with the names sysfs lists.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_ebpf

TOP=
idle_cleanup() {
	[ -n "$TOP" ] && kill "$TOP" 2>/dev/null
	cleanup
}
trap idle_cleanup EXIT

make_loop 256M
# a device that does not exist: the error lists those that do, as sysfs has them
expect_fail "an unknown object" 2 "no such block device (block devices here: $(ls /sys/class/block | sort | head -3 | tr '\n' ',' | sed 's/,$//; s/,/, /g')" -- \
	"$B/vxtop" -b -c 1 -s ebpf --objects nosuchdisk9
# idle_after MODE ARGS...: vxtop with ARGS beside fio, then at rest
idle_after() {
	mode=$1
	shift
	# a vxtop that ends before serving is said with its status and output,
	# and started once more: what this test checks is the device going idle
	# after fio, not the start (a start that fails twice still fails it)
	for try in 1 2; do
		VXT_EBPF_SKIP_DONE=701 "$B/vxtop" "$@" -b -F jsonl -i 1 -c 14 -s ebpf \
			--objects "$LNAME" --listen 127.0.0.1:0 >"$T/top.jsonl" 2>"$T/top.err" &
		TOP=$!
		url=$(metrics_url "$T/top.err")	# vxtop runs 14 s
		[ -n "$url" ] && break
		wait $TOP
		echo "$mode: vxtop ended before serving (try $try, exit $?): $(cat "$T/top.err") $(head -c 300 "$T/top.jsonl")"
		TOP=
		sleep 1
	done
	[ -n "$url" ] || { fail "$mode: vxtop did not serve: $(cat "$T/top.err")"; finish; }
	sleep 1
	fio --name=idle --filename="$LOOP" --direct=1 --rw=randrw --bs=4k --ioengine=libaio \
		--iodepth=16 --time_based --runtime=3 --size=200M --output-format=json \
		>"$T/fio.json" 2>"$T/fio.err" || fail "fio: $(cat "$T/fio.err")"
	end=$(date +%s.%N)
	expect_eq "$mode: the block layer's count in flight after fio" "$(cat "/sys/block/$LNAME/inflight" | tr -s ' ' | sed 's/^ //')" "0 0"
	sleep 3
	scrape "$url" >"$T/metrics.txt" || fail "scrape vxtop"
	expect_eq "$mode: vxtrace_io_in_flight of $LNAME 3 s after fio" "$(in_flight_metric "$T/metrics.txt")" 0
	wait $TOP
	expect_eq "$mode: vxtop exit status" $? 0
	TOP=

	late_busy "$T/top.jsonl" "$end" >"$T/after.txt" || fail "$mode: vxtop's intervals: $(cat "$T/after.txt")"
	expect_eq "$mode: vxtop rows busy two intervals after fio" "$(grep -c '^busy' "$T/after.txt")" 0
	expect_eq "$mode: vxtop's first interval, before fio: the idle device's row, as iostat's zeros" \
		"$(head -1 "$T/top.jsonl" | json /dev/stdin '[(o["name"], o["r_s"], o["in_flight"]) for o in j["objects"]]')" \
		"[('$LNAME', 0.0, 0)]"
	late=$(sed -n 's/^intervals //p' "$T/after.txt")
	[ "${late:-0}" -ge 3 ] || fail "$mode: only ${late:-0} intervals two intervals after fio"
	lost=$(sed -n 's/^lost //p' "$T/after.txt")
	[ "${lost:-0}" -ge 10 ] || fail "$mode: vxtop counted ${lost:-0} lost completions; fio's I/Os over 701 skipped"

}
idle_after events
idle_after maps --maps

# a capture: each skipped completion is a lost event naming its I/O
export VXT_EBPF_SKIP_DONE=701
start_rec "$T/e.vxt" --source ebpf --objects "$LNAME" || finish
unset VXT_EBPF_SKIP_DONE
"$B/vxtop" --follow "$T/e.vxt" -b -F jsonl -i 1 -c 7 >"$T/follow.jsonl" 2>"$T/follow.err" &
TOP=$!
set -- $(fio_run "$LOOP" r randread 3000)
end=$(date +%s.%N)
sleep 4	# a round after the last I/O finds a skipped completion of it
stop_rec INT
expect_eq "vxrecord exit status" "$RC" 0
wait $TOP
expect_eq "vxtop --follow exit status" $? 0
TOP=
late_busy "$T/follow.jsonl" "$end" >"$T/after.txt" || fail "vxtop --follow's intervals"
expect_eq "vxtop --follow rows busy two intervals after fio" "$(grep -c '^busy' "$T/after.txt")" 0
late=$(sed -n 's/^intervals //p' "$T/after.txt")
[ "${late:-0}" -ge 1 ] || fail "vxtop --follow: only ${late:-0} intervals two intervals after fio"
lost=$(sed -n 's/^lost //p' "$T/after.txt")
[ "${lost:-0}" -ge 4 ] || fail "vxtop --follow saw ${lost:-0} lost completions of the 4 skipped"
"$B/vxreplay" "$T/e.vxt" --report events --format csv >"$T/ev.csv" || fail "events"
python3 - "$T/ev.csv" "$LNAME" >"$T/named.txt" <<'EOF'
import csv, sys
starts = dones = named = 0
for r in csv.DictReader(open(sys.argv[1])):
    if r["phase"] == "start": starts += 1
    elif r["phase"] == "done": dones += 1
    elif r["phase"] == "lost" and r["object"] == sys.argv[2]: named += int(r["sector"])
print(starts, dones, named)
EOF
set -- $(cat "$T/named.txt")
expect_eq "fio's reads issued in the capture" "$1" 3000
expect_eq "completions + lost events naming their I/O" $(($2 + $3)) 3000
[ "$3" -ge 4 ] || fail "only $3 completions skipped out of 3000 (every 701st)"
grep -Eq "$3 completions? lost: the kernel ran the block_rq_complete tracepoint .*\\($LNAME $3;" \
	"$T/rec.err" || fail "the closing line names $3 lost completions on $LNAME: $(cat "$T/rec.err")"
finish
