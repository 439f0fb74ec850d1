#!/bin/sh
# tracefs_capture.sh - the tracefs source captures every I/O fio does on a
# loop device, and nothing of other devices; SIGINT leaves no instance behind.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
make_loop 64M

start_rec "$T/f.vxt" --source tracefs --objects "$LNAME" -q || finish
inst=$(tracing_dir)/instances/vxrecord-$REC
devnum=$(( $(stat -c 0x%t "$LOOP") << 20 | $(stat -c 0x%T "$LOOP") ))
for e in block_rq_issue block_rq_complete block_rq_requeue block_rq_error; do
	[ -d "$inst/events/block/$e" ] || continue	# block_rq_error: newer kernels
	expect_eq "$e enabled" "$(cat "$inst/events/block/$e/enable")" 1
	expect_eq "kernel filter on $e" "$(cat "$inst/events/block/$e/filter")" "dev == $devnum"
done
# a request-based device only: the bio-level events stay off
for e in block_bio_queue block_bio_complete; do
	expect_eq "$e off" "$(cat "$inst/events/block/$e/enable")" 0
done
expect_eq "trace clock" "$(grep -o '\[[a-z_]*\]' "$inst/trace_clock")" "[mono]"
mono() { python3 -c 'import time; print(time.monotonic_ns())'; }
t0=$(mono)
# I/O on the disk under $T during the capture must not appear
dd if=/dev/zero of="$T/noise" bs=4k count=256 oflag=direct,sync 2>/dev/null
set -- $(fio_run "$LOOP" r randread 1500)
reads=$1
set -- $(fio_run "$LOOP" w randwrite 1000)
writes=$2
set -- $(fio_run "$LOOP" rw randrw 800)
reads=$((reads + $1)) writes=$((writes + $2))
dd if=/dev/zero of="$T/noise" bs=4k count=256 oflag=direct,sync 2>/dev/null
t1=$(mono)
sleep 0.5
pid=$REC
stop_rec INT
expect_eq "vxrecord exit status after SIGINT" "$RC" 0
instance_exists "vxrecord-$pid" && fail "instance vxrecord-$pid left behind" ||
	ok "instance vxrecord-$pid removed"

"$B/vxreplay" "$T/f.vxt" --report summary --format json >"$T/sum.json" || fail "vxreplay summary"
"$B/vxreplay" "$T/f.vxt" --report objects --format json >"$T/obj.json" || fail "vxreplay objects"
expect_eq "completed reads (fio issued $reads)" "$(json "$T/sum.json" 'j["reads"]')" "$reads"
expect_eq "completed writes (fio issued $writes)" "$(json "$T/sum.json" 'j["writes"]')" "$writes"
expect_eq "starts" "$(json "$T/sum.json" 'j["starts"]')" $((reads + writes))
expect_eq "bytes" "$(json "$T/sum.json" 'j["bytes"]')" $(((reads + writes) * 4096))
expect_eq "errors" "$(json "$T/sum.json" 'j["errors"]')" 0
expect_eq "lost" "$(json "$T/sum.json" 'j["lost"]')" 0
expect_eq "events within CLOCK_MONOTONIC of the run" \
	"$(json "$T/sum.json" 'int('$t0' <= j["start_ns"] <= j["end_ns"] <= '$t1')')" 1
expect_eq "objects seen" "$(json "$T/obj.json" '",".join(o["object"] for o in j)')" "$LNAME"
"$B/vxreplay" "$T/f.vxt" --report events --format csv >"$T/ev.csv"
expect_eq "done events without latency" \
	"$(awk -F, '$3 == "done" && $8 == 0' "$T/ev.csv" | wc -l)" 0
expect_eq "issuer named on completions" \
	"$(awk -F, '$3 == "done" && $12 != "fio"' "$T/ev.csv" | wc -l)" 0
finish
