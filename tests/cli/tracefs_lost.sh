#!/bin/sh
# tracefs_lost.sh - when the ring overflows (small --bufsize, recorder
# stopped while fio runs), the overrun shows up as lost events, in the file,
# on the progress line and in the closing summary.
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

# On a terminal the progress line counts the lost events as they come, and
# the closing summary says how many the file holds. (script(1) stops itself
# when its child stops: both are continued.)
# Timed: not under the sanitizers, whose slowdown lets the ring keep up.
if [ -n "${VXT_SAN:-}" ]; then
	echo "progress line not checked under the sanitizers (timed)"
elif script -qfec true /dev/null >/dev/null 2>&1 </dev/null; then
	script -qfec "sh -c 'echo \$\$ >$T/p.pid; exec $B/vxrecord --source tracefs --objects $LNAME --bufsize 16k -o $T/p.vxt'" \
		"$T/tty.log" >/dev/null 2>&1 </dev/null &
	spid=$!
	i=0
	# recording once its instance exists and the output is open (the writer
	# opens after the source has enabled its events)
	while { [ ! -s "$T/p.pid" ] || ! instance_exists "vxrecord-$(cat "$T/p.pid")" ||
		[ ! -e "$T/p.vxt" ]; } && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	REC=$(cat "$T/p.pid" 2>/dev/null)
	if [ -n "$REC" ] && instance_exists "vxrecord-$REC"; then
		sleep 0.6	# a first progress line
		kill -STOP "$REC"
		fio_run "$LOOP" p randwrite 20000 >/dev/null
		kill -CONT "$REC" "$spid"
		sleep 1.5
		kill -INT "$REC"
		wait "$spid"
		REC=
		plost=$(tr '\r' '\n' <"$T/tty.log" | grep -o ' lost [0-9]*' | tail -n 1 | grep -o '[0-9]*$')
		"$B/vxreplay" "$T/p.vxt" --report summary --format json >"$T/p.json" ||
			fail "summary of the terminal run"
		flost=$(json "$T/p.json" 'j["lost"]')
		slost=$(grep -o '[0-9]* lost)' "$T/tty.log" | grep -o '^[0-9]*')
		[ "${plost:-0}" -gt 0 ] && ok "progress line: lost $plost" ||
			{ fail "progress line never showed lost events"; tr '\r' '\n' <"$T/tty.log" | tail -n 3; }
		expect_eq "closing summary's lost count (the file's)" "$slost" "$flost"
	else
		kill -CONT "$spid" 2>/dev/null
		fail "vxrecord under script(1) did not start"
	fi
else
	echo "script(1) cannot run here: the progress line is not checked"
fi
finish
