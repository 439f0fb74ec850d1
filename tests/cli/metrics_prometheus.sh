#!/bin/sh
# metrics_prometheus.sh - a real Prometheus scrapes `vxtop --source sim
# --listen`: the counters it stored at its last scrape equal the counts of the
# same seeded simulation recorded by vxrecord and counted with awk (the scrape
# is a prefix of the event stream: vxtrace_events_total says how long), the
# I/O rate is the simulator's, `promtool check metrics` finds nothing, the
# server answers OpenMetrics to an Accept that asks for it, and a port in use,
# a non-loopback address and a bad address are one line each.
. "${VXT_TOP:?}/tests/lib.sh"

for b in prometheus promtool python3; do
	command -v $b >/dev/null 2>&1 || { echo "skip: $b is not installed"; exit 77; }
done

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
# get URL [ACCEPT]: the body on stdout (headers in $T/headers)
get() {
	python3 - "$@" <<'EOF'
import os, sys, urllib.request
req = urllib.request.Request(sys.argv[1])
if len(sys.argv) > 2:
    req.add_header("Accept", sys.argv[2])
with urllib.request.urlopen(req, timeout=5) as r:
    with open(os.environ["T"] + "/headers", "w") as h:
        h.write("".join("%s: %s\n" % kv for kv in r.getheaders()))
    sys.stdout.write(r.read().decode())
EOF
}
export T

OBJS="alpha:rand:100:4k:1ms:1,beta:rand:0:8k:2ms:3"
ERRS="beta@1s+7:EIO,alpha@1500ms+3:ENOSPC"
SIM="-s sim --seed 5 --rate 4000 --sim-objects $OBJS --sim-errors $ERRS"

