#!/bin/sh
# damage.sh - a damaged chunk does not hide the rest from the browser: with 8
# bytes overwritten at 1.5 MB, `j` to a time inside the damaged chunk goes on
# at the first event of the next chunk (from the intact file's index) and
# names the damaged chunk, instead of "nothing shown at or after"; the
# timeline is binned from every other chunk (no "index estimate" left) and
# the header counts the damaged chunk; under a filter the count covers the
# rest. In the event list the damaged chunk is one labelled row (its number,
# the events lost, its time span), filtered or not, never blank rows.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/t.vxt" 400000
cp "$T/t.vxt" "$T/d.vxt"
printf 'XXXXXXXX' | dd of="$T/d.vxt" bs=1 seek=1572864 conv=notrunc 2>/dev/null
# the damaged chunk, the middle of its span and the start of the next one,
# relative to the first event, from the intact file's chunk table
"$B/vxreplay" "$T/t.vxt" --info | awk '
	/^chunks:/ { on = 1; next }
	on && $1 ~ /^[0-9]+$/ {
		if (bad != "") { printf "%s %.3f %.6f %s %s %s\n", bad, mid, $(NF - 2), cnt, t0, t1; exit }
		if ($2 <= 1572864 && 1572864 < $2 + $3) {
			bad = $1; mid = ($(NF - 2) + $NF) / 2; cnt = $5
			t0 = substr($(NF - 2), 1, length($(NF - 2)) - 3); t1 = substr($NF, 1, length($NF) - 3)
		}
	}' > "$T/which"
read -r chunk mid next count t0 t1 < "$T/which" || { echo "no damaged chunk found"; exit 1; }
gap="chunk $chunk damaged: $count events lost \\($t0""s - $t1""s\\)"
# list_blank: blank rows between the list's heading and its last row
list_blank() {
	screen | sed -n '/TIME .*OBJECT/,$p' | sed '1d;$d' | sed -e :a -e '/^ *$/{$d;N;ba' -e '}' |
		grep -c '^ *$'
}

start 120 40 "$B/vxreplay" "$T/d.vxt"
wait_for 'events 400000/400000'
wait_idle
wait_for "damaged chunk $chunk skipped, $count events lost"
screen | grep -q 'index estimate' && fail "the timeline stayed an index estimate"
ok "timeline binned past damaged chunk $chunk; the header says so"
keys j
text "$mid"
keys Enter
wait_for "cursor $next"
screen | grep -q 'nothing shown at or after' && fail "j $mid: nothing shown"
wait_for "chunk $chunk: corrupt data \\(CRC\\)"
ok "j $mid (inside damaged chunk $chunk) goes on at $next"
# the damaged chunk is one labelled row of the list, not blank rows
wait_for "$gap"
[ "$(list_blank)" = 0 ] || fail "blank rows in the event list"
keys Up
wait_for "cursor ${t0}s"
screen | grep "$gap" | grep -q '#' && fail "the gap row shows an event"
keys Up
sleep 0.3
screen | grep -q "cursor ${t0}s" && fail "Up from the gap row stayed on it"
keys Down Down
wait_for "cursor $next"
ok "chunk $chunk: one row '$gap'; Up/Down stop on it once"

# a filter counts every other chunk: the reference is the intact file's
# matching events without the damaged chunk's
want=$("$B/vxreplay" "$T/d.vxt" --report events --format csv --filter 'object == "sdb"' 2>/dev/null |
	tail -n +2 | wc -l)
keys /
text 'object == "sdb"'
keys Enter
wait_for "events $want/400000" 20
ok "filter: $want events shown, as the batch report counts past the damage"
keys j
text "$mid"
keys Enter
wait_for "$gap"
[ "$(list_blank)" = 0 ] || fail "blank rows in the filtered event list"
ok "filter: the damaged chunk is still one labelled row"
