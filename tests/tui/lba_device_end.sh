#!/bin/sh
# lba_device_end.sh - the LBA heatmap stops at the object's end: I/O over a
# whole 256 GiB simulated disk gives round rows (1/2/5 x 10^k sectors) none of
# which starts past the disk, and the title's last sector is the disk's
# (the objects table's size), not the rounded span's.
. "$VXT_TOP/tests/tui/tmux.inc"

"$B/vxrecord" -q -s sim --seed 5 -d 2s --rate 20000 --sim-objects 'tiny:rand:50:64k:100us' \
	--sim-errors none -o "$T/t.vxt" || fail "vxrecord"
size=$("$B/vxreplay" "$T/t.vxt" --sql "SELECT size_bytes FROM objects" --format csv | tail -1)
end=$((size / 512))
[ "$end" -gt 0 ] || fail "no size for the object"
start 120 40 "$B/vxreplay" "$T/t.vxt"
wait_for 'events [0-9]+/[0-9]+ '
wait_idle
keys o
wait_for '^OBJECT '
keys l
wait_for '^ Heatmap tiny by LBA: sectors [0-9]+-[0-9]+ in [0-9]+ rows of [0-9]+ ' 20
wait_idle
set -- $(screen | sed -n 's/^ Heatmap tiny by LBA: sectors \([0-9]*\)-\([0-9]*\) in \([0-9]*\) rows of \([0-9]*\) .*/\1 \2 \3 \4/p')
[ $# -eq 4 ] || fail "no LBA title: $(screen | grep Heatmap)"
first=$1 last=$2 rows=$3 row=$4
[ "$last" -eq $((end - 1)) ] && ok "the title ends at the disk's last sector, $last" ||
	fail "title ends at $last, the disk at $((end - 1))"
[ $((first + (rows - 1) * row)) -lt "$end" ] && ok "$rows rows of $row: none past the end" ||
	fail "$rows rows of $row from $first: the last starts past the disk's end $end"
keys q
wait_for '^\[exit 0\]'
