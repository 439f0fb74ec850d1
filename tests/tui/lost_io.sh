#!/bin/sh
# lost_io.sh - the detail of an issue whose completion was lost says so:
# closed by the lost event naming it (the ebpf source's completion that
# never ran its programs), or by the first lost event after it that names
# no I/O; an issue completed shows its completion, as before.
. "$VXT_TOP/tests/tui/tmux.inc"
b=$B tmp=$T
. "$VXT_TOP/tests/cli/vxtgen.inc"
# TIME OBJECT PHASE OP SECTOR BYTES LATENCY ERROR COMM; a lost event's
# latency column is 1 + the sector of the I/O it names
"$gen" "$T/li.vxt" <<'EOF2' || fail "vxtgen"
1000000000 loop0 0 0 800 4096 0 0 fio
1000100000 loop0 0 1 1600 4096 0 0 fio
1000200000 loop0 0 0 2400 4096 0 0 fio
1000300000 loop0 1 0 2400 4096 100000 0 fio
1200000000 loop0 3 0 1 4096 801 0 fio
1300000000 - 3 6 5 0 0 0 -
1400000000 loop0 0 0 3200 4096 0 0 fio
1400100000 loop0 1 0 3200 4096 100000 0 fio
EOF2

start 120 40 "$B/vxreplay" "$T/li.vxt"
wait_for 'events 8/8'
screen | grep -Eq '^ +0\.200000 +loop0 +lost +read +800 +4\.0KiB .*lost 1 ' ||
	fail "the lost event naming the read is listed with its object, op and sector"
ok "the lost event naming an I/O is listed with it"
keys g
keys Enter
wait_for 'Its whole I/O'
screen | grep -Eq '^ +done +lost: closed by the lost event #4 at 0\.2.*never ran the BPF programs' ||
	fail "the first read: closed by the lost event naming it"
ok "an issue closed by the lost event naming it"
keys Escape
keys Down
keys Enter
wait_for 'Its whole I/O'
screen | grep -Eq '^ +done +lost: closed by the lost event #5 at 0\.3.*the source dropped events' ||
	fail "the write: closed by the lost event after it"
ok "an issue closed by the first lost event after it naming no I/O"
keys Escape
keys Down
keys Enter
wait_for 'Its whole I/O'
screen | grep -Eq '^ +done +#3 ' || fail "the completed read: its completion"
ok "a completed issue: its completion"
keys Escape
keys q
wait_for '^\[exit 0\]'
