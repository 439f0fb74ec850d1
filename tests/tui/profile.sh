#!/bin/sh
# profile.sh - --profile and p apply a profile's filter, speculation,
# heatmap metric and columns together; (none) drops it; a bad or unknown
# profile is refused with its error and nothing changes.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
"$B/vxreplay" "$T/s.vxt" --report events --format csv >"$T/ev.csv"
writes=$(awk -F, 'NR > 1 && ($4 == "write" || $4 == "write-zeroes" || $4 == "flush")' "$T/ev.csv" | wc -l)

start 120 40 "$B/vxreplay" "$T/s.vxt" --profile writes-only
wait_for 'profile writes-only'
screen | grep -q 'profiles are not available' && { echo "no profiles in this build"; exit 77; }
wait_for "events $writes/300000" 20
screen | grep -q 'filter op in (write, write-zeroes, flush)' || fail "the profile's filter"
screen | grep -q '^bytes ' || fail "the profile's heatmap metric (bytes)"
screen | grep -q 'TIME .*OBJECT .*PHASE .*OP .*FLAGS' || fail "the profile's columns"
screen | sed -n '/TIME .*OBJECT/,$p' | sed '1d;$d' | grep -v '^ *$' | grep -Eq ' read ' &&
	fail "a read is listed"
ok "--profile writes-only: $writes events, its metric and columns"

keys p
wait_for '^ Profiles'
for n in default errors-in-context writes-only; do
	screen | grep -q "^$n" || fail "profile $n not listed"
done
screen | grep -q '^writes-only  (applied)' || fail "the applied profile is not marked"
# each profile's description: on its row, on one line (from the YAML, folded)
for n in default writes-only slow-io; do
	d=$(awk '/^description:/ { s = $0; sub(/^description: *>? */, "", s); on = 1; next }
		on && /^  / { sub(/^ +/, ""); s = s " " $0; next } on { exit }
		END { sub(/^ /, "", s); print s }' "$VXT_TOP/formats/profiles/$n.yaml" | cut -c1-40)
	[ -n "$d" ] || fail "no description in $n.yaml"
	screen | grep -F "$n" | grep -qF "$d" || fail "p: $n's description '$d' is not shown"
done
ok "p: each profile's description beside its name"
# errors-in-context's row below (none), however many profiles sort before it
downs=$(screen | awk '/^\(none\)/ { on = 1; n = 0; next }
	on && /^errors-in-context / { print n + 1; exit } on && /^[a-z]/ { n++ }')
[ -n "$downs" ] || fail "errors-in-context not in the picker"
keys Home
for i in $(seq "$downs"); do keys Down; done
keys Enter
wait_for 'profile errors-in-context'
wait_for 'spec on errors-in-context: [0-9]+ committed' 30
screen | grep -q 'filter none' || fail "the previous profile's filter stayed"
screen | grep -q 'SPEC' || fail "no speculation column"
ok "p: errors-in-context shows its speculation at once"

keys p
wait_for '^ Profiles'
keys Home Enter
wait_for 'profile none'
wait_for 'events 300000/300000'
screen | grep -q 'spec off' || fail "speculation stays after (none)"
ok "p: (none) drops the profile"

cat >"$T/bad.yaml" <<'Y'
name: bad
filter: op == wrte
Y
keys q
wait_for '^\[exit 0\]'

start 120 40 "$B/vxreplay" "$T/s.vxt" --profile "$T/bad.yaml"
wait_for '^\[exit 1\]'
screen | grep -q "bad.yaml:2:[0-9]*: unknown op 'wrte'" || fail "bad profile: no file:line:col error"
ok "--profile with a bad filter is refused with file:line:col"
start 120 40 "$B/vxreplay" "$T/s.vxt" --profile nosuch
wait_for '^\[exit 1\]'
screen | grep -q 'nosuch' || fail "unknown profile: no message"
ok "--profile nosuch is refused"
