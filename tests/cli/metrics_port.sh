#!/bin/sh
# metrics_port.sh - a --listen port another local user holds: vxtop and
# vxrecord say so in one line naming the port and the user, exit 1, and
# vxrecord leaves no file.
. "${VXT_TOP:?}/tests/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root to run a listener as another user"; exit 77; }
command -v setpriv >/dev/null || { echo "skip: no setpriv"; exit 77; }
PY=/usr/bin/python3	# not a per-user shim: run as nobody
[ -x "$PY" ] || { echo "skip: no $PY"; exit 77; }

# nobody listens on a free port of 127.0.0.1, and says which on stdout
setpriv --reuid=65534 --regid=65534 --clear-groups "$PY" - >"$T/port" <<'PY' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen()
print(s.getsockname()[1], flush=True)
time.sleep(60)
PY
HOLDER=$!
trap 'kill $HOLDER 2>/dev/null; wait; rm -rf "$T"' EXIT
i=0
while [ ! -s "$T/port" ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { fail "no listener as nobody"; finish; }
	sleep 0.1
done
P=$(cat "$T/port")
who="port $P is in use by another program (user $(id -nu 65534), uid 65534)"
expect_fail "vxtop --listen 127.0.0.1:$P" 1 "vxtop: metrics on 127.0.0.1:$P: $who" -- \
	timeout 20 "$B/vxtop" -b -c 1 -s sim --listen 127.0.0.1:$P
expect_fail "vxtop --listen $P" 1 "vxtop: metrics on $P: $who" -- \
	timeout 20 "$B/vxtop" -b -c 1 -s sim --listen $P
expect_fail "vxrecord --listen 127.0.0.1:$P" 1 "vxrecord: metrics on 127.0.0.1:$P: $who" -- \
	timeout 20 "$B/vxrecord" -q -s sim -c 100 -o "$T/x.vxt" --listen 127.0.0.1:$P
[ -e "$T/x.vxt" ] && fail "vxrecord left its file" || ok "vxrecord left no file"
kill -0 $HOLDER 2>/dev/null && ok "the holder still listens" || fail "the holder is gone"
finish
