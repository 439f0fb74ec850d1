#!/bin/sh
# vxtop_fade.sh - an object that goes idle fades: it stays in the table, drawn
# dim, and sinks over a few intervals instead of jumping to the bottom.
# beta is the busiest writer until --filter cuts its events off at 2 s.
. "$VXT_TOP/tests/tui/tmux.inc"

# wait_until SECONDS CMD...: until CMD succeeds
wait_until() {
	n=$(($1 * 10)); shift
	i=0
	while [ $i -lt $n ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
beta_busy() { row beta | awk '{ ok = $3 + 0 > 1000 } END { exit !ok }'; }
beta_idle() { row beta | awk '{ ok = $3 == "0" } END { exit !ok }'; }
gamma_first() { [ "$(first_row)" = gamma ]; }

# w/s: beta ~7200, gamma ~1200, alpha 0 (reads only)
OBJS="alpha:rand:100:4k:1ms:1,beta:rand:0:8k:2ms:3,gamma:seq:50:64k:3ms:1"
start 120 20 "$B/vxtop --no-color -s sim --seed 4 --rate 24000 --sim-objects '$OBJS'" \
	"--sim-errors none --sort w/s --filter 'object != \"beta\" || time < 2s'"

wait_until 5 beta_busy || fail "beta never busy"
[ "$(first_row)" = beta ] || fail "the busiest writer is not first"
# the first idle interval: beta shows nothing but keeps its place, dimmed
wait_until 4 beta_idle || fail "beta never went idle"
[ "$(first_row)" = beta ] || fail "beta jumped as soon as it went idle"
screen_esc | grep "beta" | grep -q "$(printf '\033')\[2m" ||
	fail "idle beta not drawn dim"
screen | grep -q "objects 3 (1 idle)" || fail "header does not count the idle object"
# then it sinks below gamma, without leaving the table
wait_until 5 gamma_first || fail "idle beta never sank below gamma"
row beta | grep -q . || fail "idle beta left the table"
echo ok
