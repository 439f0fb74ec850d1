#!/bin/sh
# two_writers.sh - one writer per trace: while a vxrecord writes FILE, a
# second `vxrecord -f -o FILE` (with or without --rotate) is refused with
# "FILE: in use by pid N" and a non-zero exit; the first file is left whole.
. "${VXT_TOP:?}/tests/lib.sh"
b=$B
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT
cd "$T" || { fail "cd $T"; finish; }

"$b/vxrecord" -q -s sim --realtime --rate 2000 -d 30s -o same.vxt &
pid=$!
i=0
while [ ! -s same.vxt ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -s same.vxt ] || { fail "the first vxrecord did not start"; finish; }
for extra in "" "--rotate 1m"; do
	# shellcheck disable=SC2086 # $extra is two words on purpose
	"$b/vxrecord" -q -s sim -c 1000 -f $extra -o same.vxt 2> err.txt
	rc=$?
	[ $rc -ne 0 ] || fail "a second writer ($extra) exited 0"
	grep -qx "vxrecord: same.vxt: in use by pid $pid" err.txt ||
		fail "a second writer ($extra) said: $(cat err.txt)"
	[ -s same.vxt ] || fail "the second writer ($extra) truncated the file"
	[ ! -e same.1.vxt ] || fail "the second writer ($extra) rotated the live file away"
done
kill -INT "$pid"
wait "$pid" || fail "the first vxrecord failed"
pid=
"$b/vxreplay" --verify same.vxt > /dev/null || fail "the first writer's file does not verify"
# with the first writer gone the file is free again
"$b/vxrecord" -q -s sim -c 1000 -f -o same.vxt || fail "-f after the first writer ended failed"
[ $fails = 0 ] && ok "two_writers: a second writer refused, the first one's file whole"
finish
