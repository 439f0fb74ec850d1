#!/bin/sh
# ebpf_limits.sh - the ebpf source where it cannot run, each case one line
# naming what is missing and the source to use instead, exit 1, and none of
# its programs left loaded: no BTF, a BTF that cannot be read, a kernel
# without one of the block tracepoints, a program the verifier refuses. The
# kernel's BTF is replaced through VXT_EBPF_BTF (a diagnostic knob) by
# copies of this kernel's with one name changed: btf_trace_block_rq_requeue
# (no such tracepoint), struct request's __data_len (a field the programs
# read is gone: the relocation fails and the verifier refuses the program).
# Then the default source order passes over ebpf without BTF and says why,
# and a full ring buffer says how many events it lost and what keeps them.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
. "$VXT_TOP/tests/cli/ebpf_lost.inc"
need_ebpf
command -v bpftool >/dev/null || skip "no bpftool (apt-get install bpftool)"

ours() { bpftool prog show 2>/dev/null | grep -c 'name vxt_rq_'; }
[ "$(ours)" = 0 ] || skip "another vxrecord's BPF programs are loaded"
# programs go away a moment after their last fd closes
none_left() {
	i=0
	while [ "$(ours)" != 0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	expect_eq "$1: our BPF programs loaded afterwards" "$(ours)" 0
}

python3 - "$T" <<'PY' || fail "making the BTF copies"
import sys
t = sys.argv[1]
d = open("/sys/kernel/btf/vmlinux", "rb").read()
for name, old, new in (("notp", b"btf_trace_block_rq_requeue", b"btf_trace_block_rq_requeuX"),
                       ("nofield", b"__data_len", b"__data_lxn")):
    c = d.replace(b"\0" + old + b"\0", b"\0" + new + b"\0")
    if c == d:
        sys.exit("no %s in this kernel's BTF" % old.decode())
    open("%s/%s.btf" % (t, name), "wb").write(c)
open(t + "/junk.btf", "wb").write(b"not BTF\n" * 16)
PY

rec() { VXT_EBPF_BTF=$1; export VXT_EBPF_BTF; shift; timeout 30 "$B/vxrecord" "$@"; rc=$?; unset VXT_EBPF_BTF; return $rc; }
expect_fail "no BTF" 1 \
	"^vxrecord: ebpf: the kernel has no BTF ($T/none missing); use --source tracefs$" -- \
	rec "$T/none" --source ebpf -o "$T/a.vxt" -c 1
none_left "no BTF"
expect_fail "unreadable BTF" 1 \
	"^vxrecord: ebpf: cannot read the kernel's BTF $T/junk.btf: .*; use --source tracefs$" -- \
	rec "$T/junk.btf" --source ebpf -o "$T/b.vxt" -c 1
none_left "unreadable BTF"
expect_fail "no block_rq_requeue tracepoint" 1 \
	"^vxrecord: ebpf: the kernel has no block_rq_requeue tracepoint (no btf_trace_block_rq_requeue in $T/notp.btf); use --source tracefs$" -- \
	rec "$T/notp.btf" --source ebpf -o "$T/c.vxt" -c 1
none_left "no tracepoint"
expect_fail "the verifier refuses" 1 \
	"^vxrecord: ebpf: the kernel's verifier refused the BPF programs (program vxt_rq_[a-z]*: .*struct request.__data_len.*); use --source tracefs$" -- \
	rec "$T/nofield.btf" --source ebpf -o "$T/d.vxt" -c 1
none_left "verifier"
for f in a b c d; do
	[ -e "$T/$f.vxt" ] && fail "$f.vxt written by a recorder that could not start"
done

make_loop 32M
# ---- the default order without BTF: tracefs, saying why not ebpf ----
if [ ! -e /dev/vxtrace ]; then
	VXT_EBPF_BTF=$T/none "$B/vxrecord" --objects "$LNAME" -c 2 -o "$T/o.vxt" 2>"$T/o.err" &
	REC=$!
	i=0
	while [ ! -e "$T/o.vxt" ] && [ $i -lt 600 ] && kill -0 $REC 2>/dev/null; do
		sleep 0.1; i=$((i + 1)); done
	dd if="$LOOP" of=/dev/null bs=4k count=4 iflag=direct 2>/dev/null
	wait $REC
	expect_eq "default order without BTF: exit" "$?" 0
	expect_eq "default order without BTF: the source" \
		"$("$B/vxreplay" "$T/o.vxt" --info | sed -n 's/^source: *\([a-z]*\).*/\1/p')" tracefs
	grep -q "ebpf: the kernel has no BTF ($T/none)" "$T/o.err" &&
		ok "says why not ebpf" || fail "no line saying why ebpf was skipped: $(cat "$T/o.err")"
fi

# ---- a full ring: the closing note says how many were lost and why; exit 1 ----
"$B/vxrecord" --source ebpf --objects "$LNAME" --bufsize 64K -o "$T/l.vxt" 2>"$T/l.err" &
REC=$!
i=0
while [ ! -e "$T/l.vxt" ] && [ $i -lt 600 ] && kill -0 $REC 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
kill -STOP $REC
set -- $(fio_run "$LOOP" l randread 2000)
kill -CONT $REC
sleep 0.5
stop_rec INT
expect_eq "full ring: exit (the file is whole, the capture is not)" "$RC" 1
lost=$("$B/vxreplay" "$T/l.vxt" --report summary --format json | python3 -c \
	'import json,sys; print(json.load(sys.stdin)["lost"])')
[ "$lost" -gt 0 ] || fail "full ring: nothing lost"
# the lost records also hold events the kernel ran without the programs
# (ebpf_lost.inc), named in their own parts of the same note
missed=$(kernel_skipped "$T/l.err")
ring=$((lost - missed))
[ "$ring" -gt 0 ] || fail "full ring: no event lost to the ring ($lost lost, $missed the kernel ran without the programs)"
expect_eq "full ring: the note" \
	"$(grep -Ec "^vxrecord: (.*; )?$ring events lost: the ring buffer \(64 KiB\) was full; a larger --bufsize keeps them$" "$T/l.err")" 1
none_left "after the captures"
finish
