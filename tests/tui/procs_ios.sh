#!/bin/sh
# procs_ios.sh - P: a row per process with its completed I/Os and errors in
# the window, with and without a filter; i: the list shows one row per
# completed I/O (issued = completed - latency), counted as the completions.
# Against brute force over `--report events --format csv`.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv"
# want [OBJ]: "pid comm ios errors" per process, sorted
want() {
	awk -F, -v o="$1" 'NR > 1 && $3 == "done" && (o == "" || $2 == o) {
		k = $11 " " $12; n[k]++; if ($9 != 0) e[k]++ }
		END { for (k in n) printf "%s %d %d\n", k, n[k], e[k] }' "$T/ev.csv" | sort
}
got() {
	screen | awk '/^ +PID COMM / { on = 1; next } on && $1 ~ /^[0-9]+$/ && NF >= 7 { print $1, $2, $3, $5 }' | sort
}

start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
wait_idle
keys P
wait_for '^ Processes .* complete  Esc' 20
want >"$T/w"
got >"$T/g"
[ -s "$T/w" ] || fail "no completions in the trace"
cmp -s "$T/w" "$T/g" || fail "processes: $(diff "$T/w" "$T/g" | head -5)"
ok "P: $(wc -l <"$T/w") processes, I/Os and errors"
keys Escape
# under a filter: the processes of what it shows
keys /
text 'object == "sdb"'
keys Enter
wait_for 'filter object == "sdb"'
wait_idle
keys P
wait_for '^ Processes .* filtered  complete  Esc' 20
want sdb >"$T/w"
got >"$T/g"
cmp -s "$T/w" "$T/g" || fail "processes under the filter: $(diff "$T/w" "$T/g" | head -5)"
ok "P under a filter: $(wc -l <"$T/w") processes"
keys Escape
keys /
keys C-u Enter
wait_for 'filter none'
wait_idle

# i: one row per completed I/O
keys i
wait_for '^ Completed I/Os \(LATENCY = D2C; Q2C not captured\)'
n=$(awk -F, 'NR > 1 && $3 == "done"' "$T/ev.csv" | wc -l)
wait_for "  $n shown" 20
first=$(awk -F, 'NR == 2 { t0 = $1 } NR > 1 && $3 == "done" {
	printf "%.6f %.6f\n", ($1 - $8 - t0) / 1e9, ($1 - t0) / 1e9; exit }' "$T/ev.csv")
row=$(screen | awk '/^ +ISSUED +TIME / { getline; print $1, $2 }')
# the listing shows times truncated to the microsecond
w1=$(awk -F, 'NR == 2 { t0 = $1 } NR > 1 && $3 == "done" {
	a = $1 - $8 - t0; b = $1 - t0
	printf "%d.%06d %d.%06d\n", a / 1e9, (a % 1e9) / 1e3, b / 1e9, (b % 1e9) / 1e3; exit }' "$T/ev.csv")
[ "$row" = "$w1" ] || fail "first I/O: issued/completed [$row] want [$w1] ($first)"
ok "i: $n completed I/Os, the first issued/completed at $row"
keys i
wait_for '^ Events'
wait_for '  300000 shown'
ok "i again: every event"
keys q
wait_for '^\[exit 0\]'
