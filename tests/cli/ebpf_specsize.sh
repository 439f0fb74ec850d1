#!/bin/sh
# ebpf_specsize.sh - the ebpf source sizes its kernel speculation windows
# from the profile's nspec and specsize: a window of 8192 events keeps the
# ~3000 events before an error (past the 1024 a fixed window held) with no
# speculative drop, the same events the profile keeps applied offline to a
# full capture and a brute-force reading of its definition picks; a window
# of 1024 events keeps the last 1024 of them and counts each one it wrote
# over within the 2 s before as a speculative drop (both counted by brute
# force over the full capture); a profile
# whose nspec x specsize passes the source's 64 MiB, or whose before window
# by count passes specsize, runs in user space and says why in one line.
# Real errors: a loop device over a file on a full tmpfs (-ENOSPC).
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_ebpf
. "$VXT_TOP/tests/cli/full_loop.inc"
prof() {	# prof NAME SPECSIZE [BEFORE_EVENTS]
	{ echo "name: $1"; echo "context:"; echo "  key: object"; echo "  before: 2s"
	  [ $# -gt 2 ] && echo "  before_events: $3"
	  echo "  after: 50ms"; echo "  on: error"; echo "  nspec: 4"; echo "  specsize: $2"
	} >"$T/$1.yaml"
}
prof wide 458752		# 8192 events of 56 bytes
prof huge 104857600		# 100 MiB for the one object: past 64 MiB
prof deep 458752 20000		# 20000 events before: past the 8192 a window holds
prof small 57344		# 1024 events of 56 bytes: fewer than the 3000 before the error
# the kernel sometimes runs a block tracepoint without our programs: a
# capture holding such events (its closing line names them) may lack an
# event another holds, and the run is made again; any other loss fails
. "$VXT_TOP/tests/cli/ebpf_lost.inc"
capture() {
	rm -f "$T/all.vxt" "$T/k.vxt" "$T/h.vxt" "$T/d.vxt" "$T/s.vxt"
	start "$T/all.vxt" --source ebpf --objects "$LNAME"; REC1=$started
	start "$T/k.vxt" --source ebpf --objects "$LNAME" --profile "$T/wide.yaml"; REC2=$started
	start "$T/h.vxt" --source ebpf --objects "$LNAME" --profile "$T/huge.yaml"; REC3=$started
	start "$T/d.vxt" --source ebpf --objects "$LNAME" --profile "$T/deep.yaml"; REC4=$started
	start "$T/s.vxt" --source ebpf --objects "$LNAME" --profile "$T/small.yaml"; REC5=$started
	sleep 0.5
	rd() { dd if="$LOOP" of=/dev/null bs=4k count="$1" skip="$2" iflag=direct 2>/dev/null; }
	rd 50 0		# long before the error: left out
	sleep 2.5
	rd 1500 100	# 3000 events just before it: kept
	dd if=/dev/zero of="$LOOP" bs=4k count=1 seek=12000 oflag=direct 2>/dev/null	# ENOSPC
	rd 10 2000	# within 50 ms after it: kept
	sleep 0.2
	rd 30 3000	# after it: left out
	sleep 0.3
	kill -INT $REC1 $REC2 $REC3 $REC4 $REC5
	wait $REC1; wait $REC2; r2=$?; wait $REC3; r3=$?; wait $REC4; r4=$?; wait $REC5; r5=$?
}
whole_capture "$T/all.vxt:$T/all.vxt.err" "$T/k.vxt:$T/k.vxt.err" "$T/h.vxt:$T/h.vxt.err" \
	"$T/d.vxt:$T/d.vxt.err" "$T/s.vxt:$T/s.vxt.err"
expect_eq "vxrecord with the sized kernel program exits" "$r2" 0
expect_eq "vxrecord with the too-large profile exits" "$r3" 0
expect_eq "vxrecord with the too-deep profile exits" "$r4" 0
expect_eq "vxrecord with the small window exits" "$r5" 0

grep -q 'ran in the kernel: kept' "$T/k.vxt.err" &&
	ok "$(grep 'ran in the kernel' "$T/k.vxt.err")" ||
	fail "the sized profile did not run in the kernel: $(cat "$T/k.vxt.err")"
grep -q 'speculative drops' "$T/k.vxt.err" &&
	fail "the sized window dropped events: $(grep 'speculative drops' "$T/k.vxt.err")" ||
	ok "0 speculative drops"
line=$(grep 'runs in user space' "$T/h.vxt.err")
expect_eq "the too-large profile says why in one line" \
	"$(echo "$line" | grep -c "its 1 window (one per object) x 104857600 bytes = 104857600 bytes do not fit the ebpf source's 64 MiB")" 1
ok "$line"
line=$(grep 'runs in user space' "$T/d.vxt.err")
expect_eq "the too-deep profile says why in one line" \
	"$(echo "$line" | grep -c 'its 20000 events before a trigger are more than a window holds (specsize 458752 / 56 bytes = 8192)')" 1
ok "$line"
grep -q 'speculation: kernel' "$T/h.vxt.err" "$T/d.vxt.err" && fail "a fallback ran in the kernel"
"$B/vxreplay" "$T/h.vxt" --info | grep -q 'speculation: kernel' &&
	fail "the too-large profile's header says kernel" || ok "the too-large profile's header does not say kernel"

# events as (phase op sector bytes error), one per line, sorted
tuples() { awk -F, 'NR > 1 { print $3, $4, $6, $7, $9 }' | sort; }
"$B/vxreplay" "$T/all.vxt" --report events --format csv >"$T/all.csv"
# the definition, by brute force over the full capture: e is kept when an
# error t on its object has t - 2s <= e <= t + 50ms
awk -F, 'NR > 1 { n++; t[n] = $1; o[n] = $2; l[n] = $0; if ($9 != 0) { e++; et[e] = $1; eo[e] = $2 } }
	END { for (i = 1; i <= n; i++) for (j = 1; j <= e; j++)
		if (o[i] == eo[j] && t[i] >= et[j] - 2000000000 && t[i] <= et[j] + 50000000) {
			print l[i]; break } }' "$T/all.csv" | sed '1i header' | tuples >"$T/ref"
"$B/vxreplay" "$T/all.vxt" --profile "$T/wide.yaml" --report events --format csv | tuples >"$T/offline"
"$B/vxreplay" "$T/k.vxt" --report events --format csv | tuples >"$T/kernel"
"$B/vxreplay" "$T/h.vxt" --report events --format csv | tuples >"$T/huge"
errs=$(awk '$5 != 0' "$T/ref" | wc -l)
[ "$errs" -ge 1 ] && ok "$errs failed completion(s) in the run" || fail "the run had no error"
kept=$(wc -l <"$T/ref")
[ "$kept" -gt 3000 ] && [ "$kept" -lt 3200 ] &&
	ok "the definition keeps $kept of $(($(wc -l <"$T/all.csv") - 1)) events, more than 1024" ||
	fail "the definition keeps $kept events: the workload is not what this test needs"
expect_eq "kernel-kept events = the definition over the full capture" \
	"$(diff "$T/ref" "$T/kernel" >/dev/null && echo same || diff "$T/ref" "$T/kernel" | head -5)" same
expect_eq "kernel-kept events = the profile applied offline to the full capture" \
	"$(diff "$T/offline" "$T/kernel" >/dev/null && echo same || diff "$T/offline" "$T/kernel" | head -5)" same
expect_eq "the too-large profile in user space keeps the same events" \
	"$(diff "$T/ref" "$T/huge" >/dev/null && echo same || diff "$T/ref" "$T/huge" | head -5)" same

# The small window, by brute force over the full capture in time order (one
# I/O at a time: the order the programs ran in). Each event that is not a
# trigger and not sent live (within 50 ms after one) goes into the window;
# the 1024th such event after it writes over it, a drop when that comes
# within 2 s of it and it is newer than the last trigger (not sent already).
# Kept: each error, those sent live after it, and of the window's events
# within 2 s before it, the last 1024.
sort -t, -k1,1n "$T/all.csv" | awk -F, -v W=1024 -v B=2000000000 -v A=50000000 '
	$1 !~ /^[0-9]+$/ { next }
	{ t = $1 + 0
	  if ($9 != 0) {		# a trigger: sent with the window before it
		for (i = (nw > W ? nw - W + 1 : 1); i <= nw; i++)
			if (wt[i] >= t - B && wt[i] > last) print wl[i]
		print; last = t; until = t + A; next }
	  if (last && t <= until) { print; next }	# sent live
	  nw++; wt[nw] = t; wl[nw] = $0
	  if (nw > W && wt[nw - W] + B >= t && wt[nw - W] > last) drops++ }
	END { print drops + 0 > "/dev/stderr" }' 2>"$T/small.drops" | sed '1i header' | tuples >"$T/small.ref"
"$B/vxreplay" "$T/s.vxt" --report events --format csv | tuples >"$T/small"
nd=$(cat "$T/small.drops")
[ "$nd" -gt 1000 ] && ok "the definition drops $nd events from the small window" ||
	fail "the definition drops $nd events from the small window: the workload is not what this test needs"
expect_eq "small window: speculative drops counted in the kernel = by brute force" \
	"$(sed -n 's/^vxrecord: \([0-9]*\) speculative drops.*/\1/p' "$T/s.vxt.err")" "$nd"
expect_eq "small window: kernel-kept events = the last 1024 before the error, it and those after" \
	"$(diff "$T/small.ref" "$T/small" >/dev/null && echo same || diff "$T/small.ref" "$T/small" | head -5)" same
finish
