#!/bin/sh
# ebpf_speculate.sh - errors-in-context runs inside the kernel with the ebpf
# source: only the failed I/O with what its object did 200 ms before and
# 50 ms after leaves the kernel, the same events the profile keeps in user
# space, and exactly those a brute-force reading of the profile's definition
# picks from a full capture of the same run. Real errors: a loop device over
# a file on a full tmpfs (-ENOSPC).
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_ebpf
. "$VXT_TOP/tests/cli/full_loop.inc"
# the kernel sometimes runs a block tracepoint without our programs: an
# ebpf capture holding such events (its closing line names them) may lack an
# event the other holds, and the run is made again; any other loss fails
. "$VXT_TOP/tests/cli/ebpf_lost.inc"
capture() {
	rm -f "$T/all.vxt" "$T/k.vxt" "$T/u.vxt"
	start "$T/all.vxt" --source ebpf --objects "$LNAME"; REC1=$started
	start "$T/k.vxt" --source ebpf --objects "$LNAME" --profile errors-in-context; REC2=$started
	start "$T/u.vxt" --source tracefs --objects "$LNAME" --profile errors-in-context; REC3=$started
	sleep 0.5
	rd() { dd if="$LOOP" of=/dev/null bs=4k count="$1" skip="$2" iflag=direct 2>/dev/null; }
	rd 100 0	# long before the error: left out
	sleep 0.6
	rd 30 200	# 100 ms before it: kept (a 50 ms window would leave these out)
	sleep 0.1
	rd 30 300	# just before it: kept
	dd if=/dev/zero of="$LOOP" bs=4k count=1 seek=12000 oflag=direct 2>/dev/null	# ENOSPC
	rd 10 400	# within 50 ms after it: kept
	sleep 0.1
	rd 30 500	# 100 ms after it: left out (a 200 ms window would keep them)
	sleep 0.6
	rd 100 600	# long after: left out
	sleep 0.3
	kill -INT $REC1 $REC2 $REC3
	wait $REC1; wait $REC2; r2=$?; wait $REC3
}
whole_capture "$T/all.vxt:$T/all.vxt.err" "$T/k.vxt:$T/k.vxt.err"
expect_eq "vxrecord with the kernel program exits" "$r2" 0

"$B/vxreplay" "$T/k.vxt" --info >"$T/k.info"
grep -q 'profile: *errors-in-context (speculation: kernel)' "$T/k.info" &&
	ok "the header says the profile ran in the kernel" ||
	fail "header: $(grep profile "$T/k.info")"
grep -q 'errors-in-context runs in user space' "$T/u.vxt.err" &&
	ok "tracefs says why the profile runs in user space: $(grep 'user space' "$T/u.vxt.err")" ||
	fail "no reason given for user space: $(cat "$T/u.vxt.err")"
grep -q 'ran in the kernel: kept' "$T/k.vxt.err" &&
	ok "$(grep 'ran in the kernel' "$T/k.vxt.err")" ||
	fail "no kernel speculation summary: $(cat "$T/k.vxt.err")"

# events as (phase op sector bytes error), one per line, sorted; lost
# records (a completion the kernel ran without the programs, under load)
# apart: each capture counts its own, and they are accounted for below
tuples() { awk -F, 'NR > 1 && $3 != "lost" { print $3, $4, $6, $7, $9 }' | sort; }
# of an events CSV: the I/O records (not lost); the records its lost
# records count is lost_of (ebpf_lost.inc)
ios_of() { awk -F, 'NR > 1 && $3 != "lost"' | wc -l; }
"$B/vxreplay" "$T/all.vxt" --report events --format csv >"$T/all.csv"
# the profile's definition, by brute force over the full capture: e is kept
# when an error t on its object has t - 200ms <= e <= t + 50ms
awk -F, 'NR > 1 { n++; t[n] = $1; o[n] = $2; l[n] = $0; if ($9 != 0) { e++; et[e] = $1; eo[e] = $2 } }
	END { for (i = 1; i <= n; i++) for (j = 1; j <= e; j++)
		if (o[i] == eo[j] && t[i] >= et[j] - 200000000 && t[i] <= et[j] + 50000000) {
			print l[i]; break } }' "$T/all.csv" | sed '1i header' | tuples >"$T/ref"
"$B/vxreplay" "$T/k.vxt" --report events --format csv >"$T/k.csv"
tuples <"$T/k.csv" >"$T/kernel"
"$B/vxreplay" "$T/u.vxt" --report events --format csv | tuples >"$T/user"
errs=$(awk '$5 != 0' "$T/ref" | wc -l)
[ "$errs" -ge 1 ] && ok "$errs failed completion(s) in the run" || fail "the run had no error"
kept=$(wc -l <"$T/ref")
[ "$kept" -gt 40 ] && [ "$kept" -lt 200 ] && ok "the definition keeps $kept of $(($(wc -l <"$T/all.csv") - 1)) events" ||
	fail "the definition keeps $kept events: the workload is not what this test needs"
expect_eq "kernel-kept events = the definition over the full capture" \
	"$(diff "$T/ref" "$T/kernel" >/dev/null && echo same || diff "$T/ref" "$T/kernel" | head -5)" same
expect_eq "kernel-kept events = user-space profile on tracefs" \
	"$(diff "$T/user" "$T/kernel" >/dev/null && echo same || diff "$T/user" "$T/kernel" | head -5)" same
# every record of the run either reached the kernel's program or is in a
# lost record of the kernel-speculated file (a profile keeps lost records)
seen=$(sed -n 's/.*ran in the kernel: kept [0-9]* of \([0-9]*\) events.*/\1/p' "$T/k.vxt.err")
klost=$(lost_of <"$T/k.csv")
expect_eq "records the kernel program saw ($seen) + lost records kept ($klost) = the full capture's records" \
	"$((seen + klost))" "$(($(ios_of <"$T/all.csv") + $(lost_of <"$T/all.csv")))"
finish
