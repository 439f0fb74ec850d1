#!/bin/sh
# spec_script.sh - p picks a D script (the shipped io-errors.d, or a file by
# its path): the speculation view lists exactly what the script keeps, as
# vxreplay --script keeps it and as an awk reference over the events CSV
# computes it (io-errors.d by hand, on overlapping I/O), with the engine's
# counters in the header; a new filter reruns it over the filtered events;
# a bad script is refused with file:line:col and nothing changes.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 200000 3
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv"

# io-errors.d by hand: per process a buffer from its first event; its I/Os
# in flight counted once per I/O (object, sector, size; oldest first); a
# failed completion keeps the buffer, no I/O in flight drops it
ref() {
	awk -F, -v obj="$1" 'NR == 1 { t0 = 0; next }
	obj != "" && $2 != obj { next }
	$3 == "start" || $3 == "done" || $3 == "queue" || $3 == "requeue" {
		p = $11; key = $2 SUBSEP $6 SUBSEP $7
		if (!(p in buf)) buf[p] = ""
		if ($3 == "queue") { cnt[key]++; infl[p]++; queued[key]++ }
		else if ($3 == "start") { if (queued[key] > 0) queued[key]--; else { cnt[key]++; infl[p]++ } }
		else if ($3 == "done" && cnt[key] > 0) { cnt[key]--; infl[p]-- }
		buf[p] = buf[p] NR " " $0 "\n"
		if ($3 == "done" && $9 != 0) { printf "%s", buf[p]; delete buf[p] }
		else if ($3 == "done" && infl[p] == 0) delete buf[p]
	}' "$T/ev.csv" | sort -n | cut -d' ' -f2-
}
ref >"$T/ref"
kept=$(wc -l <"$T/ref")
errs=$(awk -F, 'NR > 1 && $3 == "done" && $9 != 0' "$T/ev.csv" | wc -l)
[ "$kept" -gt "$errs" ] || fail "reference keeps $kept events for $errs failures"
awk -F, '$3 == "done" && $9 != 0' "$T/ref" | wc -l | grep -qx "$errs" ||
	fail "the reference does not keep every failure"
"$B/vxreplay" "$T/s.vxt" --script io-errors --report events --format csv | sed 1d >"$T/batch"
cmp -s "$T/ref" "$T/batch" || fail "vxreplay --script io-errors differs from the reference"
"$B/vxreplay" "$T/s.vxt" --script io-errors --report summary >"$T/sum"
committed=$(sed -n 's/^speculation:.* \([0-9]*\) committed.*/\1/p' "$T/sum")
[ "$committed" = "$errs" ] || fail "batch: $committed committed for $errs failures"

# the reference's rows as the list shows them: relative time, object, phase, sector
t0=$(awk -F, 'NR == 2 { print $1; exit }' "$T/ev.csv")
awk -F, -v t0="$t0" '{ d = $1 - t0; printf "%d.%06d %s %s %s\n", int(d / 1e9), int((d % 1e9) / 1e3),
	$2, $3, $6 }' "$T/ref" >"$T/refrows"
listed() {
	screen | sed -n '/SPEC .*TIME .*OBJECT/,$p' | sed '1d;$d' |
		awk '$2 ~ /^[0-9]+\.[0-9]+$/ { print $2, $3, $4, $6 }'
}

start 160 45 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 200000/200000'
keys p
wait_for '^ Profiles'
screen | grep -q '^io-errors\.d .*D script: keep only what led up to a failed I/O' ||
	fail "io-errors.d is not listed with its description"
downs=$(screen | awk '/^\(none\)/ { on = 1; n = 0; next } on && /^io-errors\.d / { print n + 1; exit }
	on && /^[a-z(]/ { n++ }')
keys Home
for i in $(seq "$downs"); do keys Down; done
keys Enter
wait_for "spec on io-errors\.d: $kept of 200000 events kept; $committed committed" 30
wait_idle
screen | grep -q "events $kept/200000" || fail "the view does not show the $kept kept events"
screen | grep -q "profile io-errors\.d" || fail "the header does not name the script"
screen | grep -q "nspec=4096" || fail "the header does not give nspec"
listed >"$T/l1"
[ -s "$T/l1" ] || fail "no rows listed"
head -n "$(wc -l <"$T/l1")" "$T/refrows" | cmp -s - "$T/l1" ||
	{ diff "$T/l1" "$T/refrows" | head; fail "the first rows differ from the reference"; }
keys End
sleep 0.5
listed >"$T/l2"
tail -n "$(wc -l <"$T/l2")" "$T/refrows" | cmp -s - "$T/l2" ||
	{ diff "$T/l2" "$T/refrows" | head; fail "the last rows differ from the reference"; }
ok "p io-errors.d: the $kept events the reference and vxreplay --script keep"

# a filter: the script runs over what it shows
keys /
wait_for 'Filter:'
text "object == sdb"
keys Enter
ref sdb >"$T/ref_sdb"
ks=$(wc -l <"$T/ref_sdb")
"$B/vxreplay" "$T/s.vxt" --script io-errors --filter 'object == sdb' --report events --format csv |
	sed 1d | cmp -s - "$T/ref_sdb" || fail "batch with a filter differs from the reference"
considered=$(awk -F, 'NR > 1 && $2 == "sdb"' "$T/ev.csv" | wc -l)
wait_for "spec on io-errors\.d: $ks of $considered events kept" 30
ok "a filter reruns the script over the filtered events ($ks of $considered)"

# a script by its path; a bad one is refused with its position
cat >"$T/bad.d" <<'EOF'
io:::done
/nosuchfield > 3/
{
	trace(latency);
}
EOF
cat >"$T/slow.d" <<'EOF'
/* slow.d - completions of 5 ms and more */
io:::done
/latency >= 5000000/
{
	trace(latency);
}
EOF
keys p
wait_for '^ Profiles'
keys End Enter
wait_for 'Script or profile file:'
text "$T/bad.d"
keys Enter
wait_for "bad\.d:2:2: .*nosuchfield"
screen | grep -q "spec on io-errors\.d: $ks of" || fail "a bad script changed the view"
keys C-u
text "$T/slow.d"
keys Enter
slow=$(awk -F, 'NR > 1 && $3 == "done" && $8 >= 5000000' "$T/ev.csv" | wc -l)
wait_for "spec on slow\.d: $slow of 200000 events kept" 30
screen | grep -q "filter none" || fail "the script kept the previous filter"
ok "a script by its path ($slow slow completions); a bad one refused at 2:2"

keys q
wait_for '^\[exit 0\]'
