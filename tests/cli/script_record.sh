#!/bin/sh
# script_record.sh - vxrecord --script: a D-style script at record time keeps
# what the same script keeps at replay time over a full capture of the same
# events, and io-errors.d keeps every failed completion with its own start:
#  - seeds 3 and 7: `vxrecord --script io-errors.d -o kept.vxt` and
#    `vxreplay full.vxt --script io-errors.d --report events` give equal
#    events CSV, byte for byte, and both equal an awk reference computed
#    here from the full capture's events (a process's events since it was
#    last idle, kept when one of its I/Os fails);
#  - a script mixing direct trace() records with late commits (a slow
#    I/O's start committed at its completion, after flushes traced since):
#    the file is still in time order, each event once, equal to replay;
#  - DTrace's counters reach vxrecord's closing lines (failed speculations
#    of both kinds, division by zero), aggregations reach standard output,
#    the header names the script, and bad usage exits 2 on one line.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/io_errors.inc"

cd "$T" || exit 1
script=$VXT_TOP/formats/profiles/io-errors.d
# the events but rel_ns (the last column: it counts from each file's own
# first event, and a kept file starts at its first kept one)
csv() { "$B/vxreplay" "$1" --report events --format csv | sed 's/,[^,]*$//'; }
# columns: 1 time_ns, 2 object, 3 phase, 4 op, 6 sector, 7 bytes, 8 latency_ns, 9 error, 11 pid
for seed in 3 7; do
	"$B/vxrecord" --source sim --seed $seed -c 200000 -o full$seed.vxt -q || fail "record $seed"
	"$B/vxrecord" --source sim --seed $seed -c 200000 --script "$script" -o kept$seed.vxt \
		>rec$seed.out 2>rec$seed.err || fail "record --script $seed ($(cat rec$seed.err))"
	csv full$seed.vxt >all$seed.csv || fail "all events"
	csv kept$seed.vxt >kept$seed.csv || fail "kept events"
	"$B/vxreplay" full$seed.vxt --script "$script" --report events --format csv \
		2>replay$seed.err | sed 's/,[^,]*$//' >replay$seed.csv ||
		fail "replay --script ($(cat replay$seed.err))"
	if cmp -s replay$seed.csv kept$seed.csv; then
		ok "seed $seed: record time = replay time ($(($(wc -l <kept$seed.csv) - 1)) events)"
	else
		fail "seed $seed: record and replay differ: $(diff replay$seed.csv kept$seed.csv | head -5)"
	fi
	io_errors_ref all$seed.csv overlap >ref$seed.csv
	if cmp -s ref$seed.csv kept$seed.csv; then ok "seed $seed: record time = the awk reference"
	else fail "seed $seed: record time differs from the reference: $(diff ref$seed.csv kept$seed.csv | head -5)"; fi
	all_err=$(failed_completions all$seed.csv)
	kept_err=$(failed_completions kept$seed.csv)
	[ "$all_err" -gt 0 ] || fail "seed $seed: no failure in the capture: the test proves nothing"
	expect_eq "seed $seed: failed completions kept at record time" "$kept_err" "$all_err"
	orphans=$(orphan_failures kept$seed.csv)
	expect_eq "seed $seed: kept failures without their own start" "$orphans" 0
	kept=$(($(wc -l <kept$seed.csv) - 1))
	grep -q "^vxrecord: script io-errors kept $kept of 200000 events\$" rec$seed.err &&
		ok "seed $seed: the summary says $kept kept" ||
		fail "seed $seed: summary: $(cat rec$seed.err)"
	[ -s rec$seed.out ] && fail "seed $seed: io-errors.d printed on stdout: $(head -3 rec$seed.out)"
done
"$B/vxreplay" kept3.vxt --info >info.txt || fail "--info"
grep -q "^profile: *io-errors.d (speculation: user" info.txt && ok "the header names the script" ||
	fail "header: $(grep profile info.txt)"

