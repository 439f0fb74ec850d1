#!/bin/sh
# timeline_bin.sh - a profile's `timeline.bin: 20ms` gives the error timeline
# bins of that width: the window is as wide as the bins that fit (111 columns
# at 120), the title says the width, and + / - zoom by halving / doubling it.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
mkdir "$T/prof"
printf 'name: tb\ntimeline:\n  bin: 20ms\n' >"$T/prof/tb.yaml"
start 120 40 "$B/vxreplay" "$T/s.vxt" --profile "$T/prof/tb.yaml"
wait_for 'events 300000/300000'
wait_idle
wait_for '^ Errors  0\.000000\.\.2\.220000s  bin 20\.0ms '
ok "bin 20ms: 111 bins over 2.22 s"
keys +
wait_for '^ Errors  0\.000000\.\.1\.110000s  bin 10\.0ms '
keys - -
wait_for '^ Errors  0\.000000\.\.4\.440000s  bin 40\.0ms '
ok "+ and - halve and double the bin"
keys q
wait_for '^\[exit 0\]'
