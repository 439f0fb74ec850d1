#!/bin/sh
# slow_marks.sh - a profile's `timeline.mark: [slow]` marks, under the error
# timeline's axis, every bin holding an I/O whose latency is at or above
# `thresholds.latency.crit`, and no other; the title says what the marks mean.
# Under a filter, only the I/O shown counts. Checked bin by bin against the
# batch event report.
. "$VXT_TOP/tests/tui/tmux.inc"

W=120 NB=111	# plot columns: width - 8 (labels) - 1; a bin per column
make_trace "$T/s.vxt" 300000
mkdir "$T/prof"
cat >"$T/prof/slowmarks.yaml" <<'YAML'
name: slowmarks
timeline: {mark: [errors, lost, slow]}
thresholds:
  latency: {warn: 10ms, crit: 50ms}
YAML
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv"

# expected: the columns of bins with a done event of 50 ms or more on objects
# matching $1 (a regex), the cursor's column (0) left out
expect() {
	awk -F, -v nb=$NB -v obj="$1" '
		NR == 2 { t0 = $1 } NR > 1 { t1 = $1 + 1; if ($3 == "done" && $8 >= 50000000 && $2 ~ obj) t[++n] = $1 }
		END { for (i = 1; i <= n; i++) { b = int((t[i] - t0) * nb / (t1 - t0)); if (b > 0) s[b] = 1 }
		      for (b in s) print b }' "$T/ev.csv" | sort -n
}
# on screen: the columns of the axis holding the slow mark (ASCII "s")
marks() {
	screen | grep '^errors ' | awk '{ l = substr($0, 10); for (i = 1; i <= length(l); i++) if (substr(l, i, 1) == "s") print i - 1 }' |
		sort -n
}

start $W 40 "$B/vxreplay" --ascii --profile-dir "$T/prof" --profile slowmarks "$T/s.vxt"
wait_for 'events 300000/300000'
wait_idle
expect '' >"$T/want"
[ "$(wc -l <"$T/want")" -gt 3 ] || fail "too few slow I/O in the trace"
marks >"$T/got"
cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got"; fail "slow marks differ from the report"; }
screen | grep -q 'Errors .* ! lost  s slow >=50.0ms' || fail "the title does not say what the marks are"
ok "slow marks at the $(wc -l <"$T/want") bins with I/O of 50 ms or more"

keys /
text 'object == sda'
keys Enter
wait_for 'filter object == sda'
wait_idle
expect '^sda$' >"$T/want"
marks >"$T/got"
cmp -s "$T/want" "$T/got" || { diff "$T/want" "$T/got"; fail "slow marks under a filter"; }
ok "under a filter: $(wc -l <"$T/want") bins, sda's slow I/O only"
keys q
wait_for '^\[exit 0\]'
