#!/bin/sh
# ebpf_capture.sh - the ebpf source on this machine's kernel: every I/O fio
# does on a loop device and nothing else, issuer and latency on every
# completion, real -ENOSPC completions from a loop device over a full tmpfs
# seen exactly as the tracefs source sees them, the default source order
# saying why it skipped the module, a clear line without permission, no
# program left attached after SIGKILL, and VXT_EBPF_NOOP attaching programs
# that trace nothing (and saying so), or only read the clock (=clock).
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_ebpf
command -v bpftool >/dev/null || skip "no bpftool (apt-get install bpftool)"

ours() { bpftool prog show 2>/dev/null | grep -c 'name vxt_rq_'; }

# wait up to 60 s until recorder $1 writes $2 (the source is attached then)
wait_rec() {
	i=0
	while [ ! -e "$2" ]; do
		kill -0 "$1" 2>/dev/null || { fail "vxrecord died: $(cat "$T/rec.err")"; return 1; }
		i=$((i + 1))
		[ $i -gt 600 ] && { fail "no output after 60 s"; return 1; }	# liveness only
		sleep 0.1
	done
}

# programs go away a moment after their last fd closes
wait_gone() {
	i=0
	while [ "$(ours)" != 0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	expect_eq "$1: our BPF programs still loaded" "$(ours)" 0
}

[ "$(ours)" = 0 ] || skip "another vxrecord's BPF programs are loaded"

# ---- every fio I/O on the loop device, nothing else ----
# the kernel sometimes runs a block tracepoint without our programs: a
# capture holding such events cannot match fio's counts and is made again
# (its closing line, without -q, names them); any other loss fails at once
. "$VXT_TOP/tests/cli/ebpf_lost.inc"
make_loop 64M
capture() {
	rm -f "$T/f.vxt"
	"$B/vxrecord" --source ebpf --objects "$LNAME" -o "$T/f.vxt" 2>"$T/rec.err" &
	REC=$!
	wait_rec "$REC" "$T/f.vxt" || finish
	expect_eq "programs attached while recording" "$(ours)" 3
	dd if=/dev/zero of="$T/noise" bs=4k count=256 oflag=direct,sync 2>/dev/null
	set -- $(fio_run "$LOOP" r randread 1500)
	reads=$1
	set -- $(fio_run "$LOOP" w randwrite 1000)
	writes=$2
	dd if=/dev/zero of="$T/noise" bs=4k count=256 oflag=direct,sync 2>/dev/null
	sleep 0.3
	stop_rec INT
	expect_eq "vxrecord exit status after SIGINT" "$RC" 0
	wait_gone "after SIGINT"
}
whole_capture "$T/f.vxt:$T/rec.err"
"$B/vxreplay" "$T/f.vxt" --report summary --format json >"$T/sum.json" || fail "vxreplay summary"
expect_eq "completed reads (fio issued $reads)" "$(json "$T/sum.json" 'j["reads"]')" "$reads"
expect_eq "completed writes (fio issued $writes)" "$(json "$T/sum.json" 'j["writes"]')" "$writes"
expect_eq "starts" "$(json "$T/sum.json" 'j["starts"]')" $((reads + writes))
expect_eq "bytes" "$(json "$T/sum.json" 'j["bytes"]')" $(((reads + writes) * 4096))
expect_eq "lost" "$(json "$T/sum.json" 'j["lost"]')" 0
"$B/vxreplay" "$T/f.vxt" --report events --format csv >"$T/ev.csv"
expect_eq "objects in the events" "$(awk -F, 'NR > 1 { print $2 }' "$T/ev.csv" | sort -u)" "$LNAME"
expect_eq "done events without latency" \
	"$(awk -F, '$3 == "done" && $8 == 0' "$T/ev.csv" | wc -l)" 0
expect_eq "issuer named on completions" \
	"$(awk -F, '$3 == "done" && $12 != "fio"' "$T/ev.csv" | wc -l)" 0
# each completion's latency is its time less its own issue's (same sector)
expect_eq "latency = done - start of the same request" "$(awk -F, '
	$3 == "start" { st[$6] = $1 }
	$3 == "done" && ($6 in st) { if ($1 - st[$6] != $8) bad++ }
	END { print bad + 0 }' "$T/ev.csv")" 0

# ---- a full ring: every record the kernel could not send is counted ----
# the recorder is stopped while fio does 2000 I/Os: 4000 records do not fit
# a 64 KiB ring (1024 records); what is kept plus what is lost is all of them
"$B/vxrecord" --source ebpf --objects "$LNAME" --bufsize 64K -o "$T/l.vxt" -q 2>"$T/rec.err" &
REC=$!
wait_rec "$REC" "$T/l.vxt"
kill -STOP "$REC"
set -- $(fio_run "$LOOP" l randread 2000)
lreads=$1
kill -CONT "$REC"
sleep 0.5
stop_rec INT
# the whole file is written, the losses named in one line, and the exit is 1
expect_eq "vxrecord exit status after a full ring" "$RC" 1
expect_eq "lines naming the full ring (even with -q)" \
	"$(grep -c 'events lost: the ring buffer (64 KiB) was full; a larger --bufsize keeps them' "$T/rec.err")" 1
"$B/vxreplay" "$T/l.vxt" --report summary --format json >"$T/l.json" || fail "vxreplay summary"
lost=$(json "$T/l.json" 'j["lost"]')
[ "$lost" -gt 0 ] && ok "lost $lost records on a full ring" || fail "no lost records on a full ring"
expect_eq "kept + lost records (fio did $lreads I/Os)" \
	"$(json "$T/l.json" 'j["starts"] + j["ios"] + j["lost"]')" $((2 * lreads))
# ---- VXT_EBPF_NOOP (the benchmark's floor): attached, nothing traced ----
# "clock": the issue's and the completion's programs read the clock once
# each, and nothing else (the verifier drops the code the flags rule out,
# so the loaded programs show exactly the calls left)
clock_reads() {
	for p in vxt_rq_issue vxt_rq_complete; do
		bpftool prog dump xlated name "$p" 2>/dev/null
	done | grep -c 'call bpf_ktime_get_ns'
}
for VXT_EBPF_NOOP in 1 clock; do
	export VXT_EBPF_NOOP
	what="VXT_EBPF_NOOP=$VXT_EBPF_NOOP"
	rm -f "$T/noop.vxt"
	start_rec "$T/noop.vxt" --source ebpf --objects "$LNAME" || continue
	expect_eq "$what: programs attached" "$(ours)" 3
	want=0 clocked=0
	[ "$VXT_EBPF_NOOP" = clock ] && want=2 clocked=1
	expect_eq "$what: clock reads left in the loaded programs" "$(clock_reads)" $want
	set -- $(fio_run "$LOOP" n randread 200)
	expect_eq "$what: fio read (while the programs ran)" "$1" 200
	stop_rec INT
	expect_eq "$what: exit status" "$RC" 0
	expect_eq "$what: events in the file" "$("$B/vxreplay" "$T/noop.vxt" \
		--report summary --format json | python3 -c 'import json, sys
print(json.load(sys.stdin)["events"])')" 0
	grep -q 'VXT_EBPF_NOOP: the programs were attached and traced nothing' "$T/rec.err" &&
		ok "$what: the closing line says so" ||
		fail "$what: no line saying nothing was traced: $(cat "$T/rec.err")"
	expect_eq "$what: the closing line names the clock reads" \
		"$(grep -c 'traced nothing (each issue and completion read the clock once)' "$T/rec.err")" $clocked
	unset VXT_EBPF_NOOP
	wait_gone "after $what"
done

losetup -d "$LOOP"; LOOP=

# ---- real errors: a loop device over a file on a full tmpfs ----
mkdir "$T/full"
if mount -t tmpfs -o size=4M tmpfs "$T/full" 2>/dev/null; then
	truncate -s 64M "$T/full/d.img"
	LOOP=$(losetup -f --show "$T/full/d.img") || skip "no free loop device"
	LNAME=${LOOP#/dev/}
	"$B/vxrecord" --source ebpf --objects "$LNAME" -o "$T/e.vxt" -q 2>"$T/rec.err" &
	REC=$!
	wait_rec "$REC" "$T/e.vxt"
	"$B/vxrecord" --source tracefs --objects "$LNAME" -o "$T/t.vxt" -q 2>"$T/rec2.err" &
	REC2=$!
	wait_rec "$REC2" "$T/t.vxt"
	sleep 0.3
	dd if=/dev/urandom of="$LOOP" bs=64k count=200 oflag=direct 2>/dev/null
	sleep 0.3
	kill -INT "$REC2"; wait "$REC2"
	stop_rec INT
	errs() {
		"$B/vxreplay" "$1" --report events --format csv |
			awk -F, 'NR > 1 && $9 != 0 { print $3, $4, $6, $7, $9, $10, $12 }'
	}
	errs "$T/e.vxt" >"$T/e.err"
	errs "$T/t.vxt" >"$T/t.err"
	expect_eq "ENOSPC completions seen by ebpf" "$(grep -c ' ENOSPC dd$' "$T/e.err")" \
		"$(grep -c . "$T/e.err")"
	[ -s "$T/e.err" ] && ok "ebpf saw $(grep -c . "$T/e.err") failed completions" ||
		fail "no failed completion seen by ebpf"
	expect_eq "ebpf and tracefs agree on every failed completion" \
		"$(diff "$T/e.err" "$T/t.err" >/dev/null && echo same || diff "$T/e.err" "$T/t.err")" same
	losetup -d "$LOOP"; LOOP=
	umount "$T/full"
else
	ok "skipped the full-tmpfs errors: cannot mount a tmpfs here"
fi

# ---- the default source picks ebpf here, and says why not the module ----
if [ ! -e /dev/vxtrace ]; then
	"$B/vxrecord" -c 1 -o "$T/d.vxt" 2>"$T/d.err" &
	d=$!
	sleep 1
	kill -INT $d 2>/dev/null; wait $d
	expect_eq "default source in the header" \
		"$("$B/vxreplay" "$T/d.vxt" --info | sed -n 's/.*source[: ]*\(ebpf\).*/\1/p' | head -n 1)" ebpf
	grep -q 'kmod: no /dev/vxtrace' "$T/d.err" &&
		ok "says why the module was not used" ||
		fail "no line saying why kmod was skipped: $(cat "$T/d.err")"
fi

# ---- SIGKILL leaves nothing attached ----
"$B/vxrecord" --source ebpf -o "$T/k.vxt" -q 2>"$T/rec.err" &
REC=$!
wait_rec "$REC" "$T/k.vxt"
expect_eq "attached before SIGKILL" "$(ours)" 3
stop_rec KILL 2>/dev/null
wait_gone "after SIGKILL"

# ---- without permission: one line naming what is missing and what to use ----
chmod 777 "$T"
if command -v setpriv >/dev/null &&
   setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$B/vxrecord" -a -w "$T"; then
	expect_fail "not root" 1 "ebpf: no permission to load BPF programs .*use --source tracefs" -- \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$B/vxrecord" --source ebpf -o "$T/np.vxt"
	wait_gone "after the unprivileged try"
else
	ok "skipped the unprivileged check: nobody cannot run $B/vxrecord here"
fi
# root without the capabilities BPF needs (as a container may run it): the
# same one line, exit 1, no file, nothing left loaded
if setpriv --bounding-set -bpf,-perfmon,-sys_admin --inh-caps -bpf,-perfmon,-sys_admin \
	true 2>/dev/null; then
	setpriv --bounding-set -bpf,-perfmon,-sys_admin --inh-caps -bpf,-perfmon,-sys_admin \
		"$B/vxrecord" --source ebpf -o "$T/nc.vxt" -q 2>"$T/nc.err"
	expect_eq "root without CAP_BPF: exit" "$?" 1
	expect_eq "root without CAP_BPF: lines naming what is missing and what to use" \
		"$(grep -c '^vxrecord: ebpf: no permission to load BPF programs (needs root or CAP_BPF+CAP_PERFMON; lockdown?); use --source tracefs$' "$T/nc.err")/$(wc -l <"$T/nc.err")" 1/1
	[ -e "$T/nc.vxt" ] && fail "root without CAP_BPF: a file was left"
	wait_gone "after the try without CAP_BPF"
else
	ok "skipped the check without CAP_BPF: setpriv cannot drop capabilities here"
fi
finish
