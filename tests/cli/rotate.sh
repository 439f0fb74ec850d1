#!/bin/sh
# rotate.sh - vxrecord --rotate TIME|SIZE --keep N: every file is complete and
# sound, spans less than TIME, rotated files are numbered oldest first and
# never renamed again, the files together hold exactly the events of one
# unrotated recording, --keep drops the oldest, a restart moves the existing
# file away instead of failing, and absurd values and names fail up front.
. "${VXT_TOP:?}/tests/lib.sh"
b=$B
cd "$T" || { fail "cd $T"; finish; }
rec() { "$b/vxrecord" -q -s sim -d 10s --rate 2000 "$@"; }
summary() { "$b/vxreplay" "$1" --report summary --format csv | tail -n 1; }

rec -o one.vxt || { fail "plain recording failed"; finish; }
rec --rotate 2s -o t.vxt || { fail "recording with --rotate 2s failed"; finish; }
[ -f t.vxt ] && [ -f t.1.vxt ] && [ -f t.4.vxt ] && [ ! -e t.5.vxt ] ||
	fail "expected t.vxt and t.1.vxt .. t.4.vxt, got: $(ls)"
total=0 errors=0 prev_end=0
for f in t.1.vxt t.2.vxt t.3.vxt t.4.vxt t.vxt; do
	"$b/vxreplay" --verify "$f" > /dev/null || fail "$f does not verify"
	"$b/vxreplay" --info "$f" | grep -q '^index: *footer' || fail "$f was not closed cleanly"
	IFS=, read -r start end span events ios reads writes bytes errs lost objs <<EOS
$(summary "$f")
EOS
	[ "$span" -lt 2000000000 ] || fail "$f spans $span ns, more than 2s"
	[ "$start" -gt "$prev_end" ] || fail "$f starts before the file rotated before it ends"
	[ "$objs" -eq 4 ] || fail "$f does not name its 4 objects"
	prev_end=$end total=$((total + events)) errors=$((errors + errs))
done
IFS=, read -r start end span events ios reads writes bytes errs lost objs <<EOS
$(summary one.vxt)
EOS
[ "$total" -eq "$events" ] || fail "rotated files hold $total events, one file $events"
[ "$errors" -eq "$errs" ] || fail "rotated files hold $errors errors, one file $errs"
"$b/vxreplay" t.1.vxt --export csv | tail -n +2 > parts.csv
for f in t.2.vxt t.3.vxt t.4.vxt t.vxt; do
	"$b/vxreplay" "$f" --export csv | tail -n +2 >> parts.csv
done
"$b/vxreplay" one.vxt --export csv | tail -n +2 > one.csv
cmp -s parts.csv one.csv || fail "the rotated files' events differ from one recording's"

# Restart with --keep 2: the old t.vxt is moved away (numbered after the
# others), not refused; the older files keep their names and inodes (no
# shifting), and only two rotated files are left.
old_newest=$(summary t.vxt)
ino=$(stat -c %i t.1.vxt)
rec --rotate 2s -o t.vxt || fail "restart with an existing file failed"
[ "$(stat -c %i t.1.vxt)" = "$ino" ] || fail "a restart renamed the older files"
[ "$(summary t.5.vxt)" = "$old_newest" ] || fail "the old t.vxt did not become t.5.vxt"
[ -f t.9.vxt ] && [ ! -e t.10.vxt ] || fail "the restart's files are not t.6 .. t.9: $(ls)"
rec --rotate 2s --keep 2 -o t.vxt || fail "restart with --keep 2 failed"
ls t*.vxt | sort > names
printf 't.13.vxt\nt.14.vxt\nt.vxt\n' | cmp -s - names || fail "--keep 2 after a restart left: $(cat names)"
rm -f t*.vxt
rec --rotate 2s --keep 2 -o t.vxt || fail "--keep 2 failed"
ls t*.vxt | sort > names
printf 't.3.vxt\nt.4.vxt\nt.vxt\n' | cmp -s - names || fail "--keep 2 left: $(cat names)"
[ "$(summary t.vxt)" = "$old_newest" ] || fail "the newest file differs from the unlimited run's"

# Size: each rotated file passes the size, the last one may be smaller.
"$b/vxrecord" -q -s sim -d 5s --rate 50000 --rotate 200K -o s.vxt || fail "--rotate 200K failed"
[ -f s.2.vxt ] || fail "--rotate 200K made too few files: $(ls s*)"
for f in s.[0-9]*.vxt; do
	sz=$(stat -c %s "$f")
	[ "$sz" -ge 204800 ] || fail "$f is $sz bytes, rotated before 200K"
	[ "$sz" -lt 1048576 ] || fail "$f is $sz bytes, far past 200K"
done

# Usage errors exit 2.
for bad in "--rotate 100" "--rotate x" "--keep 3" "--rotate 1m --keep 0" "--rotate 1ns" \
	"--rotate 999ms" "--rotate 1K"; do
	"$b/vxrecord" -q -s sim -d 1s $bad -o u.vxt 2>/dev/null
	[ $? -eq 2 ] || fail "'$bad' should exit 2"
	[ ! -e u.vxt ] || fail "'$bad' made a file"
done
"$b/vxrecord" -q -s sim -d 1s --rotate 1ns -o u.vxt 2>&1 | grep -q "at least 1s or 8K" ||
	fail "--rotate 1ns does not say the minimum"
# a name whose rotated names (FILE.4294967295.vxt) pass NAME_MAX fails before recording
long=$(printf '%0245d' 0).vxt
"$b/vxrecord" -q -s sim -d 1s --rotate 1s -o "$long" 2> err.txt
[ $? -eq 2 ] || fail "an over-long name with --rotate should exit 2"
grep -q "names would be too long" err.txt || fail "over-long name: $(cat err.txt)"
[ ! -e "$long" ] || fail "an over-long name made a file"
"$b/vxrecord" -q -s sim -d 1s -o "$long" || fail "the same name without --rotate failed"
rm -f "$long"
[ $fails = 0 ] && ok "rotate: $total events in 5 files"
finish
