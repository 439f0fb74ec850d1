#!/bin/sh
# fifo_input.sh - a fifo where a file is read (a *.vxt in a directory
# argument, a trace given by name, --follow, --sink-password-file) is refused
# as "not a regular file" with exit 1, at once: open(2) never waits for a
# writer that will not come.
. "$VXT_TOP/tests/lib.sh"

"$B/vxrecord" -q --source sim --seed 3 -c 2000 -o "$T/a.vxt" || fail "record"
mkdir "$T/dir"
cp "$T/a.vxt" "$T/dir/a.vxt"
mkfifo "$T/dir/b.vxt" "$T/pw"
ch=clickhouse+http://127.0.0.1:9/db.events	# never reached: the password is read first
# each under a timeout: before, every one of them blocked in open(2)
rep() { timeout 10 "$B/vxreplay" "$@"; }

expect_fail "a fifo in a directory argument" 1 "$T/dir/b.vxt: not a regular file" -- \
	rep "$T/dir" --report summary
expect_fail "a fifo given as the trace" 1 "$T/dir/b.vxt: not a regular file" -- \
	rep "$T/dir/b.vxt" --report summary
expect_fail "a fifo given to --info" 1 "$T/dir/b.vxt: not a regular file" -- \
	rep --info "$T/dir/b.vxt"
expect_fail "a fifo given to --sql" 1 "not a regular file" -- \
	rep "$T/dir/b.vxt" --sql 'select count(*) from events'
expect_fail "a fifo given to vxtop --follow" 1 "$T/dir/b.vxt: not a regular file" -- \
	timeout 10 "$B/vxtop" -b -c 1 --follow "$T/dir/b.vxt"
expect_fail "a fifo as vxreplay's --sink-password-file" 1 "$T/pw: not a regular file" -- \
	rep "$T/a.vxt" --export "$ch" --sink-password-file "$T/pw"
expect_fail "a fifo as vxrecord's --sink-password-file" 1 "$T/pw: not a regular file" -- \
	timeout 10 "$B/vxrecord" -q --source sim -c 10 -o "$T/s.vxt" --sink "$ch" \
	--sink-password-file "$T/pw"
mkdir "$T/pwdir"
expect_fail "a directory as --sink-password-file" 1 "$T/pwdir: not a regular file" -- \
	rep "$T/a.vxt" --export "$ch" --sink-password-file "$T/pwdir"
rep "$T/dir/a.vxt" --report summary >/dev/null && ok "a regular trace still reads" ||
	fail "a regular trace"
finish
