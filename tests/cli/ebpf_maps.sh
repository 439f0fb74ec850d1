#!/bin/sh
# ebpf_maps.sh - per-object counts and latency histograms kept in BPF maps:
# `vxrecord --source ebpf --listen` serves /metrics from the maps, counted
# from the very records it writes: its completions, bytes and latency
# histogram (bucket by bucket) equal the capture's events counted with awk
# and fio's own count of I/Os. `vxtop --maps` (no event crosses) sees the
# same fio run: completions and bytes per op exactly, as many latencies
# (another program reads the clock for it, so a latency near a bucket bound
# may fall on the other side: buckets are compared only through the
# capture's recorder) whose sum is the capture's within 1 us an I/O (an
# issue paired with the wrong completion, or a stale issue, is off by whole
# I/Os), and its table's reads over its intervals add up to fio's;
# `promtool check metrics` is clean on both; --maps with what needs events
# is a usage error.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_ebpf

expect_fail "--maps with -o" 2 "--maps counts in the kernel and sees no events: not with -o" -- \
	"$B/vxtop" --maps -b -c 1 -o "$T/x.vxt"
expect_fail "--maps with --filter" 2 "not with --filter" -- \
	"$B/vxtop" --maps -b -c 1 --filter 'op == read'
expect_fail "--maps with another source" 2 "source sim cannot count in the kernel; that needs --source ebpf" -- \
	"$B/vxtop" --maps -b -c 1 --source sim

make_loop 64M
# one request per fio I/O: a merge of two writes in the queue would make one completion of them
echo 2 >"/sys/block/$LNAME/queue/nomerges" || skip "cannot turn off merges on $LNAME"
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
# the kernel sometimes runs a block tracepoint without our programs: a run
# in which either recorder missed such events cannot match fio's counts and
# is made again (the capture's closing line, without -q, names them; vxtop
# counts them as lost); any other loss fails at once
. "$VXT_TOP/tests/cli/ebpf_lost.inc"
top_lost() {
	python3 -c 'import json, sys
print(max([json.loads(l)["lost_total"] for l in open(sys.argv[1]) if l.strip()] or [0]))' "$1"
}
capture() {
	rm -f "$T/f.vxt"
	rport=$(free_port)
	start_rec "$T/f.vxt" --source ebpf --objects "$LNAME" --listen 127.0.0.1:$rport || finish
	"$B/vxtop" --maps -b -F jsonl -i 500ms -c 100000 --objects "$LNAME" --listen 127.0.0.1:0 \
		>"$T/top.jsonl" 2>"$T/top.err" &
	TOP=$!
	i=0
	while ! grep -q 'metrics on http' "$T/top.err" && [ $i -lt 600 ]; do
		kill -0 $TOP 2>/dev/null || break
		sleep 0.1; i=$((i + 1))
	done
	port=$(sed -n 's/.*metrics on http:.*:\([0-9]*\)\/metrics.*/\1/p' "$T/top.err")
	[ -n "$port" ] || { fail "vxtop --maps did not serve: $(cat "$T/top.err")"; finish; }
	set -- $(fio_run "$LOOP" r randread 3000)
	reads=$1
	set -- $(fio_run "$LOOP" w randwrite 2000)
	writes=$2
	sleep 1.2	# an interval closes and a publication is due
	scrape "http://127.0.0.1:$port/metrics" >"$T/top.txt" || fail "scrape vxtop"
	scrape "http://127.0.0.1:$rport/metrics" >"$T/rec.txt" || fail "scrape vxrecord"
	kill -INT $TOP; wait $TOP
	expect_eq "vxtop --maps exit status" $? 0
	stop_rec INT
}
capture_lost() { top_lost "$T/top.jsonl"; }
lat_sum() {	# lat_sum SCRAPE OP: the D2C histogram's sum, in ns
	awk -v o="$2" -v d="$LNAME" '
		index($0, "vxtrace_io_d2c_seconds_sum{object=\"" d "\",op=\"" o "\"}") == 1 {
			printf "%.0f\n", $2 * 1e9 }' "$1"
}
whole_capture "$T/f.vxt:$T/rec.err"

