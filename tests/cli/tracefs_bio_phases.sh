#!/bin/sh
# tracefs_bio_phases.sh - a bio-based device (zram) under --phases all: each
# fio I/O is a queue and a completion, both flagged "bio"; the breakdown
# pairs every completion with its queue (Q2C, no "no-issue": a bio-based
# device issues nothing) and its Q2C average is the one ivpair.awk computes
# from the events.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
make_zram 32M

start_rec "$T/z.vxt" --source tracefs --objects "zram$ZRAM" --phases all -q || finish
set -- $(fio_run "/dev/zram$ZRAM" zw randwrite 150)
writes=$2
sleep 0.5
stop_rec INT
expect_eq "vxrecord exit status" "$RC" 0
"$B/vxreplay" "$T/z.vxt" --report events --format csv >"$T/ev.csv" || fail "events"
expect_eq "queues (fio wrote $writes)" \
	"$(awk -F, '$3 == "queue" && $4 == "write"' "$T/ev.csv" | wc -l)" "$writes"
expect_eq "completions (fio wrote $writes)" \
	"$(awk -F, '$3 == "done" && $4 == "write"' "$T/ev.csv" | wc -l)" "$writes"
expect_eq "events neither queue nor done" \
	"$(awk -F, 'NR > 1 && $3 != "queue" && $3 != "done"' "$T/ev.csv" | wc -l)" 0
expect_eq "events not flagged bio" "$(awk -F, 'NR > 1 && $5 !~ /bio/' "$T/ev.csv" | wc -l)" 0

"$B/vxreplay" "$T/z.vxt" --report breakdown --format json >"$T/bd.json" || fail "breakdown"
n=$(json "$T/bd.json" 'j["objects"]["zram'"$ZRAM"'"]["q2c"]["n"]')
avg=$(json "$T/bd.json" 'j["objects"]["zram'"$ZRAM"'"]["q2c"]["avg_ns"]')
dones=$(awk -F, '$3 == "done"' "$T/ev.csv" | wc -l)
expect_eq "Q2C count (every completion)" "$n" "$dones"
expect_eq "no-issue" "$(json "$T/bd.json" 'j["unpaired"]["no-issue"]["n"]')" 0
expect_eq "no-queue" "$(json "$T/bd.json" 'j["unpaired"]["no-queue"]["n"]')" 0
# the reference: ivpair.awk's Q2C of each completion, averaged
ref=$(awk -F, -f "$VXT_TOP/tests/cli/ivpair.awk" "$T/ev.csv" |
	awk '$6 != "-" { s += $6; n++ } END { if (n) printf "%d %d\n", n, int(s / n + 0.5) }')
expect_eq "Q2C count and average (ivpair.awk)" "$ref" "$n $avg"
finish
