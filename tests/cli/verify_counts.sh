#!/bin/sh
# verify_counts.sh - --verify checks each chunk's index entry against the
# events it decodes: an entry whose error count, per-object errors or time
# range were altered (with every CRC made right again) is damage, named with
# its chunk, offset and field, exit 1; a sound file still passes.
. "${VXT_TOP:-.}/tests/lib.sh"
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
f=$T/t.vxt
"$B/vxrecord" -q -s sim -d 3s --rate 5000 --seed 7 --sim-errors 'sda@0.5+30:EIO' -o "$f" ||
	{ echo "vxrecord failed"; exit 1; }
"$B/vxreplay" --verify "$f" > "$T/ok" || fail "--verify of a sound file failed"

# alter FIELD IN OUT: the first chunk entry's FIELD changed, the entry's CRC,
# its copy in the footer and the footer's CRC made right again
alter() {
	python3 - "$@" <<'PYEOF'
import struct, sys
field, src, dst = sys.argv[1:4]
d = bytearray(open(src, "rb").read())
t = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    t.append(c)
def crc(b):
    c = 0xFFFFFFFF
    for x in b:
        c = t[(c ^ x) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF
def units():
    off = 0
    while off + 8 <= len(d):
        magic, size = struct.unpack_from("<II", d, off)
        if magic & 0xFFFFFFF0 == 0x184D2A50:
            yield off, magic & 0xF, size
            off += 8 + size
        else:	# a zstd frame: the entry before it gave its size
            off += last_data
last_data = 0
entry = footer = None
for off, kind, size in units():
    if kind == 1:
        entry = entry or (off, size)
        last_data = struct.unpack_from("<I", d, off + 8 + 48)[0]
    elif kind == 2:
        footer = (off, size)
        break
eo, es = entry
old = bytes(d[eo:eo + 8 + es])
c = eo + 8				# the entry's content
end = c + es - 4			# its CRC
if field == "nerrors":
    struct.pack_into("<I", d, c + 32, 1000)
elif field == "last_ns":
    struct.pack_into("<Q", d, c + 20, struct.unpack_from("<Q", d, c + 20)[0] + 1)
elif field == "objerrors":
    n = next(n for n in range(1, 200) if struct.unpack_from("<I", d, end - n * 192 - 4)[0] == n)
    a = end - n * 192			# the first object's aggregate
    struct.pack_into("<I", d, a + 36, struct.unpack_from("<I", d, a + 36)[0] + 5000)
struct.pack_into("<I", d, end, crc(d[c:end]))
new = bytes(d[eo:eo + 8 + es])
if footer:
    fo, fs = footer
    at = d.find(old, fo)
    assert at > 0, "the entry's copy is not in the footer"
    d[at:at + len(new)] = new
    struct.pack_into("<I", d, fo + 8 + fs - 4, crc(d[fo + 8:fo + 8 + fs - 4]))
open(dst, "wb").write(d)
PYEOF
}

for field in nerrors objerrors last_ns; do
	alter $field "$f" "$T/$field.vxt" || { fail "altering $field failed"; continue; }
	"$B/vxreplay" "$T/$field.vxt" --report summary > /dev/null ||
		fail "$field: the altered file does not open"
	[ $field = nerrors ] && expect_eq "errors by the altered index" "$("$B/vxreplay" "$T/$field.vxt" \
		--sql "SELECT count(*) FROM errors" --format csv | tail -n 1)" 1000
	expect_fail "--verify, $field altered" 1 "chunk 0: index entry at offset" -- \
		"$B/vxreplay" --verify "$T/$field.vxt"
done
"$B/vxreplay" --verify "$T/nerrors.vxt" 2>&1 |
	grep -q "its entry says 1000 errors, its events hold 30" || fail "--verify names no counts"
finish
