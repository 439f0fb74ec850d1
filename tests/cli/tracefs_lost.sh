#!/bin/sh
# tracefs_lost.sh - when the ring overflows (small --bufsize, recorder
# stopped while fio runs), the overrun shows up as lost events.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
make_loop 64M

start_rec "$T/l.vxt" --source tracefs --objects "$LNAME" --bufsize 16k -q || finish
kill -STOP "$REC"
set -- $(fio_run "$LOOP" w randwrite 20000)
writes=$2
kill -CONT "$REC"
sleep 1
stop_rec INT
expect_eq "vxrecord exit status" "$RC" 0
"$B/vxreplay" "$T/l.vxt" --report summary --format json >"$T/sum.json" || fail "summary"
got=$(json "$T/sum.json" 'j["writes"]')
lost=$(json "$T/sum.json" 'j["lost"]')
[ "$lost" -gt 0 ] && ok "lost events reported: $lost" || fail "no lost events reported"
[ "$got" -lt "$writes" ] && ok "captured $got of $writes writes" ||
	fail "captured $got of $writes writes with a 16k ring"
# every event fio caused (a start and a done per write) is captured or counted lost
seen=$(json "$T/sum.json" 'j["starts"] + j["ios"]')
[ $((seen + lost)) -ge $((writes * 2)) ] && ok "captured $seen + lost $lost = 2 x $writes writes" ||
	fail "captured $seen events + $lost lost < 2 x $writes writes"
finish
