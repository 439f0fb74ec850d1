#!/bin/sh
# timeline_pending.sh - the timeline prints no latency quantile it does not
# know: while the browser reads a large file's chunks in the background, the
# bins it has from the index alone (latencies to a power of two) show no
# p99, the scale says "..." and the title "(reading the latencies)"; once
# read, the scale is a duration, and never a "~" estimate. The file opens
# at once (its events are not read before the first screen). The heatmap's
# latency-p99 likewise: while its cells are read, its scale is "..." and
# every scale it prints is the one it prints at rest.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/big.vxt" 2000000
start 120 40 "$B/vxreplay" "$T/big.vxt"
keys c c c c	# to p99 (errors, IOPS, MiB/s, p50, p99) from the first screen on
keys M M	# the heatmap to latency-p99 (iops, bytes, latency-p99)
seen=0 n=0 : >"$T/heat"
while [ $n -lt 600 ]; do
	s=$(screen)
	printf '%s\n' "$s" | grep -q '~[0-9]' && { fail "an estimate (~) on screen"; break; }
	printf '%s\n' "$s" | grep '^latency-p99 ' >>"$T/heat"
	if printf '%s\n' "$s" | grep -q '^ Latency p99 .*(reading the latencies)'; then
		top=$(printf '%s\n' "$s" | grep -n '^ Latency p99 ' | cut -d: -f1)
		v=$(printf '%s\n' "$s" | sed -n "$((top + 1))p" | cut -c1-8 | tr -d ' ')
		[ "$v" = "..." ] || fail "p99 scale while the latencies are read: got $v, want ..."
		seen=$((seen + 1))
	elif printf '%s\n' "$s" | grep -q 'events 2000000/2000000' &&
	     printf '%s\n' "$s" | tail -n 1 | grep -vq 'Esc:cancel'; then
		break
	fi
	n=$((n + 1))
done
wait_idle
s=$(screen)
printf '%s\n' "$s" | grep -q '(reading the latencies)' && fail "still reading the latencies at rest"
top=$(printf '%s\n' "$s" | grep -n '^ Latency p99 ' | cut -d: -f1)
[ -n "$top" ] || fail "no p99 timeline"
v=$(printf '%s\n' "$s" | sed -n "$((top + 1))p" | cut -c1-8 | tr -d ' ')
echo "$v" | grep -Eq '^[0-9.]+(ns|us|ms|s)$' || fail "p99 scale at rest: got $v, want a duration"
hrest=$(printf '%s\n' "$s" | grep '^latency-p99 ')
echo "$hrest" | grep -Eq '^latency-p99 [0-9.]+(ns|us|ms|s) .* [0-9.]+(ns|us|ms|s) ' ||
	fail "heatmap latency-p99 scale at rest: got $hrest"
hother=$(grep -v -F -x -e "$hrest" "$T/heat" | grep -v '^latency-p99 \.\.\. .* \.\.\. ' | head -n 1)
[ -z "$hother" ] && ok "heatmap scale ... on $(grep -c '^latency-p99 \.\.\.' "$T/heat") screens, else the one at rest" ||
	fail "heatmap scale while its cells were read: $hother, at rest: $hrest"
[ $seen -gt 0 ] && ok "p99 scale ... on $seen screens while the latencies were read, then $v" ||
	echo "note: the latencies were read before a screen showed p99 (scale $v)"
keys q
wait_for '^\[exit 0\]'
