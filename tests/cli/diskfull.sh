#!/bin/sh
# diskfull.sh - recording into a full file system (a 2 MiB tmpfs) ends with
# one clear error, exit 1, and leaves a file that reads back to its last
# complete chunk: exactly the first events of the same seed's capture.
# Needs root to mount; skips otherwise.
. "$VXT_TOP/tests/lib.sh"

if [ "$(id -u)" != 0 ]; then echo "diskfull: needs root to mount a tmpfs"; exit 77; fi
mkdir "$T/mnt"
mount -t tmpfs -o size=2M,mode=0700 vxt-diskfull "$T/mnt" 2>/dev/null ||
	{ echo "diskfull: cannot mount a tmpfs here"; exit 77; }
trap 'umount "$T/mnt" 2>/dev/null; rm -rf "$T"' EXIT

f=$T/mnt/t.vxt
"$B/vxrecord" -q --source sim --seed 4 -c 3000000 -o "$f" 2>"$T/err"
rc=$?
expect_eq "exit status on a full disk" "$rc" 1
expect_eq "lines on stderr" "$(wc -l <"$T/err")" 1
grep -q "t.vxt: write at offset [0-9]*: No space left on device" "$T/err" &&
	ok "message: $(cat "$T/err")" || fail "message: $(cat "$T/err")"
[ -s "$f" ] && ok "the file is kept" || fail "the file is gone"

"$B/vxreplay" --verify "$f" >"$T/verify" 2>&1
rc=$?
if [ $rc -eq 0 ]; then
	grep -q "no footer" "$T/verify" && ok "verify: $(cat "$T/verify")" ||
		fail "verify: $(cat "$T/verify")"
else
	grep -q "torn" "$T/verify" && ok "verify names the torn tail: $(cat "$T/verify")" ||
		fail "verify: $(cat "$T/verify")"
fi
"$B/vxreplay" --info "$f" >"$T/info" 2>/dev/null || fail "--info"
n=$(awk '/^events:/ { print $2 }' "$T/info")
[ "${n:-0}" -gt 0 ] && ok "$n events recovered" || fail "no events recovered"

# the same seed, on a roomy disk, cut to the same count
"$B/vxrecord" -q --source sim --seed 4 -c "$n" -o "$T/ref.vxt" || fail "reference"
"$B/vxreplay" "$T/ref.vxt" --report events --format csv >"$T/ref.csv"
"$B/vxreplay" "$f" --report events --format csv >"$T/got.csv" 2>/dev/null
cmp -s "$T/ref.csv" "$T/got.csv" && ok "the recovered events are the seed's first $n" ||
	fail "the recovered events differ from the seed's first $n"
# the last complete chunk ends where the damage (if any) starts
last=$(awk '$1 ~ /^[0-9]+$/ && NF >= 9 { o = $2 + $3 } END { print o }' "$T/info")
size=$(wc -c <"$f")
[ "$size" -ge "$last" ] && ok "chunks end at $last of $size bytes" || fail "chunks end past the file"
finish
