#!/bin/sh
# ebpf_flight.sh - errors-flight (windows by count: the 64 events of an
# object before each error and the 32 after, each within 1 s) runs inside the
# kernel with the ebpf source; what leaves the kernel equals the profile run
# in user space on tracefs, and a brute-force reading of the definition over
# a full capture of the same run. Real errors: a loop device over a file on a
# full tmpfs (-ENOSPC).
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_ebpf
. "$VXT_TOP/tests/cli/full_loop.inc"
# the kernel sometimes runs a block tracepoint without our programs: the
# ebpf files then hold a lost record where tracefs has the event, and no
# comparison can hold; such a capture is made again. Any other loss (a full
# ring) fails at once.
. "$VXT_TOP/tests/cli/ebpf_lost.inc"
capture() {
	rm -f "$T/all.vxt" "$T/k.vxt" "$T/u.vxt"
	start "$T/all.vxt" --source ebpf --objects "$LNAME"; REC1=$started
	start "$T/k.vxt" --source ebpf --objects "$LNAME" --profile errors-flight; REC2=$started
	start "$T/u.vxt" --source tracefs --objects "$LNAME" --profile errors-flight; REC3=$started
	sleep 0.5
	rd() { dd if="$LOOP" of=/dev/null bs=4k count="$1" skip="$2" iflag=direct 2>/dev/null; }
	err() { dd if=/dev/zero of="$LOOP" bs=4k count=1 seek="$1" oflag=direct 2>/dev/null; }
	rd 100 0	# 200 events: the last 63 before the error's start are kept
	err 12000	# ENOSPC
	rd 40 400	# 80 events: the first 32 after the error are kept
	sleep 1.2
	rd 20 600	# more than 1 s before the next error: left out however few
	sleep 1.1
	err 12100	# the window before holds only the error's own start
	rd 10 700	# 20 events, all kept; the last ones also open the next window
	err 12200	# within the window after the previous error: starts it afresh
	rd 30 800	# the first 32 events after it kept (with the error's start... )
	sleep 1.1
	rd 20 900	# more than 1 s after: left out
	sleep 0.3
	kill -INT $REC1 $REC2 $REC3
	wait $REC1; wait $REC2; r2=$?; wait $REC3
}
whole_capture "$T/all.vxt:$T/all.vxt.err" "$T/k.vxt:$T/k.vxt.err"
expect_eq "vxrecord with the kernel program exits" "$r2" 0

"$B/vxreplay" "$T/k.vxt" --info >"$T/k.info"
grep -q 'profile: *errors-flight (speculation: kernel)' "$T/k.info" &&
	ok "the header says the profile ran in the kernel" ||
	fail "header: $(grep profile "$T/k.info")"
grep -q 'ran in the kernel: kept' "$T/k.vxt.err" &&
	ok "$(grep 'ran in the kernel' "$T/k.vxt.err")" ||
	fail "no kernel speculation summary: $(cat "$T/k.vxt.err")"

# events as (phase op sector bytes error), one per line, sorted
tuples() { awk -F, 'NR > 1 { print $3, $4, $6, $7, $9 }' | sort; }
"$B/vxreplay" "$T/all.vxt" --report events --format csv >"$T/all.csv"
# the definition, by brute force over the full capture (events in file
# order): e is kept when an error t on its object has e among the object's
# 64 events just before t and t - 1 s <= e, or among its 32 just after t
# and e <= t + 1 s
awk -F, 'NR > 1 { n++; t[n] = $1; o[n] = $2; l[n] = $0; if ($9 != 0) { e++; ei[e] = n } }
	END {
		for (k = 1; k <= e; k++) {
			j = ei[k]; keep[j] = 1
			r = 0
			for (i = j - 1; i >= 1; i--) {
				if (o[i] != o[j]) continue
				if (++r > 64 || t[i] < t[j] - 1000000000) break
				keep[i] = 1
			}
			r = 0
			for (i = j + 1; i <= n; i++) {
				if (o[i] != o[j]) continue
				if (++r > 32 || t[i] > t[j] + 1000000000) break
				keep[i] = 1
			}
		}
		for (i = 1; i <= n; i++) if (keep[i]) print l[i]
	}' "$T/all.csv" | sed '1i header' | tuples >"$T/ref"
"$B/vxreplay" "$T/k.vxt" --report events --format csv | tuples >"$T/kernel"
"$B/vxreplay" "$T/u.vxt" --report events --format csv | tuples >"$T/user"
errs=$(awk '$5 != 0' "$T/ref" | wc -l)
expect_eq "failed completions in the run" "$errs" 3
kept=$(wc -l <"$T/ref")
[ "$kept" -gt 100 ] && [ "$kept" -lt 250 ] && ok "the definition keeps $kept of $(($(wc -l <"$T/all.csv") - 1)) events" ||
	fail "the definition keeps $kept events: the workload is not what this test needs"
expect_eq "kernel-kept events = the definition over the full capture" \
	"$(diff "$T/ref" "$T/kernel" >/dev/null && echo same || diff "$T/ref" "$T/kernel" | head -5)" same
expect_eq "kernel-kept events = user-space profile on tracefs" \
	"$(diff "$T/user" "$T/kernel" >/dev/null && echo same || diff "$T/user" "$T/kernel" | head -5)" same
finish
