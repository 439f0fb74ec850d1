#!/bin/sh
# merge_damage.sh - one corrupt chunk in one host's file of a merged trace
# costs only that chunk's events: the healthy host's events are all in the
# merged reports and exports, the damaged host's others too; the damage is
# named on stderr and the status says the output is complete for what
# survives (3); the lost events are lost records.
. "${VXT_TOP:-.}/tests/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
cd "$T" || exit 1
case $B in /*) ;; *) B=$OLDPWD/$B ;; esac
"$B/vxrecord" -q -s sim --seed 3 --host hA -c 100000 -o hA.vxt || { echo "vxrecord hA"; exit 1; }
"$B/vxrecord" -q -s sim --seed 4 --host hB --clock-offset 0.3s -c 100000 -o hB.vxt ||
	{ echo "vxrecord hB"; exit 1; }
# hB's third chunk: one byte of its data flipped (its CRC then fails)
python3 - hB.vxt bad.vxt <<'PYEOF' || { echo "corrupting hB failed"; exit 1; }
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off, k = 0, 0
while off + 8 <= len(d):
    magic, size = struct.unpack_from("<II", d, off)
    if magic & 0xFFFFFFF0 != 0x184D2A50:
        break
    if magic & 0xF == 1:
        data_off, data_size = off + 8 + size, struct.unpack_from("<I", d, off + 8 + 48)[0]
        k += 1
        if k == 3:
            d[data_off + data_size // 2] ^= 0xFF
            break
        off = data_off + data_size
    else:
        off += 8 + size
open(sys.argv[2], "wb").write(d)
PYEOF
# the events of the damaged chunk, and each file's events by host, alone
lost=$("$B/vxreplay" bad.vxt --sql "SELECT events FROM chunks WHERE chunk = 2" --format csv | tail -n 1)
na=$("$B/vxreplay" hA.vxt --report events --format csv | tail -n +2 | wc -l)
nb=$("$B/vxreplay" bad.vxt --report events --format csv 2>/dev/null | tail -n +2 | wc -l)
[ "$nb" -eq $((100000 - lost)) ] || fail "bad.vxt alone: $nb events, want $((100000 - lost))"

"$B/vxreplay" hA.vxt bad.vxt --report events --format csv >ev.csv 2>err
expect_eq "merged events report: exit" $? 3
by_host() { awk -F, -v h="$1" 'NR > 1 && $14 == h && $3 != "lost"' ev.csv | wc -l; }
expect_eq "hA's events merged with a damaged hB" "$(by_host hA)" "$na"
expect_eq "hB's undamaged events merged" "$(by_host hB)" "$nb"
expect_eq "hB's damaged events as lost records" \
	"$(awk -F, 'NR > 1 && $3 == "lost"' ev.csv | wc -l)" "$lost"
grep -q "bad.vxt: .*chunk 2.*: its $lost events are lost" err && ok "said: $(cat err)" ||
	fail "the damage is not named: $(cat err)"
"$B/vxreplay" hA.vxt bad.vxt --report summary --format json >sum.json 2>/dev/null
expect_eq "merged summary: lost" "$(json sum.json 'j["lost"]')" "$lost"
expect_eq "merged summary: events" "$(json sum.json 'j["events"]')" $((na + nb + lost))
# the jsonl export: the same events
"$B/vxreplay" hA.vxt bad.vxt --export jsonl -o ev.jsonl 2>/dev/null
expect_eq "merged jsonl export: hA's events" "$(grep -c '"host": *"hA"' ev.jsonl)" "$na"
finish
