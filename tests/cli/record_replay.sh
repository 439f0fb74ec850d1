#!/bin/sh
# record_replay.sh - vxrecord on the simulator and vxreplay's reports agree
# with an independent count of the events, and recording is deterministic.
. "$VXT_TOP/tests/lib.sh"

mkdir "$T/a" "$T/b"
(cd "$T/a" && "$B/vxrecord" --source sim --seed 42 -d 6s -o t.vxt -q) || fail "record a"
(cd "$T/b" && "$B/vxrecord" --source sim --seed 42 -d 6s -o t.vxt -q) || fail "record b"
if cmp -s "$T/a/t.vxt" "$T/b/t.vxt"; then ok "same seed, identical file"; else fail "same seed, files differ"; fi
(cd "$T/b" && "$B/vxrecord" --source sim --seed 43 -d 6s -o u.vxt -q)
if cmp -s "$T/a/t.vxt" "$T/b/u.vxt"; then fail "other seed, same file"; else ok "other seed, other file"; fi
f=$T/a/t.vxt
[ "$(stat -c %a "$f")" = 600 ] && ok "mode 0600" || fail "mode $(stat -c %a "$f")"
zstd -q -d -c "$f" >/dev/null && ok "zstd -d reads the file" || fail "zstd -d fails on the file"

"$B/vxreplay" "$f" --report summary --format json >"$T/sum.json" || fail "summary json"
"$B/vxreplay" "$f" --report events --format csv >"$T/ev.csv" || fail "events csv"
head -n 1 "$T/ev.csv" | grep -q '^time_ns,object,phase,op,flags,sector,bytes,latency_ns,error,errname,pid,comm,cpu,host,rel_ns$' &&
	ok "events csv header" || fail "events csv header: $(head -n 1 "$T/ev.csv")"
# the independent count, from the CSV rows
awk -F, 'NR > 1 { ev++; if ($3 == "done") { ios++; if ($4 == "read") r++; if ($4 == "write") w++;
	if ($9 != 0) err++; else b += $7 } if ($3 == "lost") lost += $6 }
	END { printf "%d %d %d %d %.0f %d %d\n", ev, ios, r, w, b, err, lost }' "$T/ev.csv" >"$T/count"
expect_eq "summary vs csv rows (events ios reads writes bytes errors lost)" \
	"$(json "$T/sum.json" '"%d %d %d %d %d %d %d" % (j["events"], j["ios"], j["reads"], j["writes"], j["bytes"], j["errors"], j["lost"])')" \
	"$(cat "$T/count")"
# the built-in workload schedules 30 + 10 + 5 errors within 6 s
expect_eq "scheduled errors" "$(json "$T/sum.json" 'j["errors"]')" 45
expect_eq "objects" "$(json "$T/sum.json" 'j["objects"]')" 4
for k in events ios reads writes bytes errors lost start_ns end_ns objects; do
	json "$T/sum.json" "j['$k']" >/dev/null 2>&1 || fail "summary lacks $k"
done

# a count limit is exact
"$B/vxrecord" --source sim -c 12345 -o "$T/c.vxt" -q
expect_eq "events with -c 12345" "$("$B/vxreplay" "$T/c.vxt" -r summary -F json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')" 12345

# errors report: one row per failed completion, with errno names
"$B/vxreplay" "$f" --report errors --format csv | tail -n +2 >"$T/errs.csv"
expect_eq "error rows" "$(wc -l <"$T/errs.csv")" 45
expect_eq "EIO rows on sdb" "$(grep -c ',sdb,done,.*,5,EIO,' "$T/errs.csv")" 30
expect_eq "ETIMEDOUT rows on dm-0" "$(grep -c ',dm-0,done,.*,ETIMEDOUT,' "$T/errs.csv")" 10

# --from/--to/--objects narrow the scope
"$B/vxreplay" "$f" --report events --format csv --from 1 --to +1s --objects sdb | tail -n +2 >"$T/w.csv"
start=$(json "$T/sum.json" 'j["start_ns"]')
awk -F, -v s="$start" 'NR > 1 && $1 >= s + 1000000000 && $1 <= s + 2000000000 && $2 == "sdb"' \
	"$T/ev.csv" >"$T/w2.csv"
expect_eq "scoped events" "$(wc -l <"$T/w.csv")" "$(wc -l <"$T/w2.csv")"
cmp -s "$T/w.csv" "$T/w2.csv" && ok "scoped rows match" || fail "scoped rows differ"

# objects report names every simulated object
"$B/vxreplay" "$f" --report objects --format json >"$T/obj.json"
expect_eq "objects report" "$(json "$T/obj.json" '",".join(o["object"] for o in j)')" "sda,sdb,nvme0n1,dm-0"
expect_eq "objects errors" "$(json "$T/obj.json" 'sum(o["errors"] for o in j)')" 45

"$B/vxreplay" --info "$f" >"$T/info" && grep -q '^index: *footer' "$T/info" && ok "--info" || fail "--info"
"$B/vxreplay" --verify "$f" >/dev/null && ok "--verify on a sound file" || fail "--verify"
finish
