#!/bin/sh
# hostile_names.sh - names from a crafted trace (mkhostile.c: terminal escapes,
# OSC 52, C1 CSI, commas, quotes, newlines, formulas, bytes that are not
# UTF-8, in the host, command line, object and command names) reach no output
# raw: every text output (reports, --info, vxtop -b, error messages) is valid
# UTF-8 without a control byte but its own line ends, one line per row; the
# CSVs read back with Python's csv module to the names (formula cells with a
# leading '); every JSON output is accepted by Python's strict json module
# (and jq when installed), invalid bytes as \u00NN of their value.
. "$VXT_TOP/tests/lib.sh"

cc -std=c11 -D_GNU_SOURCE -I"$VXT_TOP/include" "$VXT_TOP/tests/cli/mkhostile.c" \
	"$B/libvxtrace.a" -lzstd -lm -o "$T/mkhostile" || { echo "cannot build the trace writer"; exit 77; }
"$T/mkhostile" "$T/h.vxt" || { fail "mkhostile"; finish; }
rep() { "$B/vxreplay" "$T/h.vxt" "$@"; }

# clean FILE WHAT LINES: FILE is printable UTF-8, with LINES lines (or any when "")
clean() {
	python3 - "$1" "$2" "$3" <<'PYEOF' && ok "$2: no raw control byte, valid UTF-8" || fail "$2"
import sys
path, what, lines = sys.argv[1:]
b = open(path, "rb").read()
try:
    s = b.decode("utf-8")
except UnicodeDecodeError as e:
    print("%s: not UTF-8: %s" % (what, e)); sys.exit(1)
bad = [c for c in s if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0]
if bad:
    print("%s: control characters %r" % (what, sorted(set(bad)))); sys.exit(1)
if lines and s.count("\n") != int(lines):
    print("%s: %d lines, want %s" % (what, s.count("\n"), lines)); sys.exit(1)
PYEOF
}

rep --report events >"$T/events.txt" || fail "events report"
clean "$T/events.txt" "--report events" 60
grep -qF '\e]0;PWNED\a' "$T/events.txt" && ok "the OSC title name is shown escaped" ||
	fail "--report events lacks the escaped name"
rep --report errors >"$T/errors.txt" || fail "errors report"
clean "$T/errors.txt" "--report errors" 21
rep --report objects >"$T/objects.txt" || fail "objects report"
clean "$T/objects.txt" "--report objects" 7
grep -qF 'sd,b"x\nforged,row' "$T/objects.txt" && ok "a newline in an object name is escaped" ||
	fail "objects report lacks the escaped newline"
rep --report summary >"$T/summary.txt" || fail "summary"
clean "$T/summary.txt" "--report summary" ""
grep -qF 'host:      host\e]0;HOST\a' "$T/summary.txt" && ok "summary: the host escaped" ||
	fail "summary: the host is not escaped"
"$B/vxreplay" --info "$T/h.vxt" >"$T/info.txt" || fail "--info"
clean "$T/info.txt" "--info" ""
grep -qF 'command:   vxrecord \e[31m-o x' "$T/info.txt" && grep -qF 'c1\u009b31m' "$T/info.txt" &&
	grep -qF 'bad\xffutf8' "$T/info.txt" && ok "--info: command, C1 and invalid bytes escaped" ||
	fail "--info escapes"
rep --report html -o "$T/r.html" || fail "html report"
clean "$T/r.html" "--report html" ""
timeout 20 "$B/vxtop" -b -c 1 -i 100ms --follow "$T/h.vxt" </dev/null >"$T/top.txt" 2>&1 ||
	fail "vxtop -b"
clean "$T/top.txt" "vxtop -b" 9
timeout 20 "$B/vxtop" -b -c 1 -i 100ms -F json --follow "$T/h.vxt" </dev/null \
	>"$T/top.json" 2>&1 || fail "vxtop -b -F json"
# vxtop --script: what the script prints holds the names too
printf 'io:::done { @n[object, comm] = count(); }\n' >"$T/names.d"
timeout 20 "$B/vxtop" -b -i 100ms --follow "$T/h.vxt" --script "$T/names.d" </dev/null \
	>"$T/top-script.txt" 2>&1 || fail "vxtop -b --script"
clean "$T/top-script.txt" "vxtop -b --script" ""
grep -qF '\e]0;PWNED\a' "$T/top-script.txt" && ok "vxtop --script output: the names escaped" ||
	fail "vxtop --script output lacks the escaped name"
timeout 20 "$B/vxtop" -b -i 100ms -F jsonl --follow "$T/h.vxt" --script "$T/names.d" \
	</dev/null >"$T/top-script.jsonl" 2>&1 || fail "vxtop -b -F jsonl --script"
expect_fail "an error naming an object" 2 "no object named '\\\\e]0;X\\\\a'" -- \
	rep --report summary --objects "$(printf '\033]0;X\007')"
clean "$T/err" "the error message" 1

# --sql: text as the reports', CSV as the events report's, JSON strict
cols=time_ns,object,phase,op,flags,sector,bytes,latency_ns,error,errname,pid,comm,cpu,host,rel_ns
rep --sql "SELECT host, object, comm, file FROM events" >"$T/sql.txt" || fail "--sql text"
clean "$T/sql.txt" "--sql text" 61
grep -qF '\e]0;PWNED\a' "$T/sql.txt" && ok "--sql shows the OSC title name escaped" ||
	fail "--sql text lacks the escaped name"
