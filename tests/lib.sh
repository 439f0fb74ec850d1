# lib.sh - helpers for the command-line tests (sourced)
set -u
# the build and top directories as absolute paths, once: tests cd about
B=$(cd "${VXT_BUILD:?VXT_BUILD not set}" && pwd) || exit 1
VXT_BUILD=$B
[ -z "${VXT_TOP:-}" ] || VXT_TOP=$(cd "$VXT_TOP" && pwd) || exit 1
export VXT_BUILD VXT_TOP
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# expect_eq WHAT GOT WANT
expect_eq() { if [ "$2" = "$3" ]; then ok "$1 = $3"; else fail "$1: got '$2', want '$3'"; fi; }
# expect_fail WHAT STATUS PATTERN -- CMD...: CMD exits STATUS and stderr matches PATTERN
expect_fail() {
	what=$1 want=$2 pat=$3; shift 4
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -ne "$want" ]; then fail "$what: exit $rc, want $want ($(head -c 200 "$T/err"))"; return; fi
	if [ "$(wc -l <"$T/err")" -ne 1 ]; then fail "$what: want one line on stderr, got: $(cat "$T/err")"; return; fi
	if grep -q -- "$pat" "$T/err"; then ok "$what: $(cat "$T/err")"; else fail "$what: '$(cat "$T/err")' lacks '$pat'"; fi
}
# json FILE EXPR: evaluate a python expression on the parsed JSON in 'j'
json() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
# set_header IN OUT OFFSET FORMAT VALUE: OUT is the .vxt file IN with the
# header field at byte OFFSET (a python struct FORMAT, e.g. '<Q') set to
# VALUE and the header's CRC-32C made right again (formats/vxt.md)
set_header() {
	python3 - "$@" <<'PYEOF'
import struct, sys
src, dst, off, fmt, val = sys.argv[1:6]
d = bytearray(open(src, "rb").read())
size = struct.unpack_from("<I", d, 4)[0]
struct.pack_into(fmt, d, int(off, 0), int(val, 0))
c = 0xFFFFFFFF
for x in d[8:8 + size - 4]:
    c ^= x
    for _ in range(8):
        c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
struct.pack_into("<I", d, 8 + size - 4, c ^ 0xFFFFFFFF)
open(dst, "wb").write(d)
PYEOF
}
# skip WHY: exit 77 (skipped), saying why; a check failed before fails the test
skip() { [ $fails -eq 0 ] || finish; echo "$*"; exit 77; }
finish() { [ $fails -eq 0 ] && exit 0; echo "$fails check(s) failed"; exit 1; }
