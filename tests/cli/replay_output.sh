#!/bin/sh
# replay_output.sh - vxreplay -o follows vxrecord's rule for outputs (one
# library function, vxt_outfile_open()): created 0600 whatever the umask, an
# existing file kept unless --force, a symlink refused unless
# --follow-symlinks, a directory named as one, and the input never
# overwritten, not even with --force or through a hard link or another path.
. "$VXT_TOP/tests/lib.sh"

"$B/vxrecord" -q --source sim --seed 3 -c 3000 -o "$T/t.vxt" || fail "record"
sum=$(cksum <"$T/t.vxt")
rep() { "$B/vxreplay" "$T/t.vxt" "$@"; }

(umask 000 && rep --report summary -o "$T/s.txt") || fail "report to a new file"
expect_eq "report mode with umask 000" "$(stat -c %a "$T/s.txt")" 600
(umask 000 && rep --export csv -o "$T/e.csv") || fail "export to a new file"
expect_eq "export mode with umask 000" "$(stat -c %a "$T/e.csv")" 600
(umask 000 && rep --report html -o "$T/r.html") || fail "html to a new file"
expect_eq "html mode with umask 000" "$(stat -c %a "$T/r.html")" 600

echo precious >"$T/old.txt"
expect_fail "existing output" 1 "old.txt: file exists (use --force to overwrite)" -- \
	rep --report summary -o "$T/old.txt"
expect_eq "the existing file is untouched" "$(cat "$T/old.txt")" precious
rep --report summary --force -o "$T/old.txt" || fail "--force"
grep -q precious "$T/old.txt" && fail "--force kept the old content" ||
	ok "--force replaces the file"
rep --report summary -f -o "$T/old.txt" || fail "-f"

for how in "--report html" "--report summary" "--export csv" "--export blktrace"; do
	expect_fail "$how -o the input" 1 "t.vxt: is the input file; refusing to overwrite it" -- \
		rep $how -o "$T/t.vxt"
	expect_fail "$how --force -o the input" 1 "is the input file" -- rep $how --force -o "$T/t.vxt"
done
ln "$T/t.vxt" "$T/hard.vxt"
expect_fail "--force -o a hard link to the input" 1 "hard.vxt: is the input file" -- \
	rep --report html --force -o "$T/hard.vxt"
mkdir "$T/sub"
expect_fail "--force -o the input by another path" 1 "is the input file" -- \
	rep --export csv --force -o "$T/sub/../t.vxt"
ln -s "$T/t.vxt" "$T/link.vxt"
expect_fail "--force --follow-symlinks -o a link to the input" 1 "is the input file" -- \
	rep --export csv --force --follow-symlinks -o "$T/link.vxt"
expect_eq "the trace is untouched" "$(cksum <"$T/t.vxt")" "$sum"
"$B/vxreplay" --verify "$T/t.vxt" >/dev/null || fail "the trace no longer verifies"

echo precious >"$T/target"
ln -s "$T/target" "$T/link"
expect_fail "symlink output" 1 "link: is a symlink; refusing to follow it (use --follow-symlinks)" -- \
	rep --report summary -o "$T/link"
expect_fail "symlink output with --force" 1 "is a symlink; refusing" -- \
	rep --report summary --force -o "$T/link"
expect_eq "the symlink's target is untouched" "$(cat "$T/target")" precious
ln -s "$T/nowhere" "$T/dangling"
expect_fail "dangling symlink output" 1 "is a symlink; refusing" -- rep --export csv -o "$T/dangling"
[ -e "$T/nowhere" ] && fail "a dangling symlink's target was created" ||
	ok "a dangling symlink's target is not created"
rep --report summary --force --follow-symlinks -o "$T/link" && grep -q events "$T/target" &&
	ok "--follow-symlinks writes through the link" || fail "--follow-symlinks"

expect_fail "a directory as output" 1 "sub: is a directory" -- rep --report summary -o "$T/sub"
expect_fail "a directory as output with --force" 1 "sub: is a directory" -- \
	rep --report summary --force -o "$T/sub"
if [ -c /dev/full ]; then
	expect_fail "a device as output" 1 "/dev/full: not a regular file" -- \
		rep --report summary --force -o /dev/full
fi
# vxrecord names a directory the same way
expect_fail "vxrecord -o a directory" 1 "sub: is a directory" -- \
	"$B/vxrecord" -q --source sim -c 10 -o "$T/sub"
finish
