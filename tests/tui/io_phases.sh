#!/bin/sh
# io_phases.sh - on the real blktrace capture ../shared/data/blktrace/centos7-sda
# (imported), i lists each completed I/O with its own queue, issue and
# completion times and its Q2C, queue time (Q2D), D2C, I2D and Q2G, and the
# event list gives each completion's Q2C and queue time, as an awk pairing
# over the events CSV computes them: per object and first sector, oldest
# first, a queue / getrq / insert / issue waits for its completion; a merge
# takes the waiting queue of its bio, a requeue the waiting issue.
. "$VXT_TOP/tests/tui/tmux.inc"

data=${VXT_SHARED:-$VXT_TOP/../shared}/data/blktrace/centos7-sda
[ -r "$data/sda.blktrace.0" ] || { echo "no capture at $data (../shared absent): skipped"; exit 77; }
"$B/vxrecord" -q --import blktrace "$data/sda" -o "$T/c.vxt" || fail "import failed"
"$B/vxreplay" "$T/c.vxt" --report events --format csv >"$T/ev.csv"

# the reference: one line per completion, as the I/O listing shows it
awk -F, '
function rel(t,   d) { d = t - t0; return sprintf("%d.%06d", int(d / 1e9), int((d % 1e9) / 1e3)) }
function dur(ns) { if (ns < 1000) return sprintf("%dns", ns); if (ns < 1e6) return sprintf("%.1fus", ns / 1e3)
	if (ns < 1e9) return sprintf("%.1fms", ns / 1e6); return sprintf("%.2fs", ns / 1e9) }
function iv(a, b) { return a && b && b >= a ? dur(b - a) : "-" }
function put(k, key, t) { w[k, key, ++wn[k, key]] = t }
function take(k, key) { if (wh[k, key] >= wn[k, key]) return 0; return w[k, key, ++wh[k, key]] }
NR == 2 { t0 = $1 }
NR == 1 { next }
{ key = $2 SUBSEP $6 }
$3 == "queue" { put("Q", key, $1) } $3 == "getrq" { put("G", key, $1) }
$3 == "insert" { put("I", key, $1) } $3 == "start" { put("D", key, $1) }
$3 == "merge" { take("Q", key) } $3 == "requeue" { take("D", key) }
$3 == "done" {
	q = take("Q", key); g = take("G", key); i = take("I", key); d = take("D", key)
	if (!d && $8 > 0) d = $1 - $8
	print (q ? rel(q) : "-"), (d ? rel(d) : "-"), rel($1), iv(q, $1), iv(q, d), iv(d, $1), iv(i, d), iv(q, g)
}' "$T/ev.csv" >"$T/ref"
n=$(wc -l <"$T/ref")
[ "$n" -gt 100 ] || fail "only $n completions in the capture"
awk '$4 == "-"' "$T/ref" | grep -q . && fail "the reference leaves a completion without its queue"

start 200 160 "$B/vxreplay" "$T/c.vxt"
wait_for 'events 799/799'
wait_idle
# the event list: each completion's Q2C and queue time
screen | grep -q 'LATENCY .*Q2C .*QUEUE ' || fail "no Q2C / QUEUE columns in the event list"
keys i
wait_for "Completed I/Os, each with its own phases"
wait_idle
screen | grep -q 'QUEUED .*ISSUED .*TIME .*Q2C .*QUEUE .*D2C .*I2D .*Q2G ' ||
	fail "the I/O listing's phase columns"
screen | sed -n '/QUEUED .*ISSUED/,$p' | sed '1d;$d' | awk 'NF > 8 { print $1, $2, $3, $4, $5, $6, $7, $8 }' >"$T/rows"
[ "$(wc -l <"$T/rows")" -eq "$n" ] || fail "$(wc -l <"$T/rows") rows listed for $n completions"
cmp -s "$T/ref" "$T/rows" || { diff "$T/ref" "$T/rows" | head; fail "the I/O listing differs from the awk pairing"; }
ok "i: $n completed I/Os, each with its Q, D and C times and Q2C, Q2D, D2C, I2D, Q2G as the awk pairing"

keys i
wait_for ' Events '
screen | sed -n '/TIME .*LATENCY .*Q2C/,$p' | sed '1d;$d' | awk '$3 == "done" { print $1, $8, $9 }' >"$T/ev_rows"
[ -s "$T/ev_rows" ] || fail "no completion in the event list's first page"
awk '{ print $3, $4, $5 }' "$T/ref" | head -n "$(wc -l <"$T/ev_rows")" | cmp -s - "$T/ev_rows" ||
	{ diff "$T/ev_rows" "$T/ref" | head; fail "the event list's Q2C / QUEUE differ"; }
ok "the event list: each completion's Q2C and queue time"
keys q
wait_for '^\[exit 0\]'
