#!/bin/sh
# tracefs_ops.sh - every op the tracefs source records on a loop device
# equals the kernel's own count of it (/sys/block/loopN/stat: reads,
# discards, flushes) or the workload's (writes, write-zeroes: the kernel
# also counts the empty write that carries each fsync's flush), and every
# completion is paired with its issue: a flush completes as a flush, with
# its latency. VXT_OPS_SOURCE=ebpf runs the same checks on the ebpf source
# (tests/cli/ebpf_ops.sh).
SRC=${VXT_OPS_SOURCE:-tracefs}
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
command -v blkdiscard >/dev/null || skip "no blkdiscard (util-linux)"
make_loop 64M
[ "$(cat "/sys/block/$LNAME/queue/discard_max_bytes")" -gt 0 ] ||
	skip "the loop device takes no discards here"

# the kernel's counters of the device: reads writes discards flushes
kstat() { awk '{ print $1, $5, $12, $16 }' "/sys/block/$LNAME/stat"; }

if [ "$SRC" = ebpf ]; then
	[ -r /sys/kernel/btf/vmlinux ] || skip "the kernel has no BTF"
	grep -q 'this build has no BPF programs' "$B/vxrecord" && skip "built without the ebpf source"
fi
start_rec "$T/o.vxt" --source "$SRC" --objects "$LNAME" -q || finish
set -- $(kstat)
r0=$1 d0=$3 f0=$4
for i in 1 2 3; do	# direct writes, then the fsync's flush
	dd if=/dev/zero of="$LOOP" bs=4k count=4 seek=$((i * 8)) oflag=direct conv=fsync \
		2>/dev/null || fail "dd write $i"
done
dd if="$LOOP" of=/dev/null bs=4k count=6 iflag=direct 2>/dev/null || fail "dd read"
blkdiscard -o 1M -l 1M "$LOOP" || fail "blkdiscard"
if blkdiscard -z -o 4M -l 64K "$LOOP" 2>/dev/null; then zeroes=1; else zeroes=0; fi
sync
sleep 0.3
set -- $(kstat)
r1=$1 d1=$3 f1=$4
sleep 0.3
stop_rec INT
expect_eq "vxrecord exit status" "$RC" 0
[ $((f1 - f0)) -ge 3 ] || fail "the kernel counted $((f1 - f0)) flushes for 3 fsyncs"

"$B/vxreplay" "$T/o.vxt" --report events --format csv >"$T/ev.csv" || fail "events"
count() { awk -F, -v op="$1" 'NR > 1 && $3 == "done" && $4 == op' "$T/ev.csv" | wc -l; }
expect_eq "reads (kernel)" "$(count read)" $((r1 - r0))
expect_eq "writes (dd)" "$(count write)" 12
expect_eq "discards (kernel)" "$(count discard)" $((d1 - d0))
expect_eq "flushes (kernel)" "$(count flush)" $((f1 - f0))
expect_eq "write-zeroes (blkdiscard -z)" "$(count write-zeroes)" $zeroes
"$B/vxreplay" "$T/o.vxt" --report summary --format json >"$T/sum.json" || fail "summary"
expect_eq "summary flushes" "$(json "$T/sum.json" 'j["flushes"]')" $((f1 - f0))
expect_eq "summary discards" "$(json "$T/sum.json" 'j["discards"]')" $((d1 - d0))
expect_eq "completions without their issue (latency 0)" \
	"$(awk -F, 'NR > 1 && $3 == "done" && $8 == 0' "$T/ev.csv" | wc -l)" 0
expect_eq "issues without their completion" \
	"$(awk -F, 'NR > 1 { k = $2 "," $4 "," $6 "," $7; if ($3 == "start") n[k]++; else if ($3 == "done") n[k]-- }
		END { for (k in n) s += n[k]; print s + 0 }' "$T/ev.csv")" 0
expect_eq "empty writes (flush-sequence ends)" \
	"$(awk -F, 'NR > 1 && $4 == "write" && $7 == 0' "$T/ev.csv" | wc -l)" 0
finish
