#!/bin/sh
# spec.sh - s shows what the errors-in-context speculation commits: only the
# I/O on the same object around each error, with the counts in the header and
# the committing error in the list title; s again returns to every event.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv"
# errors: relative seconds and object
awk -F, 'NR == 2 { t0 = $1 } NR > 1 && $9 != 0 { printf "%.9f %s\n", ($1 - t0) / 1e9, $2 }' \
	"$T/ev.csv" >"$T/errs"

start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
keys s
sleep 0.5
screen | grep -q 'speculation is not available' && { echo "no speculation engine in this build"; exit 77; }
wait_for 'spec on errors-in-context: [0-9]+ committed' 30
wait_idle
shown=$(screen | sed -n 's/.*events \([0-9]*\)\/300000.*/\1/p')
[ -n "$shown" ] && [ "$shown" -gt 45 ] && [ "$shown" -lt 300000 ] || fail "shown $shown"
ok "s: $shown events committed around the errors"

# Every listed event is on an error's object, from 200 ms before the error to
# 50 ms after it (errors-in-context.yaml).
check_rows() {
	screen | sed -n '/SPEC .*TIME .*OBJECT/,$p' | sed '1d;$d' | awk '{ print $2, $3 }' |
		grep -E '^[0-9]' >"$T/rows"
	[ -s "$T/rows" ] || fail "no rows listed"
	awk 'NR == FNR { et[NR] = $1; eo[NR] = $2; n = NR; next }
	     { ok = 0; for (i = 1; i <= n; i++) if (eo[i] == $2 && $1 >= et[i] - 0.2001 && $1 <= et[i] + 0.0501) ok = 1
	       if (!ok) { print "outside any error context: " $0; bad = 1 } }
	     END { exit bad }' "$T/errs" "$T/rows" || fail "a row outside the error contexts"
}
check_rows
keys NPage NPage
sleep 0.3
check_rows
keys G
sleep 0.3
check_rows
ok "only context around errors is listed"
screen | grep -Eq 'spec [0-9]+: EIO on [a-z0-9-]+ at [0-9.]+s' || fail "the committing error is not shown"

keys g e
wait_for 'cursor 1\.00'
screen | grep -E '^ +[0-9]+ +1\.00[0-9]+ ' | grep -q ' sdb .*EIO' || fail "e in the speculation view"
ok "e in the speculation view"

keys s
wait_for 'events 300000/300000'
screen | grep -q 'spec off' || fail "s again: speculation off"
ok "s again: every event"
keys q
wait_for '^\[exit 0\]'