VP=$(free_port)
"$B/vxtop" -b -i 1s $SIM --listen 127.0.0.1:$VP >/dev/null 2>"$T/vxtop.err" &
vxtop_pid=$!
PP=""
prom_pid=""
cleanup() {
	kill $vxtop_pid 2>/dev/null
	[ -n "$prom_pid" ] && kill $prom_pid 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

i=0
until get "http://127.0.0.1:$VP/metrics" >"$T/scrape.txt" 2>/dev/null; do
	i=$((i + 1))
	[ $i -gt 50 ] && { fail "vxtop never served /metrics: $(cat "$T/vxtop.err")"; finish; }
	sleep 0.1
done

# the formats
out=$(promtool check metrics <"$T/scrape.txt" 2>&1)
expect_eq "promtool check metrics" "$out" ""
grep -q '^Content-Type: text/plain; version=0.0.4' "$T/headers" &&
	ok "plain scrape is text/plain; version=0.0.4" || fail "content type: $(cat "$T/headers")"
get "http://127.0.0.1:$VP/metrics" \
	"application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5" >"$T/om.txt"
grep -q '^Content-Type: application/openmetrics-text; version=1.0.0' "$T/headers" &&
	ok "OpenMetrics when asked" || fail "OpenMetrics content type: $(cat "$T/headers")"
expect_eq "OpenMetrics ends with # EOF" "$(tail -n 1 "$T/om.txt")" "# EOF"
grep -q '^# TYPE vxtrace_io_completed counter$' "$T/om.txt" &&
	ok "OpenMetrics counter family without _total" || fail "OpenMetrics TYPE line"
get "http://127.0.0.1:$VP/metrics" "text/plain;q=0.9,application/openmetrics-text;q=0.2" \
	>/dev/null
grep -q '^Content-Type: text/plain' "$T/headers" &&
	ok "text when text has the higher q" || fail "negotiation ignores q: $(cat "$T/headers")"

# Prometheus scraping twice a second
PP=$(free_port)
cat >"$T/prom.yml" <<EOF
global:
  scrape_interval: 500ms
  scrape_timeout: 400ms
scrape_configs:
  - job_name: vxtop
    static_configs:
      - targets: ['127.0.0.1:$VP']
EOF
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address=127.0.0.1:$PP >"$T/prom.log" 2>&1 &
prom_pid=$!

# query EXPR [TIME]: "labels value" lines, labels as object/op[/errno]
query() {
	python3 - "http://127.0.0.1:$PP/api/v1/query" "$@" <<'EOF'
import json, sys, urllib.parse, urllib.request
args = {"query": sys.argv[2]}
if len(sys.argv) > 3:
    args["time"] = sys.argv[3]
with urllib.request.urlopen(sys.argv[1] + "?" + urllib.parse.urlencode(args), timeout=5) as r:
    doc = json.load(r)
assert doc["status"] == "success", doc
for s in doc["data"]["result"]:
    m = s["metric"]
    key = "/".join(m[k] for k in ("object", "op", "errno", "le") if k in m) or "-"
    print(key, s["value"][1], repr(s["value"][0]))
EOF
}

# wait for 3 s of samples after the last error burst (simulated time 1.5 s)
i=0
while :; do
	n=$(query 'count_over_time(vxtrace_events_total[1m])' 2>/dev/null | awk '{print $2}')
	errs=$(query 'sum(vxtrace_io_errors_total)' 2>/dev/null | awk '{print $2}')
	[ "${n:-0}" -ge 6 ] && [ "${errs:-0}" = 10 ] && break
	i=$((i + 1))
	[ $i -gt 150 ] && { fail "prometheus has no samples (n=${n:-none}, errors=${errs:-none}):
$(tail -n 5 "$T/prom.log")"; finish; }
	sleep 0.1
done
ok "prometheus scraped $n times"

# everything at the time of the last scrape: one snapshot of vxtop's
query 'vxtrace_events_total' >"$T/events"
at=$(awk '{gsub("\x27", "", $3); print $3}' "$T/events")
E=$(awk '{print $2}' "$T/events")
for m in io_completed_total io_bytes_total io_in_flight io_d2c_seconds_count; do
	query "vxtrace_$m" "$at" | awk -v m=$m '{print m, $1, $2}'
done >"$T/got"
query 'vxtrace_io_errors_total' "$at" | awk '{print "errors", $1, $2}' >>"$T/got"
query 'vxtrace_io_d2c_seconds_bucket{le="0.001024"}' "$at" |
	awk '{sub("/0.001024$", "", $1); print "le_1.024ms", $1, $2}' >>"$T/got"
rate=$(query 'sum(rate(vxtrace_io_completed_total[3s]))' "$at" | awk '{print $2}')

# the reference: the first E events of the same simulation, counted with awk
"$B/vxrecord" $SIM -c "$E" -q -o "$T/ref.vxt" || fail "vxrecord of the reference"
"$B/vxreplay" "$T/ref.vxt" --report events --format csv | awk -F, '
NR == 1 { next }
$3 == "start" { st[$2 "/" $4]++ }
$3 == "done" {
	k = $2 "/" $4
	n[k]++; by[k] += $7; dn[k]++
	if ($8 > 0) c[k]++
	if ($8 > 0 && $8 <= 1024000) le[k]++
	if ($9 != 0) e[k "/" $10]++
}
END {
	for (k in n) print "io_completed_total", k, n[k]
	for (k in by) print "io_bytes_total", k, by[k]
	for (k in st) print "io_in_flight", k, st[k] - dn[k]
	for (k in c) print "io_d2c_seconds_count", k, c[k]
	for (k in e) print "errors", k, e[k]
	for (k in le) print "le_1.024ms", k, le[k]
}' >"$T/want"
sort "$T/got" >"$T/got.s"
sort "$T/want" >"$T/want.s"
if cmp -s "$T/got.s" "$T/want.s"; then
	ok "prometheus's counters at $E events = the simulation's ($(wc -l <"$T/want.s") series)"
else
	fail "prometheus's counters differ from the recorded simulation:
$(diff "$T/want.s" "$T/got.s" | head -20)"
fi
grep -q '^errors beta/write/EIO 7$' "$T/got.s" && grep -q '^errors alpha/read/ENOSPC 3$' "$T/got.s" &&
	ok "error bursts by errno" || fail "error bursts: $(grep errors "$T/got.s")"
# 4000 events/s are 2000 I/Os per second
awk -v r="$rate" 'BEGIN { exit !(r > 1500 && r < 2500) }' &&
	ok "rate(vxtrace_io_completed_total) = $rate/s (2000 configured)" ||
	fail "I/O rate $rate/s, configured 2000/s"

# the shipped scrape config is valid, and every query of the shipped Grafana
# dashboard runs on these metrics (those with data return series)
out=$(promtool check config "$VXT_TOP/contrib/prometheus/vxtrace.yml" 2>&1) &&
	ok "contrib/prometheus/vxtrace.yml is valid" || fail "promtool check config: $out"
python3 - "$VXT_TOP/contrib/grafana/vxtrace-dashboard.json" "http://127.0.0.1:$PP/api/v1/query" \
	"$at" <<'EOF' && ok "the dashboard's queries run and find data" || fail "dashboard queries"
import json, sys, urllib.parse, urllib.request
dash = json.load(open(sys.argv[1]))
bad = 0
for p in dash["panels"]:
    for t in p["targets"]:
        e = t["expr"].replace("$host", ".*").replace("$object", ".*")
        e = e.replace("$__rate_interval", "2s").replace("$__range", "1m")
        q = urllib.parse.urlencode({"query": e, "time": sys.argv[3]})
        with urllib.request.urlopen(sys.argv[2] + "?" + q, timeout=5) as r:
            doc = json.load(r)
        n = len(doc["data"]["result"]) if doc["status"] == "success" else -1
        # the simulator has neither speculations nor queue events (Q2C)
        want = "speculation" not in t["expr"] and "q2c" not in t["expr"]
        if n < 0 or (want and n == 0):
            print("panel %r: %s -> %s" % (p["title"], e, doc.get("error", "no series")))
            bad = 1
sys.exit(bad)
EOF

# vxrecord serves while it records: a scrape is a prefix of what it wrote
RP=$(free_port)
"$B/vxrecord" $SIM --realtime -d 2s -q --listen 127.0.0.1:$RP -o "$T/live.vxt" &
rec_pid=$!
i=0
until get "http://127.0.0.1:$RP/metrics" >"$T/rec.txt" 2>/dev/null &&
	[ "$(awk '$1 == "vxtrace_events_total" { print $2 }' "$T/rec.txt")" -gt 0 ]; do
	i=$((i + 1))
	[ $i -gt 40 ] && break
	sleep 0.05
done
wait $rec_pid || fail "vxrecord --listen failed"
seen=$(awk '$1 == "vxtrace_events_total" { print $2 }' "$T/rec.txt")
written=$("$B/vxreplay" "$T/live.vxt" --report events --format csv | awk 'END { print NR - 1 }')
[ "${seen:-0}" -gt 0 ] && [ "$seen" -le "$written" ] &&
	ok "vxrecord --listen: a scrape while recording saw $seen of the $written events" ||
	fail "vxrecord --listen: scrape saw '${seen:-nothing}', file has $written events"
out=$(promtool check metrics <"$T/rec.txt" 2>&1)
expect_eq "promtool check metrics (vxrecord)" "$out" ""

# bad addresses: one line; exit 1 for a port in use, 2 for an address at fault
expect_fail "port in use" 1 "127.0.0.1:$VP: port $VP is in use by another program (user" -- \
	"$B/vxtop" -b -c 1 -s sim --listen 127.0.0.1:$VP
expect_fail "vxrecord, port in use" 1 "127.0.0.1:$VP: port $VP is in use by another program (user" -- \
	"$B/vxrecord" -s sim -d 1s -o "$T/x.vxt" --listen 127.0.0.1:$VP
[ -e "$T/x.vxt" ] && fail "vxrecord created its file though --listen failed"
expect_fail "vxrecord, non-loopback address" 2 "needs --listen-remote" -- \
	"$B/vxrecord" -s sim -d 1s -o "$T/x.vxt" --listen 192.0.2.1:9100
expect_fail "non-loopback address" 2 "not a loopback address; serving other hosts needs --listen-remote" -- \
	"$B/vxtop" -b -c 1 -s sim --listen 192.0.2.1:9100
expect_fail "bad address" 2 "expected HOST:PORT" -- "$B/vxtop" -b -c 1 -s sim --listen 127.0.0.1:http
finish