"$B/vxreplay" "$T/f.vxt" --report events --format csv >"$T/ev.csv"
m() {	# m FILE NAME OP: a sample of a scrape for the loop device
	awk -v n="$2" -v o="$3" -v d="$LNAME" '
		index($0, n "{object=\"" d "\",op=\"" o "\"}") == 1 { print $2 }' "$1"
}
expect_eq "completed reads in the capture (fio did $reads)" \
	"$(awk -F, '$3 == "done" && $4 == "read"' "$T/ev.csv" | wc -l)" "$reads"
# the capture's latencies per op in the buckets le = 2^k us (k = 0..24),
# cumulative, then +Inf
for op in read write; do
	awk -F, -v o=$op '$3 == "done" && $4 == o && $8 > 0 {
		us = int(($8 + 999) / 1000); k = 0; b = 1
		while (b < us && k < 25) { b *= 2; k++ }
		n[k]++ }
		END { c = 0; for (k = 0; k <= 25; k++) { c += n[k]; print c } }' "$T/ev.csv" \
		>"$T/want.$op"
done
for who in rec top; do
	f=$T/$who.txt
	expect_eq "$who: completed reads (fio did $reads)" "$(m "$f" vxtrace_io_completed_total read)" "$reads"
	expect_eq "$who: completed writes (fio did $writes)" "$(m "$f" vxtrace_io_completed_total write)" "$writes"
	expect_eq "$who: read bytes" "$(m "$f" vxtrace_io_bytes_total read)" \
		"$(awk -F, '$3 == "done" && $4 == "read" { s += $7 } END { print s + 0 }' "$T/ev.csv")"
	expect_eq "$who: written bytes" "$(m "$f" vxtrace_io_bytes_total write)" \
		"$(awk -F, '$3 == "done" && $4 == "write" { s += $7 } END { print s + 0 }' "$T/ev.csv")"
	expect_eq "$who: in flight after the run" "$(m "$f" vxtrace_io_in_flight read)" 0
	for op in read write; do
		awk -v o=$op -v d="$LNAME" '
			index($0, "vxtrace_io_d2c_seconds_bucket{object=\"" d "\",op=\"" o "\",le=") == 1 {
				print $2 }' "$f" >"$T/got.$who.$op"
		expect_eq "$who: $op latencies" "$(tail -n 1 "$T/got.$who.$op")" "$(tail -n 1 "$T/want.$op")"
	done
	if command -v promtool >/dev/null; then
		expect_eq "$who: promtool check metrics" "$(promtool check metrics <"$f" 2>&1)" ""
	else
		ok "skipped promtool check metrics: no promtool"
	fi
done
for op in read write; do
	expect_eq "rec: $op histogram, bucket by bucket (cumulative)" \
		"$(tr '\n' ' ' <"$T/got.rec.$op")" "$(tr '\n' ' ' <"$T/want.$op")"
	set -- $(awk -F, -v o=$op '$3 == "done" && $4 == o { s += $8; n++ }
		END { printf "%.0f %d", s, n }' "$T/ev.csv")
	want=$1 n=$2
	for who in rec top; do
		got=$(lat_sum "$T/$who.txt" $op)
		expect_eq "$who: $op latencies' sum ($got ns) within $n us of the capture's ($want ns)" \
			"$(awk -v g="${got:-0}" -v w="$want" -v n="$n" 'BEGIN { d = g - w; if (d < 0) d = -d
				print (n > 0 && d <= n * 1000) ? "yes" : "no" }')" yes
	done
done

# the table: the intervals' completions add up to fio's
expect_eq "vxtop --maps reads over its intervals" "$(python3 -c 'import json, sys
print(round(sum(o["r_s"] * j["duration_s"] for l in open(sys.argv[1])
	for j in [json.loads(l)] for o in j["objects"])))' "$T/top.jsonl")" "$reads"

finish
