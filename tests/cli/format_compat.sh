#!/bin/sh
# format_compat.sh - files in the older layout (each chunk one zstd frame,
# tests/data/hostile/base-sound) read exactly as files written now (one
# frame per column): the same capture, the same events, the same reports;
# and the reports that read a few fields give what a full decode gives.
. "$VXT_TOP/tests/lib.sh"
old=$VXT_TOP/tests/data/hostile/base-sound
# base-sound was made by: vxrecord --source sim --seed 5 -c 600 --rate 200
"$B/vxrecord" -q --source sim --seed 5 -c 600 --rate 200 -o "$T/new.vxt" || fail "vxrecord"
"$B/vxreplay" --info "$old" | grep -q "incompat 0x0)" || fail "base-sound is not in the older layout"
"$B/vxreplay" --info "$T/new.vxt" | grep -q "incompat 0x1)" || fail "a new file does not say its layout"
for r in old new; do
	f=$old; [ $r = new ] && f=$T/new.vxt
	"$B/vxreplay" "$f" --export csv -o "$T/$r.csv" || fail "$r: export"
	"$B/vxreplay" "$f" --report summary --format json > "$T/$r.sum" ||
		fail "$r: summary"
	"$B/vxreplay" "$f" --report objects --format csv > "$T/$r.obj" || fail "$r: objects"
done
cmp -s "$T/old.csv" "$T/new.csv" && ok "events: same in both layouts" || fail "events differ"
expect_eq "events" "$(($(wc -l < "$T/new.csv") - 1))" 600
python3 - "$T/old.sum" "$T/new.sum" <<'PY' && ok "summary: same in both layouts" || fail "summary differs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("host", "source"):
    a.pop(k, None); b.pop(k, None)
sys.exit(a != b)
PY
cmp -s "$T/old.obj" "$T/new.obj" && ok "objects report: same" || fail "objects report differs"

# the summary decodes only the columns it needs; the same summary computed
# from every field (a filter that keeps all makes the reader decode them all)
"$B/vxreplay" "$T/new.vxt" --report summary --format json > "$T/few.json"
"$B/vxreplay" "$T/new.vxt" --filter 'bytes >= 0' --report summary --format json > "$T/all.json"
cmp -s "$T/few.json" "$T/all.json" && ok "summary from a few columns = from all" ||
	fail "summary from a few columns differs: $(diff "$T/few.json" "$T/all.json")"
finish
