#!/bin/sh
# profile_errors_in_context.sh - on a simulated trace, errors-in-context keeps
# every error, every event within the window before / after an error on the
# same object, and nothing else; vxrecord --profile writes the same events.
. "$VXT_TOP/tests/lib.sh"

# the window of formats/profiles/errors-in-context.yaml, in ns
BEFORE=200000000
AFTER=50000000

cd "$T" || exit 1
"$B/vxrecord" --source sim --seed 7 -c 200000 -o t.vxt -q || fail "record"
"$B/vxreplay" t.vxt --report events --format csv >all.csv || fail "all events"
"$B/vxreplay" t.vxt --profile errors-in-context --report events --format csv >kept.csv ||
	fail "kept events"

# the reference, from every event: fields 1 time_ns, 2 object, 9 error
awk -F, -v before=$BEFORE -v after=$AFTER '
	NR == FNR { if (FNR > 1 && $9 != 0) { n++; et[n] = $1; eo[n] = $2 } next }
	FNR == 1 { print; next }
	{ for (i = 1; i <= n; i++)
		if (eo[i] == $2 && $1 >= et[i] - before && $1 <= et[i] + after) { print; next } }
	' all.csv all.csv >reference.csv

errors_all=$(awk -F, 'NR > 1 && $9 != 0' all.csv | wc -l)
errors_kept=$(awk -F, 'NR > 1 && $9 != 0' kept.csv | wc -l)
[ "$errors_all" -gt 0 ] && ok "the trace has $errors_all errors" || fail "no errors in the trace"
expect_eq "every error is kept" "$errors_kept" "$errors_all"
# every kept event lies in a window, per the reference, and the reference is all kept
outside=$(awk -F, -v before=$BEFORE -v after=$AFTER '
	NR == FNR { if (FNR > 1 && $9 != 0) { n++; et[n] = $1; eo[n] = $2 } next }
	FNR > 1 { for (i = 1; i <= n; i++)
		if (eo[i] == $2 && $1 >= et[i] - before && $1 <= et[i] + after) next; bad++ }
	END { print bad + 0 }' all.csv kept.csv)
expect_eq "kept events outside every window" "$outside" 0
if cmp -s reference.csv kept.csv; then
	ok "kept = reference ($(($(wc -l <kept.csv) - 1)) of $(($(wc -l <all.csv) - 1)) events)"
else
	fail "kept differs from the reference: $(diff reference.csv kept.csv | head -5)"
fi
[ "$(wc -l <kept.csv)" -lt "$(wc -l <all.csv)" ] && ok "something was left out" ||
	fail "nothing was left out"

# the speculation section of the summary
"$B/vxreplay" t.vxt --profile errors-in-context --report summary --format json >sum.json ||
	fail "summary json"
expect_eq "summary errors" "$(json sum.json 'j["errors"]')" "$errors_all"
expect_eq "summary kept" "$(json sum.json 'j["kept"]')" "$(($(wc -l <kept.csv) - 1))"
expect_eq "committed >= 1, failed, drops" \
	"$(json sum.json '"%s %d %d" % (j["speculation"]["committed"] >= 1, j["speculation"]["failed"], j["speculation"]["drops"])')" \
	"True 0 0"
"$B/vxreplay" t.vxt --profile errors-in-context --report summary >sum.txt || fail "summary text"
grep -q '^speculation: [0-9]* opened, [0-9]* committed' sum.txt && ok "text summary has speculation" ||
	fail "text summary: $(cat sum.txt)"

# record time: the same engine, so the same events; the header names the profile
"$B/vxrecord" --source sim --seed 7 -c 200000 -o r.vxt --profile errors-in-context 2>rec.err ||
	fail "record with the profile"
grep -q 'profile errors-in-context kept' rec.err && ok "vxrecord summary: $(sed -n 2p rec.err)" ||
	fail "vxrecord summary: $(cat rec.err)"
grep -q 'speculation: .* committed, .* discarded' rec.err && ok "vxrecord speculation line" ||
	fail "vxrecord speculation line: $(cat rec.err)"
"$B/vxreplay" r.vxt --report events --format csv >rec.csv || fail "read the recorded file"
# the events but rel_ns (the last column: from each file's own first event)
sed 's/,[^,]*$//' rec.csv >rec.ev
sed 's/,[^,]*$//' kept.csv >kept.ev
if cmp -s rec.ev kept.ev; then ok "record-time file = replay-time view"; else
	fail "record-time file differs: $(diff rec.ev kept.ev | head -5)"; fi
"$B/vxreplay" r.vxt --info >info.txt
grep -q '^profile: *errors-in-context (speculation: user space)$' info.txt && ok "header names the profile" ||
	fail "header: $(grep profile info.txt)"
# the progress line on a terminal shows what the speculation kept
if command -v script >/dev/null; then
	TERM=xterm-256color script -qec "timeout --foreground -k 3 -s TERM 1.5 $B/vxrecord \
		--source sim --realtime -d 1.2s -f -o $T/p.vxt --profile errors-in-context" \
		/dev/null </dev/null >pty 2>&1
	grep -aq 'kept [0-9]* of [0-9]*, committed [0-9]*, discarded [0-9]*' pty &&
		ok "progress line: kept, committed, discarded" ||
		fail "progress line: $(tr '\r' '\n' <pty | grep -a 'ev/s' | tail -n 1)"
fi
# too few buffers: the reports say so in DTrace's words, with the counts of
# the JSON summary, at replay and at record time
sed 's/nspec: 1024/nspec: 1/; s/specsize: 4M/specsize: 480/; s/^name: .*/name: tiny/' \
	"$VXT_TOP/formats/profiles/errors-in-context.yaml" >tiny.yaml
"$B/vxreplay" t.vxt --profile ./tiny.yaml --report summary --format json >tiny.json ||
	fail "tiny summary json"
nf=$(json tiny.json 'j["speculation"]["failed"]')
nd=$(json tiny.json 'j["speculation"]["drops"]')
[ "$nf" -gt 0 ] && [ "$nd" -gt 0 ] && ok "tiny buffers: $nf failed, $nd drops" ||
	fail "tiny buffers: failed '$nf', drops '$nd'"
"$B/vxreplay" t.vxt --profile ./tiny.yaml --report summary >tiny.txt || fail "tiny summary"
grep -q "^ *$nf failed speculations (no speculative buffer available)\$" tiny.txt &&
	grep -q "^ *$nd speculative drops\$" tiny.txt && ok "vxreplay summary in DTrace's words" ||
	fail "vxreplay summary: $(cat tiny.txt)"
"$B/vxrecord" --source sim --seed 7 -c 200000 -o tiny.vxt --profile ./tiny.yaml 2>tiny.err ||
	fail "record with tiny buffers"
grep -q "^vxrecord: $nf failed speculations (no speculative buffer available)\$" tiny.err &&
	grep -q "^vxrecord: $nd speculative drops\$" tiny.err && ok "vxrecord summary in DTrace's words" ||
	fail "vxrecord summary: $(cat tiny.err)"
finish
