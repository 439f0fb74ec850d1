#!/bin/sh
# import_bad.sh - damaged blktrace input (wrong magic, truncated record,
# absurd pdu_len) gives one line naming the file and the offset, and the
# .vxt keeps the events before the damage.
. "$VXT_TOP/tests/lib.sh"
D=${VXT_SHARED:-$VXT_TOP/../shared}/data/blktrace/centos7-sda
[ -r "$D/sda.blktrace.0" ] || { echo "no test capture in $D"; exit 77; }

# damage KIND OUT: copy sda.blktrace.0, damaged at its 10th record; prints
# the offset of that record
damage() {
	python3 - "$D/sda.blktrace.0" "$2" "$1" <<'PY'
import struct, sys
src, dst, kind = sys.argv[1:4]
data = bytearray(open(src, "rb").read())
off = 0
for _ in range(10):
    pdu = struct.unpack_from("<H", data, off + 46)[0]
    off += 48 + pdu
if kind == "magic":
    data[off:off + 4] = b"JUNK"
elif kind == "pdu":
    struct.pack_into("<H", data, off + 46, 60000)
elif kind == "header":
    data = data[:off + 30]
elif kind == "payload":
    struct.pack_into("<H", data, off + 46, 64)
    data = data[:off + 48 + 10]
open(dst, "wb").write(data)
print(off)
PY
}

for kind in magic pdu header payload; do
	off=$(damage $kind "$T/bad.blktrace.0")
	case $kind in
	magic) what="bad magic 4a554e4b" ;;
	pdu) what="absurd pdu_len 60000" ;;
	header) what="truncated record header" ;;
	payload) what="truncated record payload" ;;
	esac
	rm -f "$T/b.vxt"
	expect_fail "$kind" 1 "bad.blktrace.0: offset $off: $what" -- \
		"$B/vxrecord" --import blktrace "$T/bad" -o "$T/b.vxt" -q
	expect_eq "$kind: events before the damage kept" \
		"$("$B/vxreplay" "$T/b.vxt" --report summary --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')" 10
done

printf 'not a trace at all, just text\n' >"$T/text.blktrace.0"
expect_fail "not blktrace" 1 "text.blktrace.0: offset 0: bad magic" -- \
	"$B/vxrecord" --import blktrace "$T/text" -o "$T/t.vxt" -q
expect_fail "missing input" 1 "no such file or prefix" -- \
	"$B/vxrecord" --import blktrace "$T/nothing" -o "$T/n.vxt" -q
finish
