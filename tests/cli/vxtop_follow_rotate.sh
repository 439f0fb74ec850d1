#!/bin/sh
# vxtop_follow_rotate.sh - vxtop --follow follows the path as tail -F does: when
# vxrecord --rotate renames FILE away, the new FILE is followed, batch output
# says so, and every interval after the rotation shows the recorder's events.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
rec=
trap '[ -n "$rec" ] && kill "$rec" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || { fail "cd $tmp"; finish; }

"$b/vxrecord" -q -s sim --realtime --rate 2000 -d 9s --rotate 3s -o r.vxt &
rec=$!
i=0
while [ ! -s r.vxt ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -s r.vxt ] || { fail "vxrecord made no file"; finish; }
"$b/vxtop" -b -i 1s -c 7 --follow r.vxt > out.txt 2> err.txt || { fail "vxtop --follow failed: $(cat err.txt)"; finish; }
wait "$rec" || fail "vxrecord failed"
rec=
[ -e r.1.vxt ] || fail "the recorder did not rotate: $(ls)"
grep -q "r.vxt: rotated, following the new file" out.txt || fail "no rotation line: $(cat out.txt)"
# events per interval, and the intervals after the first rotation line
awk '/rotated, following/ { after = 1; next }
     / interval / { for (i = 1; i < NF; i++) if ($i == "events") print (after ? "after" : "before"), $(i + 1) }' \
	out.txt > counts
n_after=$(grep -c '^after' counts)
[ "$n_after" -ge 2 ] || fail "fewer than 2 intervals after the rotation: $(cat counts)"
# the last interval may be cut by the recorder's end; the others hold its rate
grep '^after' counts | sed '$d' | while read -r _ n; do
	[ "$n" -gt 1000 ] || { echo "an interval after the rotation shows $n events"; exit 1; }
done || fail "$(cat counts | tr '\n' ' ')"
[ $fails = 0 ] && ok "vxtop_follow_rotate: ok ($(tr '\n' ' ' < counts))"
finish
