#!/bin/sh
# clickhouse_nolib.sh - libcurl is loaded only when a ClickHouse sink opens:
# in a mount namespace where libcurl.so.4 is not a library (an empty file
# bound over it), reading, reporting and recording still work, and
# `vxreplay --export clickhouse+http://...` and `vxrecord --sink ...` each
# refuse in one line naming the URL and libcurl, with exit 1 and no file
# harmed. With the library back, the same export reaches the (absent)
# server: the refusal came from loading, not from the URL.
. "${VXT_TOP:?}/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "skip: binding over libcurl.so.4 needs root"; exit 77; }
unshare -m true 2>/dev/null || { echo "skip: unshare -m is not permitted here"; exit 77; }
lib=$(ldconfig -p | awk '$1 == "libcurl.so.4" && /x86-64|64bit/ { print $NF; exit }')
[ -n "$lib" ] || lib=$(ldconfig -p | awk '$1 == "libcurl.so.4" { print $NF; exit }')
[ -n "$lib" ] || { echo "skip: libcurl.so.4 is not installed"; exit 77; }
lib=$(readlink -f "$lib")
: >"$T/empty"

"$B/vxrecord" --source sim -c 2000 --seed 3 -o "$T/t.vxt" -q 2>"$T/rec.err" ||
	{ fail "vxrecord: $(cat "$T/rec.err")"; finish; }
sum0=$(cksum <"$T/t.vxt")
url=clickhouse+http://127.0.0.1:9/vxt.events

# nolib CMD...: run CMD where libcurl.so.4 is an empty file
nolib() { unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$T/empty" "$lib" "$@"; }

nolib sh -c '[ ! -s "$1" ]' sh "$lib" && ok "libcurl.so.4 is empty in the namespace" ||
	fail "the bind mount over $lib did not take"

nolib "$B/vxreplay" "$T/t.vxt" --report summary >"$T/sum" 2>"$T/sum.err"
expect_eq "vxreplay --report summary without libcurl exits" "$?" 0
"$B/vxreplay" "$T/t.vxt" --report summary >"$T/sum.lib" 2>&1
if [ -s "$T/sum" ] && cmp -s "$T/sum" "$T/sum.lib"; then
	ok "the summary is the one printed with the library ($(grep -m 1 '^I/Os:' "$T/sum"))"
else
	fail "the summary differs from the one with the library: $(diff "$T/sum" "$T/sum.lib" | head -n 4 | tr '\n' ' ') $(cat "$T/sum.err")"
fi
nolib "$B/vxrecord" --source sim -c 500 --seed 4 -o "$T/r.vxt" -q 2>"$T/r.err"
expect_eq "vxrecord without libcurl exits" "$?" 0

expect_fail "vxreplay --export to ClickHouse without libcurl" 1 "$url: cannot load libcurl" -- \
	nolib "$B/vxreplay" "$T/t.vxt" --export "$url"
expect_fail "vxrecord --sink without libcurl" 1 "cannot load libcurl" -- \
	nolib "$B/vxrecord" --source sim -c 500 --seed 4 -o "$T/s.vxt" --sink "$url"
expect_eq "the trace file is untouched" "$(cksum <"$T/t.vxt")" "$sum0"

"$B/vxreplay" "$T/t.vxt" --export "$url" >"$T/out" 2>"$T/err"
rc=$?
[ $rc -ne 0 ] && ! grep -q 'libcurl' "$T/err" && grep -q '127.0.0.1:9' "$T/err" &&
	ok "with libcurl the export gets as far as the server: $(cat "$T/err")" ||
	fail "with libcurl: exit $rc, $(cat "$T/err")"
finish
