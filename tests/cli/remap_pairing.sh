#!/bin/sh
# remap_pairing.sh - the breakdown follows bios through remaps and splits, and
# counts what pairs with nothing, on a small synthetic blktrace capture:
# a bio queued on a dm device (253:0) and remapped onto a disk (8:16), a split
# on the disk, a remap loop, a remap from an unknown bio, a completion without
# a queue, a completion without an issue, a merge into nothing, a phase out of
# order and a queue never completed. The capture is written from a table of
# records; an awk pairing over the same table (brute force: every pending bio
# in one list) gives each object's interval counts and sums and the unpaired
# counts with the ordinal of the first of each kind; the breakdown's JSON and
# text must say the same. The remap's source survives the import (a blktrace
# export of it names the same source devices and sectors to blkparse).
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
command -v python3 >/dev/null || skip "remap_pairing: python3 not installed"

# time(ns) device action sector sectors [from-device from-sector]
cat > "$tmp/spec" <<'EOF'
100 253:0 Q 1000 8
110 8:16 A 5000 8 253:0 1000
111 8:16 Q 5000 8
120 8:16 G 5000 8
130 8:16 I 5000 8
140 8:16 D 5000 8
200 8:16 C 5000 8
210 253:0 C 1000 8
300 8:16 Q 8000 16
305 8:16 X 8000 8
310 8:16 G 8000 8
311 8:16 G 8008 8
312 8:16 I 8000 8
313 8:16 I 8008 8
320 8:16 D 8000 8
321 8:16 D 8008 8
400 8:16 C 8000 8
410 8:16 C 8008 8
500 253:0 Q 2000 8
505 253:0 A 2000 8 253:0 2000
600 253:0 C 2000 8
650 8:16 A 9000 8 253:0 7777
700 8:16 C 12000 8
710 8:16 Q 13000 8
720 8:16 C 13000 8
730 8:16 M 14000 8
800 8:16 Q 15000 8
795 8:16 G 15000 8
810 8:16 I 15000 8
820 8:16 D 15000 8
830 8:16 C 15000 8
900 8:16 Q 16000 8
EOF

# the capture: one file of blktrace records (little-endian, version 7)
python3 - "$tmp/spec" "$tmp/dm-0.blktrace.0" <<'PY' || fail "writing the capture failed"
import struct, sys
act = {"Q": (1, 1 << 4), "M": (2, 1 << 4), "G": (4, 1 << 4), "D": (7, 1 << 6),
       "C": (8, 1 << 7), "I": (12, 1 << 4), "X": (13, 0), "A": (15, 1 << 4)}
def dev(s):
    ma, mi = s.split(":")
    return int(ma) << 20 | int(mi)
out, seq = bytearray(), 0
for line in open(sys.argv[1]):
    f = line.split()
    t, d, a, sec, n = int(f[0]), dev(f[1]), f[2], int(f[3]), int(f[4])
    code, cat = act[a]
    pdu = b""
    if a == "A":
        pdu = struct.pack(">IIQ", dev(f[5]), d, int(f[6]))
    elif a == "X":
        pdu = struct.pack(">Q", sec + n)
    seq += 1
    out += struct.pack("<IIQQIIIIIHH", 0x65617407, seq, t, sec, n * 512,
                       (cat | 1 << 1) << 16 | code, 42, d, 0, 0, len(pdu)) + pdu
open(sys.argv[2], "wb").write(out)
PY
"$b/vxrecord" -q --import blktrace "$tmp/dm-0" -o "$tmp/r.vxt" || { fail "import failed"; finish; }
"$b/vxreplay" "$tmp/r.vxt" --report breakdown -F json > "$tmp/r.json" || { fail "breakdown json failed"; finish; }
"$b/vxreplay" "$tmp/r.vxt" --report breakdown > "$tmp/r.txt" || { fail "breakdown text failed"; finish; }

