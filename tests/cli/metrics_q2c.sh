#!/bin/sh
# metrics_q2c.sh - the Q2C and D2C histograms of /metrics against a pairing
# by hand. A simulated source (issue and completion only) serves D2C and no
# Q2C. The real blktrace capture under ../shared/data/blktrace/centos7-sda,
# imported and appended to a file `vxtop --follow --listen` watches, serves
# both: every bucket, sum and count per object and op equals an awk pairing
# over the events CSV (Q2C: a queue is pending from its Q to the completion
# whose sector range holds it, as btt pairs them; D2C: a completion and the
# issue at its sector), and `promtool check metrics` finds nothing.
. "${VXT_TOP:?}/tests/lib.sh"

for b in promtool python3; do
	command -v $b >/dev/null 2>&1 || { echo "skip: $b is not installed"; exit 77; }
done
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
get() {
	python3 -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"
}
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
# scrape PORT EVENTS: scrape into $T/scrape.txt until it has seen EVENTS events
# (any number when EVENTS is empty); false after 10 s
scrape() {
	i=0
	while [ $i -lt 100 ]; do
		if get "http://127.0.0.1:$1/metrics" >"$T/scrape.txt" 2>/dev/null; then
			n=$(sed -n 's/^vxtrace_events_total \([0-9]*\)$/\1/p' "$T/scrape.txt")
			[ -n "$n" ] && [ "$n" -gt 0 ] && { [ -z "$2" ] || [ "$n" -eq "$2" ]; } && return 0
		fi
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}

# --- a source without queue events: D2C, no Q2C -----------------------------
P=$(free_port)
"$B/vxtop" -b -i 1s -s sim --seed 3 --rate 5000 --listen 127.0.0.1:$P >/dev/null 2>"$T/sim.err" &
pid=$!
scrape $P "" || { fail "vxtop --source sim never served events: $(cat "$T/sim.err")"; finish; }
kill $pid
wait $pid 2>/dev/null
pid=""
grep -q '^vxtrace_io_d2c_seconds_count{' "$T/scrape.txt" && ok "sim: D2C served" ||
	fail "sim: no D2C histogram"
grep -q 'q2c' "$T/scrape.txt" && fail "sim: a Q2C histogram without queue events" ||
	ok "sim: no Q2C without queue events"

data=${VXT_SHARED:-$VXT_TOP/../shared}/data/blktrace/centos7-sda
if [ ! -d "$data" ]; then
	echo "metrics_q2c: $data absent: the real capture's Q2C and D2C checks skipped"
	[ $fails -eq 0 ] && exit 77
	finish
fi

# --- the real capture, appended to a followed file ---------------------------
"$B/vxrecord" -q --import blktrace "$data/sda" -o "$T/c.vxt" || { fail "import failed"; finish; }
"$B/vxreplay" "$T/c.vxt" --report events -F csv >"$T/ev.csv" || { fail "events failed"; finish; }
nev=$(($(wc -l <"$T/ev.csv") - 1))
# the file's header alone, then its chunks without the footer (a recording
# that goes on)
python3 - "$T/c.vxt" "$T/g.vxt" "$T/rest.bin" <<'EOF' || { fail "splitting the file failed"; finish; }
import struct, sys
d = open(sys.argv[1], "rb").read()
foot = struct.unpack_from("<Q", d, len(d) - 16)[0]	# the trailer's footer_offset
hend = 8 + struct.unpack_from("<I", d, 4)[0]		# the header unit
open(sys.argv[2], "wb").write(d[:hend])
open(sys.argv[3], "wb").write(d[hend:foot])
EOF
P=$(free_port)
"$B/vxtop" -b -i 1s --follow "$T/g.vxt" --listen 127.0.0.1:$P >/dev/null 2>"$T/top.err" &
pid=$!
sleep 0.5
cat "$T/rest.bin" >>"$T/g.vxt"
scrape $P "$nev" || { fail "the scrape never saw the $nev events: $(cat "$T/top.err")"; finish; }
kill $pid
wait $pid 2>/dev/null
pid=""
expect_eq "promtool check metrics" "$(promtool check metrics <"$T/scrape.txt" 2>&1)" ""

# the histograms served, as "NAME OBJECT OP cum0 .. cum24 +Inf SUM COUNT"
sed -n 's/^vxtrace_io_\([dq]2c\)_seconds_\(bucket\|sum\|count\){object="\([^"]*\)",op="\([^"]*\)"\(,le="[^"]*"\)\{0,1\}} \(.*\)$/\1 \3 \4 \2 \6/p' \
	"$T/scrape.txt" | awk '
	{ k = $1 " " $2 " " $3; if (!(k in line)) order[n++] = k
	  if ($4 == "bucket") b[k] = b[k] " " $5; else if ($4 == "sum") s[k] = $5; else c[k] = $5; line[k] = 1 }
	END { for (i = 0; i < n; i++) { k = order[i]; if (c[k] > 0) print k b[k], s[k], c[k] } }' |
	sort >"$T/got.txt"
# the same from the events: Q2C by btt's pairing, D2C from issue to completion
awk -F, '
function obs(name, ns,   k, e) {
	if (ns < 0) ns = 0
	k = name " " obj " " op; cnt[k]++; sum[k] += ns
	for (e = 0; e <= 24; e++) if (ns <= 2 ^ e * 1000) cum[k, e]++
}
NR == 1 { next }
{
	t = $1; obj = $2; ph = $3; op = $4; sec = $6 + 0; nb = int($7 / 512)
	if (ph == "start") { dt[obj, sec] = t; next }
	if (ph == "done" && ((obj, sec) in dt)) { obs("d2c", t - dt[obj, sec]); delete dt[obj, sec] }
	if ($7 == 0) next
	if (ph == "queue") {
		if ((obj, sec) in qt) next
		qt[obj, sec] = t; qe[obj, sec] = sec + nb; qo[obj, sec] = obj; qs[obj, sec] = sec
		next
	}
	if (ph == "done")
		for (k in qt) if (qo[k] == obj && qs[k] >= sec && qe[k] <= sec + nb) {
			obs("q2c", t - qt[k]); delete qt[k]; delete qe[k]; delete qo[k]; delete qs[k]
		}
}
END {
	for (k in cnt) {
		line = k
		for (e = 0; e <= 24; e++) line = line " " (cum[k, e] + 0)
		printf "%s %d %d.%09d %d\n", line, cnt[k], int(sum[k] / 1e9), sum[k] % 1e9, cnt[k]
	}
}' "$T/ev.csv" | sort >"$T/want.txt"
grep -q '^q2c ' "$T/want.txt" && grep -q '^d2c ' "$T/want.txt" ||
	fail "the capture pairs no Q2C or no D2C: $(cat "$T/want.txt")"
if cmp -s "$T/got.txt" "$T/want.txt"; then
	ok "Q2C and D2C buckets, sums and counts equal the pairing by hand ($(grep -c . "$T/want.txt") series)"
else
	fail "histograms differ from the pairing by hand: $(diff "$T/want.txt" "$T/got.txt" | head -n 6)"
fi
finish
