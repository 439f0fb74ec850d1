#!/bin/sh
# tracefs_pidns.sh - two recorders that are each PID 1 of their own PID
# namespace (two containers) get a tracefs instance each, named for their
# namespace, and each file holds every I/O; a recorder never removes an
# instance of another namespace, whose process it cannot see.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
command -v unshare >/dev/null || skip "no unshare"
unshare --pid --fork --mount-proc true 2>/dev/null || skip "unshare cannot make a PID namespace here"
make_loop 64M

P1= P2=
# container N OUT: vxrecord as PID 1 of a new PID namespace, stopped by
# SIGINT once fio is done (its handler lets a signal from this namespace in);
# -d ends it should the signal never come
container() {
	unshare --pid --fork --mount-proc --kill-child "$B/vxrecord" --source tracefs \
		--objects "$LNAME" -d 120s -q -o "$2" 2>"$T/rec$1.err" &
}
container 1 "$T/a.vxt"; P1=$!
container 2 "$T/b.vxt"; P2=$!
trap 'kill $P1 $P2 2>/dev/null; cleanup' EXIT
i=0
# both record once both outputs exist (the writer opens after the source)
while [ ! -e "$T/a.vxt" ] || [ ! -e "$T/b.vxt" ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { fail "no recording after 10 s: $(cat "$T"/rec*.err)"; finish; }
	sleep 0.1
done
n=$(ls "$(tracing_dir)/instances" | grep -c '^vxrecord-1-ns[0-9]*$')
expect_eq "instances named vxrecord-1-nsINODE" "$n" 2
set -- $(fio_run "$LOOP" w randwrite 2000)
writes=$2
sleep 0.5
# each recorder is the one child of its unshare
for p in $P1 $P2; do
	r=$(pgrep -P "$p")
	[ -n "$r" ] && kill -INT $r || fail "no recorder under unshare $p"
done
wait $P1; expect_eq "first recorder's exit status" "$?" 0
wait $P2; expect_eq "second recorder's exit status" "$?" 0
P1= P2=
for f in a b; do
	"$B/vxreplay" "$T/$f.vxt" --report summary --format json >"$T/$f.json" || fail "$f: summary"
	expect_eq "$f.vxt: completed writes (fio issued $writes)" "$(json "$T/$f.json" 'j["writes"]')" "$writes"
	expect_eq "$f.vxt: starts" "$(json "$T/$f.json" 'j["starts"]')" "$writes"
	expect_eq "$f.vxt: lost" "$(json "$T/$f.json" 'j["lost"]')" 0
done
n=$(ls "$(tracing_dir)/instances" | grep -c '^vxrecord-1-ns[0-9]*$')
expect_eq "instances left behind" "$n" 0

# a container's recorder never removes an instance of the host's namespace:
# this shell's PID is no process in the container, but it lives
fake=vxrecord-$$
mkdir "$(tracing_dir)/instances/$fake" || fail "mkdir $fake"
unshare --pid --fork --mount-proc "$B/vxrecord" --source tracefs --objects "$LNAME" -d 1s -q \
	-o "$T/c.vxt" || fail "a container's run beside it"
instance_exists "$fake" && ok "the host's instance $fake kept" || fail "$fake removed"
rmdir "$(tracing_dir)/instances/$fake" 2>/dev/null
finish
