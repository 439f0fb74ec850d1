#!/bin/sh
# tracefs_all.sh - without --objects every device is traced: the loop
# device's I/O is complete, and other devices appear under their own names.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
make_loop 64M

start_rec "$T/a.vxt" --source tracefs -q || finish
set -- $(fio_run "$LOOP" w randwrite 700)
writes=$2
sleep 0.5
stop_rec INT
expect_eq "vxrecord exit status" "$RC" 0
"$B/vxreplay" "$T/a.vxt" --report summary --objects "$LNAME" --format json >"$T/sum.json" ||
	fail "summary of $LNAME"
expect_eq "$LNAME writes (fio issued $writes)" "$(json "$T/sum.json" 'j["writes"]')" "$writes"
"$B/vxreplay" "$T/a.vxt" --report objects --format json >"$T/obj.json" || fail "objects"
expect_eq "objects named as the kernel names them" \
	"$(json "$T/obj.json" 'all(o["object"] and ":" not in o["object"] for o in j)')" True
expect_eq "$LNAME is a loop object" \
	"$(json "$T/obj.json" '[o["kind"] for o in j if o["object"] == "'"$LNAME"'"]')" "['loop']"
finish
