#!/bin/sh
# rewritten.sh - a file written anew in place (vxrecord --force: same inode,
# truncated, another header) while it is read: vxtop --follow says so and
# exits 1, where it showed 0/s forever; an open SQL table fails the next
# statement naming the file, where it read the new events under the old
# header and index.
. "${VXT_TOP:-.}/tests/lib.sh"
rec=
cleanup() {
	[ -n "$rec" ] && kill "$rec" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
f=$T/live.vxt

# --- vxtop --follow -----------------------------------------------------------------
"$B/vxrecord" -o "$f" -s sim --realtime -d 30s -q --rate 2000 --seed 5 2>"$T/rec.err" &
rec=$!
i=0
while [ ! -s "$f" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
"$B/vxtop" -b -c 20 -i 500ms -F json --follow "$f" </dev/null >"$T/top.json" 2>"$T/top.err" &
top=$!
sleep 2
kill -INT "$rec"
wait "$rec"
rec=
"$B/vxrecord" -o "$f" --force -s sim --realtime -d 6s -q --rate 2000 --seed 6 2>"$T/rec.err" &
rec=$!
wait "$top"
expect_eq "vxtop --follow on a file written anew: exit" $? 1
grep -q "live.vxt: .*(written anew?)" "$T/top.err" && ok "vxtop: $(cat "$T/top.err")" ||
	fail "vxtop said: $(cat "$T/top.err")"
# the new capture has done its part once vxtop has ended: stopped, not run out
kill -INT "$rec"
wait "$rec"
rec=

# --- an SQL table open while the file is written anew ---------------------------------
"$B/vxrecord" -o "$f" --force -s sim -d 2s -q --seed 7 || fail "vxrecord"
n=$("$B/vxreplay" "$f" --sql "SELECT count(*) FROM events" --format csv | tail -n 1)
{
	echo "SELECT count(*) FROM events;"
	i=0
	while [ ! -e "$T/again" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	echo "SELECT count(*) FROM events;"
	echo "SELECT sum(bytes) FROM events;"
	echo "SELECT count(*) FROM chunks;"
} | "$B/vxreplay" "$f" --sql - --format csv >"$T/sql.out" 2>"$T/sql.err" &
q=$!
i=0
while [ ! -s "$T/sql.out" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
"$B/vxrecord" -o "$f" --force -s sim -d 3s -q --seed 8 || fail "vxrecord again"
touch "$T/again"
wait $q
expect_eq "the first statement" "$(sed -n 2p "$T/sql.out")" "$n"
expect_eq "rows after the file was written anew" "$(grep -c '^[0-9]' "$T/sql.out")" 1
expect_eq "errors after the file was written anew" \
	"$(grep -c "live.vxt: .*(written anew?); reopen the table" "$T/sql.err")" 3
finish
