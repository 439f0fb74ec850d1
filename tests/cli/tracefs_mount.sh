#!/bin/sh
# tracefs_mount.sh - the tracefs source mounts tracefs when nothing is
# mounted (tried in a private mount namespace, so the system keeps its own).
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
command -v unshare >/dev/null || skip "no unshare"
unshare -m --propagation private true 2>/dev/null || skip "cannot make a mount namespace"
make_loop 16M

unshare -m --propagation private sh -c '
	while grep -q " tracefs " /proc/mounts; do
		umount "$(awk "\$3 == \"tracefs\" { print \$2; exit }" /proc/mounts)" || exit 3
	done
	"$1/vxrecord" --source tracefs --objects "$2" -d 1s -o "$3" -q || exit 4
	grep " tracefs " /proc/mounts | grep -q /sys/kernel/tracing || exit 5
' sh "$B" "$LNAME" "$T/m.vxt"
rc=$?
case $rc in
0) ok "tracefs mounted on /sys/kernel/tracing and recorded" ;;
3) skip "cannot unmount tracefs in a private namespace" ;;
4) fail "vxrecord failed without a mounted tracefs" ;;
5) fail "tracefs not mounted on /sys/kernel/tracing after vxrecord" ;;
*) fail "unshare: exit $rc" ;;
esac
[ -s "$T/m.vxt" ] && ok "trace written" || fail "no trace written"
finish
