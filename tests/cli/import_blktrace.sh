#!/bin/sh
# import_blktrace.sh - vxrecord --import blktrace on a real capture agrees
# with blkparse's figures, whether given a prefix, a file list, a blkparse -d
# dump or standard input.
. "$VXT_TOP/tests/lib.sh"
D=${VXT_SHARED:-$VXT_TOP/../shared}/data/blktrace/centos7-sda
[ -r "$D/sda.blktrace.0" ] || { echo "no test capture in $D"; exit 77; }

# check NAME FILE.vxt: the figures of blkparse.txt (Total (sda)) and of
# blkparse-events.txt (one line per event: action letter first)
check() {
	"$B/vxreplay" "$2" --report summary --format json >"$T/sum.json" || { fail "$1: summary"; return; }
	"$B/vxreplay" "$2" --report events --format csv >"$T/ev.csv" || { fail "$1: events"; return; }
	expect_eq "$1: events (blkparse: 799 entries)" "$(json "$T/sum.json" 'j["events"]')" 799
	expect_eq "$1: writes completed" "$(json "$T/sum.json" 'j["writes"]')" 109
	expect_eq "$1: KiB written" "$(json "$T/sum.json" 'j["bytes_written"] // 1024')" 3156
	expect_eq "$1: reads" "$(json "$T/sum.json" 'j["reads"]')" 0
	expect_eq "$1: errors" "$(json "$T/sum.json" 'j["errors"]')" 0
	expect_eq "$1: objects" "$(json "$T/sum.json" 'j["objects"]')" 1
	# events per phase against blkparse's actions: Q->queue, M->merge, G->getrq,
	# I->insert, D->start, C->done, P->plug, U->unplug, A->remap
	want=$(awk '{ n[$1]++ } END { printf "%d %d %d %d %d %d %d %d %d", n["Q"], n["M"] + n["F"],
		n["G"] + n["S"], n["I"], n["D"], n["C"], n["P"], n["U"] + n["UT"], n["A"] }' \
		"$D/blkparse-events.txt")
	got=$(awk -F, 'NR > 1 { n[$3]++ } END { printf "%d %d %d %d %d %d %d %d %d", n["queue"],
		n["merge"], n["getrq"], n["insert"], n["start"], n["done"], n["plug"], n["unplug"],
		n["remap"] }' "$T/ev.csv")
	expect_eq "$1: events per action (Q M G I D C P U A)" "$got" "$want"
	# queued KiB per blkparse: 3156
	expect_eq "$1: KiB queued" "$(awk -F, '$3 == "queue" { b += $7 } END { print int(b / 1024) }' "$T/ev.csv")" 3156
	expect_eq "$1: completions without latency" \
		"$(awk -F, '$3 == "done" && $8 == 0' "$T/ev.csv" | wc -l)" 0
}

"$B/vxrecord" --import blktrace "$D/sda" -o "$T/p.vxt" -q || fail "import by prefix"
check prefix "$T/p.vxt"
# over an earlier import: refused without --force for its real cause, overwritten with it
expect_fail "re-import without --force" 1 "file exists" -- \
	"$B/vxrecord" --import blktrace "$D/sda" -o "$T/p.vxt" -q
"$B/vxrecord" --import blktrace "$D/sda" -o "$T/p.vxt" -q --force || fail "re-import with --force"
check "prefix again" "$T/p.vxt"
expect_eq "object named after the files" \
	"$("$B/vxreplay" "$T/p.vxt" --report objects --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["object"])')" sda

"$B/vxrecord" --import blktrace "$D/sda.blktrace.1,$D/sda.blktrace.0" -o "$T/l.vxt" -q ||
	fail "import by file list"
check list "$T/l.vxt"

if command -v blkparse >/dev/null; then
	(cd "$T" && blkparse -q -i "$D/sda" -d "$T/dump.bin" -O >/dev/null 2>&1) || fail "blkparse -d"
	"$B/vxrecord" --import blktrace "$T/dump.bin" -o "$T/d.vxt" -q || fail "import a dump"
	check dump "$T/d.vxt"
	"$B/vxrecord" --import blktrace - -o "$T/s.vxt" -q <"$T/dump.bin" || fail "import stdin"
	check stdin "$T/s.vxt"
else
	echo "blkparse not installed: dump and stdin forms not checked"
fi
finish
