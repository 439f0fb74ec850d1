#!/bin/sh
# systemd.sh - contrib/systemd/vxrecord@.service: systemd-analyze accepts it,
# and its ExecStart line, run as systemd would (settings from the instance's
# environment file), records continuously, rotates and keeps N files, stops
# cleanly on SIGTERM and restarts without losing the previous file.
. "${VXT_TOP:?}/tests/lib.sh"
top=$VXT_TOP b=$B tmp=$T
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
pid=
unit=$top/contrib/systemd/vxrecord@.service
[ -f "$unit" ] || { fail "vxrecord@.service missing"; finish; }

if command -v systemd-analyze >/dev/null; then
	sed "s|/usr/bin/vxrecord|$b/vxrecord|" "$unit" > "$tmp/vxrecord@demo.service"
	systemd-analyze verify --man=no "$tmp/vxrecord@demo.service" > "$tmp/verify" 2>&1 ||
		{ cat "$tmp/verify"; fail "systemd-analyze verify failed"; }
	[ -s "$tmp/verify" ] && { cat "$tmp/verify"; fail "systemd-analyze verify warns"; }
else
	echo "systemd: systemd-analyze not installed, checking the command line only"
fi

# The command line as systemd runs it for instance "demo".
cmd=$(sed -n 's/^ExecStart=//p' "$unit" | sed -e "s|/usr/bin/vxrecord|$b/vxrecord|" \
	-e "s|/var/lib/vxtrace/%i|$tmp/state/demo|")
defaults=$(sed -n 's/^Environment=//p' "$unit")
grep -q '^EnvironmentFile=-/etc/vxtrace/vxrecord-%i.conf$' "$unit" || fail "no per-instance settings file"
grep -q '^StateDirectory=vxtrace$' "$unit" || fail "no StateDirectory"
mkdir -p "$tmp/state"
cat > "$tmp/demo.conf" <<CONF
VXRECORD_ROTATE=1s
VXRECORD_KEEP=2
VXRECORD_OPTS="--source sim --realtime --rate 2000"
CONF
run() {
	( eval "export $defaults"; set -a; . "$tmp/demo.conf"; set +a; eval "exec $cmd" ) &
	pid=$!
	sleep "$1"
	kill -TERM $pid
	wait $pid
}
run 4.5 || fail "the recorder did not exit 0 on SIGTERM"
pid=
cd "$tmp/state" || { fail "cd $tmp/state"; finish; }
ls *.vxt | sort > names
printf 'demo.1.vxt\ndemo.2.vxt\ndemo.vxt\n' | cmp -s - names || fail "expected demo.vxt, demo.1.vxt, demo.2.vxt; got $(cat names)"
for f in demo.vxt demo.1.vxt demo.2.vxt; do
	"$b/vxreplay" --info "$f" | grep -q '^index: *footer' || fail "$f not closed cleanly"
	"$b/vxreplay" --verify "$f" > /dev/null || fail "$f does not verify"
	"$b/vxreplay" --info "$f" | grep -q '^source: *sim' || fail "$f: the settings file was not read"
	"$b/vxreplay" --info "$f" | grep -q '^profile: *errors-in-context' ||
		fail "$f: not recorded with the default profile"
done
[ "$(stat -c %a demo.vxt)" = 600 ] || fail "demo.vxt is not mode 0600"
last=$("$b/vxreplay" demo.vxt --report summary --format csv | tail -n 1)
run 0.6 || fail "the restarted recorder did not exit 0"
pid=
# the previous file became the newest rotated one: the highest number
newest=$(ls demo.*.vxt | sed 's/^demo\.\([0-9]*\)\.vxt$/\1/' | sort -n | tail -n 1)
[ "$("$b/vxreplay" "demo.$newest.vxt" --report summary --format csv | tail -n 1)" = "$last" ] ||
	fail "the restart did not move the previous file to the newest number (demo.$newest.vxt)"
[ $fails = 0 ] && ok "systemd: the unit records, rotates, keeps and restarts"
finish
