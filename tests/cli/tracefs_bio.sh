#!/bin/sh
# tracefs_bio.sh - a bio-based device (zram) is traced at bio level: every
# fio I/O once, flagged "bio", with its latency.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
make_zram 32M

start_rec "$T/z.vxt" --source tracefs --objects "zram$ZRAM" -q || finish
set -- $(fio_run "/dev/zram$ZRAM" zw randwrite 300)
writes=$2
set -- $(fio_run "/dev/zram$ZRAM" zr randread 200)
reads=$1
sleep 0.5
stop_rec INT
expect_eq "vxrecord exit status" "$RC" 0
"$B/vxreplay" "$T/z.vxt" --report summary --format json >"$T/sum.json" || fail "summary"
expect_eq "writes (fio issued $writes)" "$(json "$T/sum.json" 'j["writes"]')" "$writes"
expect_eq "reads (fio issued $reads)" "$(json "$T/sum.json" 'j["reads"]')" "$reads"
"$B/vxreplay" "$T/z.vxt" --report events --format csv >"$T/ev.csv"
expect_eq "events not flagged bio" "$(awk -F, 'NR > 1 && $5 !~ /bio/' "$T/ev.csv" | wc -l)" 0
expect_eq "done events without latency" \
	"$(awk -F, '$3 == "done" && $8 == 0' "$T/ev.csv" | wc -l)" 0
finish
