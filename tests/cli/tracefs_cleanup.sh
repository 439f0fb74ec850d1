#!/bin/sh
# tracefs_cleanup.sh - no tracefs instance outlives the recorder: SIGTERM and
# --duration remove it, and so does an error exit; after kill -9 the next
# run removes the stale one.
# A bad object list fails before touching tracefs, as bad usage.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
make_loop 16M

expect_fail "unknown object" 2 "object 'nosuchdisk0': no such block device" -- \
	"$B/vxrecord" --source tracefs --objects "$LNAME,nosuchdisk0" -o "$T/x.vxt" -q

chmod 1777 "$T"
if command -v setpriv >/dev/null &&
   setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$B/vxrecord" -a -w "$T"; then
	expect_fail "not root" 1 "tracefs: .*(needs root" -- setpriv --reuid=65534 \
		--regid=65534 --clear-groups "$B/vxrecord" --source tracefs -o "$T/n.vxt" -d 1s -q
fi

start_rec "$T/a.vxt" --source tracefs --objects "$LNAME" -q || finish
pid=$REC
stop_rec TERM
expect_eq "vxrecord exit status after SIGTERM" "$RC" 0
instance_exists "vxrecord-$pid" && fail "SIGTERM: instance left behind" ||
	ok "SIGTERM: instance removed"

# an error once the instance exists: the output (opened after the source)
# cannot be created
sh -c 'echo $$ >"$1"; exec "$2" --source tracefs --objects "$3" -o "$4" -q' sh \
	"$T/e.pid" "$B/vxrecord" "$LNAME" "$T/nodir/e.vxt" 2>"$T/e.err"
expect_eq "exit status with an unwritable output" "$?" 1
epid=$(cat "$T/e.pid")
instance_exists "vxrecord-$epid" && fail "error exit: instance vxrecord-$epid left behind" ||
	ok "error exit ($(cat "$T/e.err")): instance removed"

start_rec "$T/b.vxt" --source tracefs --objects "$LNAME" -q || finish
stale=$REC
stop_rec KILL
instance_exists "vxrecord-$stale" && ok "kill -9 leaves vxrecord-$stale" ||
	fail "kill -9: no stale instance to clean"

"$B/vxrecord" --source tracefs --objects "$LNAME" -d 1s -o "$T/c.vxt" -q 2>"$T/c.err" &
next=$!
wait $next
expect_eq "next run's exit status" "$?" 0
instance_exists "vxrecord-$stale" && fail "stale instance vxrecord-$stale not removed" ||
	ok "stale instance vxrecord-$stale removed by the next run"
instance_exists "vxrecord-$next" && fail "--duration: instance left behind" ||
	ok "--duration: instance removed"

# without the module the default is ebpf where BPF programs load, else tracefs
if [ ! -e /dev/vxtrace ]; then
	want=tracefs
	[ -r /sys/kernel/btf/vmlinux ] && ! grep -q 'this build has no BPF programs' "$B/vxrecord" &&
		want=ebpf
	"$B/vxrecord" --objects "$LNAME" -d 1s -o "$T/d.vxt" -q || fail "default source"
	expect_eq "default source without /dev/vxtrace" \
		"$("$B/vxreplay" "$T/d.vxt" --report summary --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["source"])')" $want
fi
finish