# the pairing by hand: bios in one list (dev, start, end, times); a remap
# copies the bio pending at its source onto the device below, where the
# device's own queue of it joins the copy
awk '
function holds(k, d, s) { return pd[k] == d && ps[k] <= s && s < pe[k] }
function inside(k, d, s, e) { return pd[k] == d && ps[k] >= s && pe[k] <= e && ps[k] < e }
function add(d, iv, v) { n[d, iv]++; sum[d, iv] += v; n["all", iv]++; sum["all", iv] += v }
function unp(kind, o) { if (!(kind in un)) first[kind] = o; un[kind]++ }
function open_io(d, s, e, q, top) {
	np++; pd[np] = d; ps[np] = s; pe[np] = e; pq[np] = q; ptop[np] = top; live[np] = 1
	pg[np] = pi[np] = pdd[np] = pm[np] = ""; pord[np] = o; pj[np] = 0
	return np
}
{
	o = NR - 1; t = $1; d = $2; a = $3; s = $4; e = $4 + $5
	if (a == "Q") {
		queued[d] = 1; hit = 0
		for (k = 1; k <= np; k++) if (live[k] && pd[k] == d && ps[k] == s) {
			if (ptop[k] != d && !pj[k]) { pj[k] = 1; hit = 1; break }
			unp("duplicate-queue", o); hit = 2; break
		}
		if (!hit) open_io(d, s, e, t, d)
		next
	}
	if (a == "A") {
		if (!($6 in queued)) next
		src = 0
		for (k = 1; k <= np; k++) if (live[k] && holds(k, $6, $7)) src = k
		if (!src) { unp("remap-unknown", o); next }
		if (d == ptop[src]) { unp("remap-loop", o); next }
		c = open_io(d, s, e, pq[src], ptop[src]); pord[c] = pord[src]
		next
	}
	if (a == "X") {
		for (k = 1; k <= np; k++) if (live[k] && holds(k, d, s) && e > ps[k] && e < pe[k]) {
			c = open_io(d, e, pe[k], pq[k], ptop[k]); pord[c] = pord[k]; pe[k] = e; break
		}
		next
	}
	if (a == "G" || a == "I" || a == "M") {
		f = 0
		for (k = 1; k <= np; k++) if (live[k] && holds(k, d, s)) f = k
		if (!f) { unp(a == "M" ? "merge-unknown" : "no-queue", o); next }
		if (a == "G") { pg[f] = t; if (t < pq[f]) unp("out-of-order", o); else add(d, "q2g", t - pq[f]) }
		if (a == "I") { pi[f] = t; if (pg[f] != "") add(d, "g2i", t - pg[f]) }
		if (a == "M") { pm[f] = t; add(d, "q2m", t - pq[f]) }
		next
	}
	if (a == "D" || a == "C") {
		f = 0; issued = 0
		for (k = 1; k <= np; k++) if (live[k] && inside(k, d, s, e)) {
			f++
			if (a == "D") {
				if (pi[k] != "") add(d, "i2d", t - pi[k]); else if (pm[k] != "") add(d, "m2d", t - pm[k])
				add(d, "q2d", t - pq[k]); pdd[k] = t
			} else {
				add(d, "q2c", t - pq[k]); live[k] = 0
				if (pdd[k] != "") { issued++; add(d, "d2c", t - pdd[k]) }
			}
		}
		if (!f) unp("no-queue", o); else if (a == "C" && !issued) unp("no-issue", o)
	}
}
END {
	for (k = 1; k <= np; k++) if (live[k]) unp("pending", pord[k])
	for (x in n) { split(x, p, SUBSEP); printf "iv %s %s %d %d\n", p[1], p[2], n[x], sum[x] }
	for (x in un) printf "un %s %d %d\n", x, un[x], first[x]
}' "$tmp/spec" | sort > "$tmp/want"

python3 - "$tmp/r.json" "$tmp/want" <<'PY' || fail "breakdown differs from the pairing by hand"
import json, sys
j = json.load(open(sys.argv[1]))
names = {"dm-0": "253:0"}
got = {}
for name, g in [("all", j["all"])] + list(j["objects"].items()):
    for iv, st in g.items():
        if iv != "q2q" and st["n"]:
            got[("iv", names.get(name, name), iv)] = (st["n"], st["avg_ns"])
for k, u in j["unpaired"].items():
    if u["n"]:
        got[("un", k)] = (u["n"], u["first_event"])
want = {}
for line in open(sys.argv[2]):
    f = line.split()
    want[tuple(f[:-2])] = (int(f[-2]), int(f[-1]))
bad = 0
for k in sorted(set(got) | set(want)):
    g, w = got.get(k), want.get(k)
    if k[0] == "iv":
        ok = g and w and g[0] == w[0] and abs(g[1] * w[0] - w[1]) <= w[0] / 2
    else:
        ok = g == w
    if not ok:
        print("remap_pairing: %s: vxreplay %s, by hand %s (n, avg or sum / first)" % (" ".join(k), g, w))
        bad += 1
sys.exit(1 if bad else 0)
PY
grep -q "remap-loop  *1  (first: event 19)" "$tmp/r.txt" || fail "text: no remap loop at event 19"
echo "remap_pairing: $(grep -c '^iv' "$tmp/want") intervals and $(grep -c '^un' "$tmp/want") unpaired kinds as the pairing by hand"

# the remap's source goes back out to blktrace
"$b/vxreplay" "$tmp/r.vxt" --export blktrace -o "$tmp/exp" || { fail "blktrace export failed"; finish; }
if command -v blkparse >/dev/null; then
	blkparse -i - < "$tmp/exp" > "$tmp/exp.txt" 2>/dev/null || fail "blkparse of the export failed"
	want=$(awk '$3 == "A" { printf "%s %s <- (%s) %s\n", $4, $5, $6, $7 }' "$tmp/spec" | tr ':' ',')
	got=$(awk '$6 == "A" { print $8, $10, $12, $13 }' "$tmp/exp.txt" | tr -d '()' |
		awk '{ printf "%s %s <- (%s) %s\n", $1, $2, $3, $4 }')
	[ "$want" = "$got" ] || fail "export: remaps $got, want $want"
	echo "remap_pairing: the export names each remap's source as the capture did"
else
	echo "remap_pairing: blkparse not installed: export check skipped"
fi
finish
