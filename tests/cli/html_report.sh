#!/bin/sh
# html_report.sh - vxreplay --report html writes one self-contained page that
# headless Chromium renders with its figures: the error timeline (a bar per
# interval with errors), the heatmap (a row of cells per object) and the
# object table (a row per object), with no external resource.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
command -v python3 >/dev/null || skip "python3 not installed"

"$b/vxrecord" -q -s sim -d 5s --rate 4000 -o "$tmp/t.vxt" || { fail "vxrecord failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report html -o "$tmp/report.html" || { fail "html report failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report objects --format json > "$tmp/obj.json" || { fail "objects failed"; finish; }
"$b/vxreplay" "$tmp/t.vxt" --report html --objects sdb -o "$tmp/sdb.html" || { fail "one object's report failed"; finish; }
grep -q '<h2>I/O per LBA range of sdb</h2>' "$tmp/sdb.html" || fail "one object's report has no LBA heatmap"
[ "$(grep -c '<rect class="cell"' "$tmp/sdb.html")" -eq $((16 * 120)) ] ||
	fail "the LBA heatmap is not 16 ranges x 120 intervals"
"$b/vxreplay" "$tmp/t.vxt" --report summary --format json > "$tmp/sum.json" || { fail "summary failed"; finish; }

# Self-contained: nothing fetched from anywhere.
if grep -Eiq '<(script|link|img|iframe)|src=|href=|url\(|@import' "$tmp/report.html"; then
	fail "the page refers to an external resource"
fi

chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
	skip "chromium not installed (apt-get install chromium)"
fi
profile=$(mktemp -d)
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$profile" --dump-dom "file://$tmp/report.html" \
	> "$tmp/dom.html" 2> "$tmp/chrome.log"
rc=$?
rm -rf "$profile"
[ $rc -eq 0 ] || { tail -n 5 "$tmp/chrome.log"; fail "chromium exited $rc"; }

python3 - "$tmp" <<'PYEOF' || fail "the python check above"
import json, sys
from html.parser import HTMLParser
tmp = sys.argv[1]
def fail(m):
    print("html_report:", m); sys.exit(1)

class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.svgs, self.rows, self.cells = [], {}, {}, {}
        self.texts = {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.stack.append((tag, a.get("id")))
        ids = [i for _, i in self.stack if i]
        where = ids[-1] if ids else None
        if tag == "svg":
            self.svgs[a.get("id")] = 0
        if tag == "rect" and where:
            self.cells.setdefault((where, a.get("class")), []).append(a)
        if tag == "tr" and where:
            self.rows[where] = self.rows.get(where, 0) + 1
    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
    def handle_data(self, d):
        ids = [i for _, i in self.stack if i]
        if ids:
            self.texts.setdefault(ids[-1], []).append(d)

dom = Dom()
dom.feed(open(tmp + "/dom.html").read())
objs = json.load(open(tmp + "/obj.json"))
s = json.load(open(tmp + "/sum.json"))
for fig in ("error-timeline", "heatmap"):
    if fig not in dom.svgs:
        fail("figure %s missing from the rendered DOM" % fig)
bars = dom.cells.get(("error-timeline", "err"), [])
if s["errors"] and not bars:
    fail("error timeline has no bars though the trace has %d errors" % s["errors"])
if any(float(r["height"]) <= 0 for r in bars):
    fail("an error bar has no height")
cells = dom.cells.get(("heatmap", "cell"), [])
busy = [o for o in objs if o["ios"]]
if len(cells) != 120 * len(busy):
    fail("heatmap has %d cells, expected 120 x %d objects" % (len(cells), len(busy)))
if not any(c.get("stroke") for c in cells):
    fail("no heatmap cell is marked with errors")
if dom.rows.get("objects", 0) != len(objs) + 1:
    fail("object table has %d rows, expected %d + header" % (dom.rows.get("objects", 0), len(objs)))
names = "".join(dom.texts.get("objects", []))
for o in objs:
    if o["object"] not in names:
        fail("object %s missing from the table" % o["object"])
if "".join(dom.texts.get("total-errors", [])).strip() != str(s["errors"]):
    fail("summary error count differs from the summary report")
print("html_report: %d error bars, %d heatmap cells, %d objects" % (len(bars), len(cells), len(objs)))
PYEOF
# With a profile or a script that keeps every failed I/O, the page's later
# passes (timeline, error table) read what the first one kept: the error
# table lists each failed completion, counted here from the whole file's CSV.
"$b/vxrecord" -q -s sim -c 200000 --seed 3 -o "$tmp/s3.vxt" || { fail "vxrecord seed 3 failed"; finish; }
want=$("$b/vxreplay" "$tmp/s3.vxt" --report events -F csv |
	awk -F, 'NR > 1 && $3 == "done" && $9 != 0 { n++ } END { print n + 0 }')
[ "$want" -gt 0 ] || fail "seed 3 has no failed I/O"
[ "$want" -gt 200 ] && want=200
n=0
for keep in "--profile errors-in-context" "--script ${VXT_TOP:?}/formats/profiles/io-errors.d"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$b/vxreplay" "$tmp/s3.vxt" $keep --report html -o "$tmp/k$n.html" || { fail "$keep: html report failed"; finish; }
	got=$(sed -n '/<table id="errors">/,/<\/table>/p' "$tmp/k$n.html" | grep -c '<tr><td')
	[ "$got" -eq "$want" ] || fail "$keep: the error table lists $got failed I/Os, the file has $want"
	grep -q '<rect class="err"' "$tmp/k$n.html" || fail "$keep: the error timeline has no bar"
done
[ $fails = 0 ] && ok "html_report: ok"
finish
