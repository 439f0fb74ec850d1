#!/bin/sh
# ebpf_filter.sh - the comparisons of a --filter the kernel can make (op,
# phase, bytes, sector, pid, error, ...) run in the ebpf program: a
# recorder with the filter writes exactly what the filter keeps of a full
# capture of the same fio run (compared field by field with awk, times
# aside: each recorder's program reads the clock itself), the kernel kept
# back the events it could decide, it says on one line which comparisons ran
# in the kernel, and a filter on names runs in user space and says so.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_ebpf

make_loop 64M
# mixed sizes and ops; the filter keeps the 16k writes' completions and the
# issues of reads past the first 32 MiB, and tests comm (user space) too
filter='(op == write && bytes >= 8k && phase == done) || (op == read && phase == start && sector >= 65536 && comm ~ "fi*")'
# the kernel sometimes runs a block tracepoint without our programs, and
# not always for both recorders alike: a capture with such a lost record in
# either file cannot compare, and is made again; any other loss fails at once
. "$VXT_TOP/tests/cli/ebpf_lost.inc"
capture() {
	rm -f "$T/all.vxt" "$T/f.vxt"
	start_rec "$T/all.vxt" --source ebpf --objects "$LNAME" || finish
	mv "$T/rec.err" "$T/all.err"	# start_rec's stderr file stays open under its new name
	full=$REC
	"$B/vxrecord" --source ebpf --objects "$LNAME" --filter "$filter" -o "$T/f.vxt" 2>"$T/f.err" &
	REC=$!
	i=0
	while [ ! -e "$T/f.vxt" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	fio --name=mix --filename="$LOOP" --direct=1 --rw=randrw --bsrange=4k-16k --ioengine=psync \
		--number_ios=3000 --size=64M --output-format=json >"$T/fio.json" 2>"$T/fio.err" ||
		fail "fio: $(cat "$T/fio.err")"
	sleep 0.3
	stop_rec INT
	frc=$RC
	REC=$full
	stop_rec INT
}
whole_capture "$T/all.vxt:$T/all.err" "$T/f.vxt:$T/f.err"
expect_eq "filtered recorder exit status" "$frc" 0

grep -q "^vxrecord: filter: the kernel tests 6 of 7 comparisons (op, bytes, phase, sector); user space the whole filter on what it sends$" "$T/f.err" &&
	ok "says what ran in the kernel" || fail "no line on what ran in the kernel: $(cat "$T/f.err")"
kept=$(sed -n "s/.*the kernel's filter kept back \([0-9]*\) events.*/\1/p" "$T/f.err")
[ -n "$kept" ] && [ "$kept" -gt 1000 ] && ok "the kernel kept back $kept events" ||
	fail "the kernel kept back '$kept' events: $(cat "$T/f.err")"

fields() {	# the events' fields but time (and cpu): phase op sector bytes latency error pid comm
	awk -F, 'NR > 1 { print $3, $4, $6, $7, $9, $11, $12 }' | sort
}
"$B/vxreplay" "$T/all.vxt" --filter "$filter" --report events --format csv | fields >"$T/want"
"$B/vxreplay" "$T/f.vxt" --report events --format csv | fields >"$T/got"
n=$(wc -l <"$T/want")
[ "$n" -gt 100 ] && ok "the filter keeps $n events of the full capture" || fail "the filter keeps $n events"
expect_eq "the kernel-filtered recording is the full capture filtered" \
	"$(diff "$T/want" "$T/got" >/dev/null && echo same || diff "$T/want" "$T/got" | head -5)" same

# names only: nothing for the kernel
"$B/vxrecord" --source ebpf --objects "$LNAME" --filter 'comm == fio' -o "$T/n.vxt" -c 1 \
	2>"$T/n.err" &
REC=$!
i=0
while [ ! -e "$T/n.vxt" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
stop_rec INT
grep -q "^vxrecord: filter: runs in user space: no comparison the kernel can make" "$T/n.err" &&
	ok "a filter on names runs in user space" || fail "no user-space line: $(cat "$T/n.err")"
finish
