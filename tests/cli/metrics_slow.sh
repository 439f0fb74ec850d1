#!/bin/sh
# metrics_slow.sh - clients that trickle their request's header lines never
# hold the metrics endpoint: with 20 of them sending a line a second (within
# the idle timeout), every scrape is still answered, and the connections still
# asking are shut down as others come: the oldest first beyond 8 of one
# address, and all of them after 5 s.
. "${VXT_TOP:?}/tests/lib.sh"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }

"$B/vxtop" -b -i 1s -s sim --rate 1000 --listen 127.0.0.1:0 >/dev/null 2>"$T/vxtop.err" &
VX=$!
TR=
trap 'kill $VX $TR 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
i=0
while ! PORT=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T/vxtop.err") || [ -z "$PORT" ]; do
	i=$((i + 1))
	[ $i -gt 100 ] && { fail "no port: $(cat "$T/vxtop.err")"; finish; }
	sleep 0.1
done

# 20 clients: a request line, then a header line a second for 12 s; each
# says when the server ended its connection (seconds after it began)
python3 - "$PORT" >"$T/trickle.out" <<'PY' &
import socket, sys, time
port = int(sys.argv[1])
t0 = time.time()
socks = []
for i in range(20):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    socks.append((i, s))
    time.sleep(0.05)
closed = {}
while time.time() - t0 < 12:
    for i, s in socks:
        if i in closed:
            continue
        try:
            s.sendall(b"X-Slow: 1\r\n")
            s.setblocking(False)
            if s.recv(1) == b"":
                closed[i] = time.time() - t0
            s.setblocking(True)
        except BlockingIOError:
            s.setblocking(True)
        except OSError:
            closed[i] = time.time() - t0
    time.sleep(1)
for i, s in socks:
    print(i, "%.1f" % closed[i] if i in closed else "open")
PY
TR=$!
sleep 2
# scrape: the status of GET /metrics within 3 s
scrape() {
	python3 -c 'import sys, urllib.request
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=3).status)
except Exception as e:
    print(type(e).__name__)' "http://127.0.0.1:$PORT/metrics"
}
for n in 1 2 3; do
	expect_eq "scrape $n beside 20 trickling clients" "$(scrape)" 200
	sleep 1
done
sleep 3
expect_eq "a scrape past the 5 s deadline" "$(scrape)" 200
wait $TR
TR=
# the first 12 were shut down as others came (8 of one address at most)
expect_eq "trickling clients shut down at once, beyond 8" \
	"$(awk '$1 < 12 && $2 != "open" && $2 < 2' "$T/trickle.out" | wc -l)" 12
# the 8 left asking were shut down as the scrape past their deadline came
expect_eq "trickling clients left after 12 s" "$(grep -c open "$T/trickle.out")" 0
kill -0 $VX 2>/dev/null && ok "vxtop still runs" || fail "vxtop died"
finish