# direct records between a speculation's first event and its commit
cat >mix.d <<'EOF'
io:::start { req->s = speculation(); }
io:::start /req->s/ { speculate(req->s); }
io:::done /req->s/ { speculate(req->s); }
io:::done /req->s && latency >= 20ms/ { commit(req->s); req->s = 0; }
io:::done /req->s/ { discard(req->s); req->s = 0; }
io:::done /op == "flush" || latency >= 20ms/ { trace(latency); }
EOF
"$B/vxrecord" --source sim --seed 7 -c 200000 --script ./mix.d -x nspec=4096 -o mix.vxt \
	>mix.out 2>mix.err || fail "record mix.d ($(cat mix.err))"
csv mix.vxt >mix.csv || fail "mix events"
"$B/vxreplay" full7.vxt --script ./mix.d -x nspec=4096 --report events --format csv \
	2>/dev/null | sed 's/,[^,]*$//' >mix-replay.csv || fail "replay mix.d"
late=$(awk -F, 'NR > 1 && $3 == "start" { if ($1 < last) n++ } NR > 1 { if ($1 > last) last = $1 }
	END { print n + 0 }' mix.csv)
expect_eq "mix.d: events out of time order in the file" "$late" 0
if cmp -s mix-replay.csv mix.csv; then ok "mix.d: record time = replay time ($(($(wc -l <mix.csv) - 1)) events)"
else fail "mix.d: record and replay differ: $(diff mix-replay.csv mix.csv | head -5)"; fi
ref=$(awk -F, 'NR > 1 && $3 == "done" && ($4 == "flush" || $8 >= 20000000)' all7.csv | wc -l)
got=$(awk -F, 'NR > 1 && $3 == "done"' mix.csv | wc -l)
expect_eq "mix.d: completions kept (awk)" "$got" "$ref"

# counters and aggregations
cat >agg.d <<'EOF'
io:::done { @ios[object] = count(); }
io:::error { self->zero = 0; this->x = 1 / self->zero; }
EOF
"$B/vxrecord" --source sim --seed 3 -c 200000 --script ./agg.d -o agg.vxt >agg.out 2>agg.err ||
	fail "record agg.d ($(cat agg.err))"
for o in $(awk -F, 'NR > 1 && $3 == "done" { print $2 }' all3.csv | sort -u); do
	want=$(awk -F, -v o="$o" 'NR > 1 && $3 == "done" && $2 == o' all3.csv | wc -l)
	got=$(awk -v o="$o" '$1 == o { print $2 }' agg.out)
	expect_eq "agg.d: @ios[$o] on stdout" "$got" "$want"
done
errs=$(awk -F, 'NR > 1 && $3 == "done" && $9 != 0' all3.csv | wc -l)
grep -q "^vxrecord: agg: $errs errors (division by zero)\$" agg.err &&
	ok "division by zero counted: $(grep 'division' agg.err | head -1)" ||
	fail "division by zero: $(cat agg.err)"
"$B/vxrecord" --source sim --seed 3 -c 200000 --script "$script" -x nspec=2 -o few.vxt \
	>/dev/null 2>few.err || fail "record nspec=2"
grep -q "^vxrecord: io-errors: [0-9]* failed speculations (no speculative buffer space available)\$" \
	few.err && grep -q "^vxrecord: io-errors: [0-9]* failed speculations (available buffer(s) still busy)\$" \
	few.err && ok "both kinds of failed speculation reported" || fail "nspec=2: $(cat few.err)"

expect_fail "--script and --profile" 2 "give one" -- \
	"$B/vxrecord" --source sim -c 10 --script "$script" --profile errors-in-context -o x.vxt
expect_fail "-x without --script" 2 "needs --script" -- \
	"$B/vxrecord" --source sim -c 10 -x nspec=4 -o x.vxt
expect_fail "unknown script" 2 "nosuch" -- \
	"$B/vxrecord" --source sim -c 10 --script nosuch -o x.vxt
printf 'io:::stort { trace(1); }\n' >bad.d
expect_fail "bad script" 2 "bad.d:1:1:" -- \
	"$B/vxrecord" --source sim -c 10 --script ./bad.d -o x.vxt
finish
