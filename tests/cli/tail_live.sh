#!/bin/sh
# tail_live.sh - readers opening a file while vxrecord appends to it: every
# look opens, reads only whole chunks (the events are a prefix of the
# finished file's) and never reports damage other than a torn tail.
. "$VXT_TOP/tests/lib.sh"

f=$T/live.vxt
"$B/vxrecord" -q --source sim --realtime --rate 20000 --seed 8 -d 4s -o "$f" & pid=$!
looks=0 grew=0 last=0
while kill -0 $pid 2>/dev/null; do
	if [ -s "$f" ] && "$B/vxreplay" "$f" --report events --format csv >"$T/look$looks.csv" \
		2>"$T/err"; then
		n=$(($(wc -l <"$T/look$looks.csv") - 1))
		[ "$n" -gt "$last" ] && grew=$((grew + 1))
		last=$n
		looks=$((looks + 1))
	elif [ -s "$f" ]; then
		grep -q "header" "$T/err" || fail "a look failed: $(cat "$T/err")"
	fi
	sleep 0.1
done
wait $pid || fail "vxrecord"
"$B/vxreplay" --verify "$f" >/dev/null || fail "the finished file does not verify"
"$B/vxreplay" "$f" --report events --format csv >"$T/final.csv" || fail "final read"
total=$(($(wc -l <"$T/final.csv") - 1))
i=0
while [ $i -lt $looks ]; do
	n=$(wc -l <"$T/look$i.csv")
	head -n "$n" "$T/final.csv" | cmp -s - "$T/look$i.csv" ||
		fail "look $i: its $((n - 1)) events are not the file's first"
	i=$((i + 1))
done
[ $looks -ge 5 ] && [ $grew -ge 2 ] && ok "$looks looks while writing, $grew saw it grow; $total events in the end" ||
	fail "only $looks looks, $grew saw growth"
finish
