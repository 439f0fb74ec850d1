#!/bin/sh
# vxtop_script.sh - vxtop --script live: the script screen comes first and
# shows the aggregation the script prints at each wall-clock tick-1s
# (one object of the simulator doing 10000 I/O per second: ~10000 a tick,
# redrawn as ticks come), `a` toggles the table, and at q the END output
# follows on the restored terminal.
. "$VXT_TOP/tests/tui/tmux.inc"
cat >"$T/q.d" <<'D'
#pragma D option quiet
io:::done { @ios[object] = count(); }
tick-1s { printa(@ios); clear(@ios); }
END { printf("total %d ticks\n", ticks); }
io:::done { }
tick-1s { ticks++; }
D
start 100 30 "$B/vxtop" -s sim --rate 20000 --sim-objects alpha:rand:100:4k:1ms:1 --sim-errors none --script "$T/q.d"
wait_for '^script q  output of the interval' 5
sleep 1.2
n1=$(screen | awk '$1 == "alpha" { print $2; exit }')
[ -n "$n1" ] || fail "no alpha count on the script screen"
awk -v n="$n1" 'BEGIN { exit !(n >= 9000 && n <= 11000) }' || fail "alpha counted $n1 in a tick, want ~10000"
ok "script screen: alpha $n1 completions in one tick"
keys a
wait_for '^OBJECT' 2
keys a
wait_for '^script q' 2
keys q
wait_for '\[exit 0\]' 3
screen | grep -Eq '^total [0-9]+ ticks' || fail "END's output not printed at exit"
ok "a toggles the table; END printed at exit"
