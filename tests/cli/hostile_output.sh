#!/bin/sh
# hostile_output.sh - where vxrecord writes: files are created 0600 whatever
# the umask; an existing file is kept unless --force; a symlink is never
# followed (even with --force) unless --follow-symlinks; a directory, a
# missing directory and a device (never replaced) give one clear error and exit 1.
. "$VXT_TOP/tests/lib.sh"

rec() { "$B/vxrecord" -q --source sim --seed 2 -c 2000 "$@"; }

(umask 000 && rec -o "$T/a.vxt") || fail "record"
expect_eq "mode with umask 000" "$(stat -c %a "$T/a.vxt")" 600
(umask 000 && rec --rotate 10K --keep 2 --rate 2000 -c 20000 -o "$T/r.vxt") || fail "record --rotate"
for f in "$T"/r*.vxt; do
	expect_eq "mode of $(basename "$f")" "$(stat -c %a "$f")" 600
done

echo precious >"$T/target"
ln -s "$T/target" "$T/link"
expect_fail "symlink output" 1 "is a symlink; refusing to follow it" -- rec -o "$T/link"
expect_fail "symlink output with --force" 1 "is a symlink; refusing to follow it" -- \
	rec -f -o "$T/link"
expect_eq "the symlink's target is untouched" "$(cat "$T/target")" precious
ln -s "$T/nowhere.vxt" "$T/dangling"
expect_fail "dangling symlink output" 1 "is a symlink; refusing" -- rec -o "$T/dangling"
[ -e "$T/nowhere.vxt" ] && fail "a dangling symlink's target was created" ||
	ok "a dangling symlink's target is not created"
rec --follow-symlinks -f -o "$T/link" && "$B/vxreplay" --verify "$T/target" >/dev/null &&
	ok "--follow-symlinks writes through the link" || fail "--follow-symlinks"

echo precious >"$T/exists.vxt"
expect_fail "existing file" 1 "file exists (use --force to overwrite)" -- rec -o "$T/exists.vxt"
expect_eq "the existing file is untouched" "$(cat "$T/exists.vxt")" precious
mkdir "$T/dir"
expect_fail "directory output" 1 "dir: is a directory" -- rec -f -o "$T/dir"
expect_fail "directory output without -f" 1 "dir: is a directory" -- rec -o "$T/dir"
expect_fail "missing directory" 1 "No such file or directory" -- rec -o "$T/no/such/t.vxt"
if [ -c /dev/full ]; then
	expect_fail "a device as output" 1 "/dev/full: not a regular file" -- rec -f -o /dev/full
	[ -c /dev/full ] && ok "/dev/full is still a device" || fail "/dev/full was replaced"
fi
finish