rep --sql "SELECT $cols FROM events" --format csv >"$T/sql.csv" || fail "--sql csv"
rep --report events --format csv >"$T/events.csv" || fail "events csv"
cmp -s "$T/sql.csv" "$T/events.csv" && ok "--sql CSV is the events report's, byte for byte" ||
	fail "--sql CSV differs from --report events --format csv"
rep --sql "SELECT host, object, comm FROM events; SELECT * FROM objects" --format json \
	>"$T/sql.json" || fail "--sql json"
python3 - "$T/sql.json" <<'PYEOF' && ok "--sql JSON: every array is strict JSON" || fail "--sql JSON"
import json, sys
s = open(sys.argv[1], "rb").read().decode("utf-8")
d = json.JSONDecoder()
i, docs = 0, []
while i < len(s):
    if s[i].isspace():
        i += 1
        continue
    v, i = d.raw_decode(s, i)
    docs.append(v)
assert len(docs) == 2 and len(docs[0]) == 60, [len(x) for x in docs]
assert docs[0][0]["comm"] == "\x1b]0;PWNED\x07", docs[0][0]
assert docs[0][0]["host"] == "host\x1b]0;HOST\x07", docs[0][0]
PYEOF

# CSV: the names come back, formula cells with a leading '
rep --report events --format csv >"$T/events.csv" || fail "events csv"
rep --export csv -o "$T/export.csv" || fail "export csv"
rep --report objects --format csv >"$T/objects.csv" || fail "objects csv"
rep --report summary --format csv --profile errors-in-context >"$T/summary.csv" || fail "summary csv"
python3 - "$T" <<'PYEOF' && ok "CSV: python's csv module reads every name back" || fail "CSV"
import csv, sys
T = sys.argv[1]
objects = ["sda", "\x1b[2J\x1b[3Jdisk", 'sd,b"x\nforged,row', '=HYPERLINK("http://x/")',
           "bad\udcffutf8", "c1\u009b31m"]
comms = ["\x1b]0;PWNED\x07", "\x1b]52;c;SGVsbG8=\x07", '=HYPERLINK("http://x/","y")',
         "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", "\tx", "two\nlines", "bad\udcfe\udcc3", "dd"]
def guard(s):
    return "'" + s if s[:1] in ("=", "+", "-", "@", "\t", "\r") else s
def rows(name):
    with open(T + "/" + name, newline="", encoding="utf-8", errors="surrogateescape") as f:
        return list(csv.DictReader(f, strict=True))
for name in ("events.csv", "export.csv"):
    r = rows(name)
    assert len(r) == 60, (name, len(r))
    want = [(guard(o), guard(c)) for o in objects for c in comms]
    got = [(x["object"], x["comm"]) for x in r]
    assert got == want, (name, [(g, w) for g, w in zip(got, want) if g != w][:3])
    assert all(x["bytes"] == "4096" for x in r), name
r = rows("objects.csv")
assert [x["object"] for x in r] == [guard(o) for o in objects], [x["object"] for x in r]
assert all(x["ios"] == "10" for x in r), [x["ios"] for x in r]
r = rows("summary.csv")
assert len(r) == 1 and r[0]["profile"] == "errors-in-context", r
PYEOF

# JSON: strict parsers accept every output
rep --report events --format json >"$T/events.json" || fail "events json"
rep --report errors --format json >"$T/errors.json" || fail "errors json"
rep --report objects --format json >"$T/objects.json" || fail "objects json"
rep --report summary --format json >"$T/summary.json" || fail "summary json"
rep --export jsonl -o "$T/export.jsonl" || fail "export jsonl"
rep --export chrome -o "$T/chrome.json" || fail "export chrome"
python3 - "$T" <<'PYEOF' && ok "JSON: python's json module accepts every output" || fail "JSON"
import json, sys
T = sys.argv[1]
def load(name):
    b = open(T + "/" + name, "rb").read()
    s = b.decode("utf-8")          # strict: raises on an invalid byte
    return json.loads(s) if not name.endswith(".jsonl") else [json.loads(l) for l in s.splitlines()]
ev = load("events.json")
assert len(ev) == 60
assert ev[0]["comm"] == "\x1b]0;PWNED\x07", ev[0]["comm"]
assert ev[8]["comm"] == "bad\u00fe\u00c3", ev[8]["comm"]          # bytes as \u00NN
assert ev[40]["object"] == "bad\u00ffutf8", ev[40]["object"]
assert len(load("errors.json")) == 20
assert [o["object"] for o in load("objects.json")][2] == 'sd,b"x\nforged,row'
assert load("summary.json")["host"] == "host\x1b]0;HOST\x07"
assert len(load("export.jsonl")) == 60
assert "\x1b]0;PWNED\x07" in load("top-script.jsonl")[-1]["script"]["output"]
load("chrome.json")
top = load("top.json")
assert top[0]["objects"][4]["name"] == "bad\u00ffutf8", top[0]["objects"]
PYEOF
if command -v jq >/dev/null 2>&1; then
	for f in events.json errors.json objects.json summary.json chrome.json top.json; do
		jq . "$T/$f" >/dev/null || fail "jq refuses $f"
	done
	jq . "$T/export.jsonl" >/dev/null || fail "jq refuses export.jsonl"
	jq . "$T/top-script.jsonl" >/dev/null || fail "jq refuses vxtop's JSON Lines"
	ok "jq accepts every JSON output"
fi
finish
