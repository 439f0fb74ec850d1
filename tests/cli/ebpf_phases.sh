#!/bin/sh
# ebpf_phases.sh - `--phases all` on the ebpf source (the default without the
# module): a loop device with mq-deadline (every request inserted) under fio
# randrw (libaio, iodepth 16, a known number of I/Os), exported with
# `vxreplay --export blktrace` and read by btt, the reference: btt's Q2C,
# D2C, Q2G, G2I and I2D each count every one of fio's I/Os (btt's empty
# tables were what a default capture gave), and btt's Q2C and D2C averages
# are vxreplay's breakdown's within 1%. Counted from the events, the
# queues, getrqs, inserts, issues and completions are fio's I/Os each; the
# file says every phase was captured. A capture of the same kind by the
# tracefs source has as many of each phase.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_ebpf
command -v btt >/dev/null || skip "no btt (apt-get install blktrace)"
. "$VXT_TOP/tests/cli/ebpf_lost.inc"
make_loop 128M
grep -qw mq-deadline "/sys/block/$LNAME/queue/scheduler" 2>/dev/null ||
	skip "no mq-deadline scheduler for $LNAME"
echo mq-deadline >"/sys/block/$LNAME/queue/scheduler" || skip "cannot set mq-deadline on $LNAME"
echo 2 >"/sys/block/$LNAME/queue/nomerges" || skip "cannot turn off merges on $LNAME"

N=4000
phases() {	# phases FILE: the count of each phase, "phase count" lines
	"$B/vxreplay" "$1" --report events --format csv |
		awk -F, 'NR > 1 { n[$3]++ } END { for (p in n) print p, n[p] }' | sort
}
count_of() { awk -v p="$2" '$1 == p { print $2 }' "$1"; }
for attempt in 1 2 3; do
	rm -f "$T/e.vxt"
	start_rec "$T/e.vxt" --source ebpf --phases all --objects "$LNAME" || finish
	fio --name=ph --filename="$LOOP" --direct=1 --rw=randrw --bs=4k --ioengine=libaio \
		--iodepth=16 --number_ios=$N --size=128M --output-format=json \
		>"$T/fio.json" 2>"$T/fio.err" || fail "fio: $(cat "$T/fio.err")"
	sleep 0.5
	stop_rec INT
	expect_eq "ebpf: vxrecord exit status" "$RC" 0
	[ "$(lost_in "$T/e.vxt")" -eq 0 ] && break
	echo "capture $attempt: $(lost_in "$T/e.vxt") lost (the kernel ran a tracepoint without our programs)"
done
total=$(json "$T/fio.json" 'j["jobs"][0]["read"]["total_ios"] + j["jobs"][0]["write"]["total_ios"]')
expect_eq "fio's I/Os" "$total" $N
"$B/vxreplay" "$T/e.vxt" --info >"$T/info" || fail "--info"
grep -q "phases: *all" "$T/info" || fail "--info does not say every phase: $(grep -i phase "$T/info")"
phases "$T/e.vxt" >"$T/e.phases"
for p in queue getrq insert start done; do
	expect_eq "ebpf: $p events" "$(count_of "$T/e.phases" $p)" $N
done

"$B/vxreplay" "$T/e.vxt" --export blktrace -o "$T/e.blk" || fail "--export blktrace"
(cd "$T" && btt -i e.blk -o btt >/dev/null 2>&1) || fail "btt"
btt_row() {	# btt_row NAME: "avg N" of btt's row NAME over all devices
	awk -v n="$1" '$1 == n { print $3, $5; exit }' "$T/btt.avg"
}
for iv in Q2C D2C Q2G G2I I2D; do
	set -- $(btt_row $iv)
	expect_eq "btt's $iv count" "${2:-none}" $N
done
"$B/vxreplay" "$T/e.vxt" --report breakdown --format json >"$T/bd.json" || fail "breakdown"
for iv in Q2C D2C; do
	set -- $(btt_row $iv)
	python3 - "$T/bd.json" "$iv" "$1" <<'EOF' || fail "breakdown's $iv against btt's"
import json, sys
j, iv, btt = json.load(open(sys.argv[1])), sys.argv[2], float(sys.argv[3]) * 1e9
ours = j["all"][iv.lower()]["avg_ns"]
print("%s: btt %.0f ns, breakdown %s ns" % (iv, btt, ours))
sys.exit(0 if abs(ours - btt) <= 0.01 * btt + 1000 else 1)
EOF
done

# the tracefs source on the same workload: the same phases, as many each
start_rec "$T/t.vxt" --source tracefs --phases all --objects "$LNAME" || finish
fio --name=ph --filename="$LOOP" --direct=1 --rw=randrw --bs=4k --ioengine=libaio \
	--iodepth=16 --number_ios=$N --size=128M --output-format=json \
	>"$T/fio2.json" 2>"$T/fio.err" || fail "fio: $(cat "$T/fio.err")"
sleep 0.5
stop_rec INT
phases "$T/t.vxt" | grep -v '^lost ' >"$T/t.phases"
grep -v '^lost ' "$T/e.phases" >"$T/e.cmp"
grep -v '^plug \|^unplug ' "$T/e.cmp" >"$T/e.cmp2"
expect_eq "the phases and their counts, ebpf against tracefs (plugs apart)" \
	"$(cat "$T/e.cmp2" | tr '\n' ' ')" "$(cat "$T/t.phases" | tr '\n' ' ')"
finish
