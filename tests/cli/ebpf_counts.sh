#!/bin/sh
# ebpf_counts.sh - every I/O fio does is accounted for by --source ebpf:
# fio (4 KiB random reads, libaio, iodepth 32, time-based, so 32 I/Os are in
# flight when it stops) on a loop device over a file in /dev/shm, the
# fastest device there is, a few rounds; in each, vxrecord --source ebpf and
# vxtop --maps run through the whole of it. fio's own count of I/Os (its
# JSON total_ios) must equal the issues in the capture, and so must the
# completions in it, plus its lost events (a completion the kernel ran its
# tracepoint for without the BPF programs, found when its request is issued
# again), plus the issues vxrecord says had no completion when it ended
# (with fio done, those of such completions that were never issued again);
# so must vxtop's reads over its intervals, plus the losses it shows, plus
# the same unfinished issues (the kernel passes over every BPF program of
# that tracepoint call at once). vxrecord exits 0: such a loss does not fail
# the capture as a full ring does.
#   env: VXT_TEST_ROUNDS (default 3), VXT_TEST_SECONDS (per round, default 2)
. "$VXT_TOP/tests/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (BPF and loop devices)"
[ -r /sys/kernel/btf/vmlinux ] || skip "the kernel has no BTF (/sys/kernel/btf/vmlinux)"
command -v fio >/dev/null || skip "no fio (apt-get install fio)"
command -v losetup >/dev/null || skip "no losetup"
grep -q 'this build has no BPF programs' "$B/vxrecord" &&
	skip "vxrecord was built without the ebpf source (clang, bpftool, libbpf-dev)"
. "$VXT_TOP/tests/cli/ebpf_lost.inc"
rounds=${VXT_TEST_ROUNDS:-3}
secs=${VXT_TEST_SECONDS:-2}

SHM= LOOP= REC= TOP=
cleanup() {
	[ -n "$REC" ] && kill -9 "$REC" 2>/dev/null
	[ -n "$TOP" ] && kill -9 "$TOP" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$T" "$SHM"
}
trap cleanup EXIT
SHM=$(mktemp -d /dev/shm/vxt-counts.XXXXXX) || skip "no /dev/shm"
truncate -s 128M "$SHM/disk.img"
LOOP=$(losetup -f --show "$SHM/disk.img" 2>/dev/null) || skip "no free loop device"
LNAME=${LOOP#/dev/}
dd if=/dev/zero of="$LOOP" bs=1M count=128 oflag=direct 2>/dev/null	# no reads of holes
sleep 0.5	# let probing of the new device finish before capturing

# wait for $1 (a pid) to make file $2 non-empty, or fail
wait_file() {
	i=0
	while [ ! -s "$2" ] && [ $i -lt 600 ]; do
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1; i=$((i + 1))
	done
	[ -s "$2" ]
}

r=1
while [ $r -le "$rounds" ]; do
	rm -f "$T/f.vxt"
	"$B/vxrecord" --source ebpf --objects "$LNAME" -o "$T/f.vxt" 2>"$T/rec.err" &
	REC=$!
	"$B/vxtop" --maps -b -F jsonl -i 500ms --objects "$LNAME" >"$T/top.jsonl" 2>"$T/top.err" &
	TOP=$!
	wait_file $REC "$T/f.vxt" && wait_file $TOP "$T/top.jsonl" ||
		{ fail "round $r: the tracers did not start: $(cat "$T/rec.err" "$T/top.err")"; break; }
	fio --name=counts --filename="$LOOP" --direct=1 --rw=randread --bs=4k --ioengine=libaio \
		--iodepth=32 --time_based --runtime="$secs" --size=128M --output-format=json \
		>"$T/fio.json" 2>"$T/fio.err" || { fail "round $r: fio: $(cat "$T/fio.err")"; break; }
	sleep 1.2	# vxtop closes the interval fio ended in
	kill -INT $REC $TOP
	wait $REC
	expect_eq "round $r: vxrecord exit status" $? 0
	wait $TOP
	REC= TOP=
	total=$(json "$T/fio.json" 'j["jobs"][0]["read"]["total_ios"]')
	"$B/vxreplay" "$T/f.vxt" --report summary --format json >"$T/sum.json"
	starts=$(json "$T/sum.json" 'j["starts"]')
	ios=$(json "$T/sum.json" 'j["ios"]')
	lost=$(json "$T/sum.json" 'j["lost"]')
	expect_eq "round $r: issues captured (fio did $total I/Os)" "$starts" "$total"
	left=$(unfinished "$T/rec.err")
	expect_eq "round $r: completions captured + lost + unfinished ($ios + $lost + $left)" \
		$((ios + lost + left)) "$total"
	if [ "$lost" -gt 0 ]; then
		grep -q "$lost completions lost: the kernel ran the block_rq_complete tracepoint" \
			"$T/rec.err" || fail "round $r: no line names the $lost lost completions: $(cat "$T/rec.err")"
	fi
	top=$(python3 -c 'import json, sys
ls = [json.loads(l) for l in open(sys.argv[1])]
n = round(sum(o["r_s"] * j["duration_s"] for j in ls for o in j["objects"]))
print(n + max([j["lost_total"] for j in ls] or [0]))' "$T/top.jsonl")
	expect_eq "round $r: vxtop --maps reads over its intervals + lost + unfinished" \
		$((top + left)) "$total"
	r=$((r + 1))
done
finish
