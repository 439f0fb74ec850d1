#!/bin/sh
# damage.sh - damage does not hide intact data: 8 bytes overwritten at 1.5 MB
# of a trace spoil one chunk; every report and export skips it, names it on
# stderr in one line (file, chunk, offset), prints the rest exactly (the
# reference is the intact file's events without that chunk's, cut with awk)
# and exits 3.
. "${VXT_TOP:?}/tests/lib.sh"
b=$B
cd "$T" || { fail "cd $T"; finish; }

"$b/vxrecord" -q -s sim --seed 1 -c 200000 -o t.vxt || { fail "vxrecord failed"; finish; }
cp t.vxt d.vxt
printf 'XXXXXXXX' | dd of=d.vxt bs=1 seek=1572864 conv=notrunc 2>/dev/null
# the chunk holding offset 1.5 MB, its first event and count (from the intact file)
"$b/vxreplay" t.vxt --info | awk '
	/^chunks:/ { on = 1; next }
	on && $1 ~ /^[0-9]+$/ {
		if ($2 <= 1572864 && 1572864 < $2 + $3) { print $1, first, $5; exit }
		first += $5
	}' > which
read -r chunk first count < which || { fail "no chunk at 1.5 MB: $("$b/vxreplay" t.vxt --info)"; finish; }
# drop events first+1 .. first+count (1-based after the CSV header)
cut_rows() { awk -v a="$first" -v n="$count" 'NR == 1 || NR - 1 <= a || NR - 1 > a + n'; }
"$b/vxreplay" t.vxt --report events --format csv | cut_rows > want.csv
total=$(($(wc -l < want.csv) - 1))

# each run: exit 3, one line naming file, chunk and offset
run() {
	what=$1; shift
	"$b/vxreplay" d.vxt "$@" > out 2> err
	rc=$?
	[ $rc -eq 3 ] || fail "$what: exit $rc, want 3: $(cat err)"
	# one line for the damage (an export may add its own "note:" lines)
	grep -v '^vxreplay: note: ' err > err.damage
	[ "$(wc -l < err.damage)" -eq 1 ] || fail "$what: the damage is not one line: $(cat err)"
	grep -Eq "^vxreplay: d\.vxt: chunk $chunk: .* at offset [0-9]+; skipped$" err ||
		fail "$what: stderr: $(cat err)"
}
run "events" --report events --format csv
cmp -s out want.csv || fail "events: not the intact events without chunk $chunk"
run "summary" --report summary --format csv
ev=$(tail -n 1 out | cut -d, -f4)
[ "$ev" -eq "$total" ] || fail "summary: $ev events, want $total"
run "summary text" --report summary
grep -q "^events: *$total " out || fail "summary text: $(grep '^events' out)"
run "objects" --report objects --format csv
ios=$(awk -F, 'NR > 1 { n += $4 } END { print n + 0 }' out)
want=$(awk -F, 'NR > 1 && $3 == "done" { n++ } END { print n + 0 }' want.csv)
[ "$ios" -eq "$want" ] || fail "objects: $ios I/Os, want $want"
run "errors" --report errors --format csv
got=$(($(wc -l < out) - 1))
want=$(awk -F, 'NR > 1 && $3 == "done" && $9 != 0 { n++ } END { print n + 0 }' want.csv)
[ "$got" -eq "$want" ] || fail "errors: $got rows, want $want"
run "export csv" --export csv -o x.csv
"$b/vxreplay" t.vxt --export csv | cut_rows > want-x.csv
cmp -s x.csv want-x.csv || fail "export csv: not the intact export without chunk $chunk"
for e in jsonl chrome blktrace; do
	run "export $e" --export $e -o x.$e
	[ -s x.$e ] || fail "export $e: empty"
done
run "html" --report html -o x.html
grep -q "$total" x.html || fail "html: no $total events"
[ $fails = 0 ] && ok "damage: chunk $chunk of d.vxt skipped, $total events shown"
finish
