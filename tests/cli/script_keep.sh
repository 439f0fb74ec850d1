#!/bin/sh
# script_keep.sh - what D-style scripts keep, against references computed
# here with awk from every event of simulated traces with overlapping I/O
# (several I/Os of a process in flight at once, flushes of one device with
# the same object, sector and size in flight together):
#  - per process: the shipped io-errors.d (self->spec, self->inflight,
#    req->counted): a process's events since it last went idle are kept
#    when one of its I/Os fails; every failed completion is kept with its
#    own start.
#  - per request: req->spec opened at start, committed by a completion of
#    20 ms or more or a flush completed on CPU 0; I/Os with the same (object, sector, bytes) in flight
#    together are distinct, paired first in first out.
#  - per object: spec[object] in an associative array, committed by an
#    error, discarded after 50 events of the object.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/io_errors.inc"

cd "$T" || exit 1
script=$VXT_TOP/formats/profiles/io-errors.d
# columns: 1 time_ns, 2 object, 3 phase, 6 sector, 7 bytes, 8 latency_ns, 9 error, 11 pid
for seed in 3 7; do
	"$B/vxrecord" --source sim --seed $seed -c 200000 -o t$seed.vxt -q || fail "record $seed"
	"$B/vxreplay" t$seed.vxt --report events --format csv >all$seed.csv || fail "all events"

	# per process: io-errors.d
	"$B/vxreplay" t$seed.vxt --script "$script" --report events --format csv \
		>pp$seed.csv 2>pp$seed.err || fail "io-errors.d events ($(cat pp$seed.err))"
	[ -s pp$seed.err ] && fail "io-errors.d reported problems: $(cat pp$seed.err)"
	io_errors_ref all$seed.csv overlap >pp-ref$seed.csv
	[ "$(cat overlap)" -gt 0 ] && ok "seed $seed: $(cat overlap) failures with other I/O of the process in flight" ||
		fail "seed $seed: no failure overlaps other I/O of its process: the test proves nothing"
	if cmp -s pp-ref$seed.csv pp$seed.csv; then ok "seed $seed: io-errors.d = the reference ($(($(wc -l <pp$seed.csv) - 1)) events)"
	else fail "seed $seed: io-errors.d differs from the reference: $(diff pp-ref$seed.csv pp$seed.csv | head -5)"; fi
	all_err=$(failed_completions all$seed.csv)
	kept_err=$(failed_completions pp$seed.csv)
	expect_eq "seed $seed: failed completions kept by io-errors.d" "$kept_err" "$all_err"
	orphans=$(orphan_failures pp$seed.csv)
	expect_eq "seed $seed: kept failures without their own start" "$orphans" 0
done

# per request, on seed 7
cat >slow.d <<'EOF'
io:::start { req->spec = speculation(); speculate(req->spec); }
io:::done /req->spec/ { speculate(req->spec); }
io:::done /req->spec && (latency >= 20ms || (op == "flush" && cpu == 0))/ { commit(req->spec); }
io:::done /req->spec/ { discard(req->spec); }
EOF
"$B/vxreplay" t7.vxt --script slow.d -x nspec=4096 --report events --format csv >slow.csv \
	2>slow.err || fail "slow.d events ($(cat slow.err))"
[ -s slow.err ] && fail "slow.d reported problems: $(cat slow.err)"
awk -F, '
	FNR == 1 { print; next }
	{ row[FNR] = $0; k = $2 "," $6 "," $7
	  if ($3 == "start") { q[k, t[k]++] = FNR }
	  else if ($3 == "done" && h[k] + 0 < t[k]) { h[k] += 0
		s = q[k, h[k]]; delete q[k, h[k]]; h[k]++
		if ($8 >= 20000000 || ($4 == "flush" && $13 == 0)) {
			keep[s] = 1; keep[FNR] = 1; if (t[k] - h[k] > 0) shared++
		}
	  } }
	END { for (i = 2; i <= FNR; i++) if (i in keep) print row[i]
	      print shared + 0 >"shared" }' all7.csv >slow-ref.csv
[ "$(cat shared)" -gt 0 ] && ok "per request: $(cat shared) kept I/Os had another with their key in flight" ||
	fail "per request: no kept I/O overlapped one with its key: the test proves nothing"
if cmp -s slow-ref.csv slow.csv; then ok "per request = the reference ($(($(wc -l <slow.csv) - 1)) events)"
else fail "per request differs from the reference: $(diff slow-ref.csv slow.csv | head -5)"; fi

# per object, on seed 3
cat >obj.d <<'EOF'
io:::start, io:::done /!sp[object]/ { sp[object] = speculation(); n[object] = 0; }
io:::start, io:::done { n[object]++; }
io:::start, io:::done /sp[object]/ { speculate(sp[object]); }
io:::done /sp[object] && error/ { commit(sp[object]); sp[object] = 0; }
io:::start, io:::done /sp[object] && n[object] >= 50/ { discard(sp[object]); sp[object] = 0; }
EOF
"$B/vxreplay" t3.vxt --script obj.d -x nspec=512 --report events --format csv >obj.csv \
	2>obj.err || fail "obj.d events ($(cat obj.err))"
[ -s obj.err ] && fail "obj.d reported problems: $(cat obj.err)"
# obj.d by brute force over all3.csv's rows, those from $1 to $2 ns after
# the first (all without them): the rows it keeps (or, with $3 = counts,
# the speculations it opens and commits)
obj_ref() {
	awk -F, -v lo="${1:-}" -v hi="${2:-}" -v what="${3:-rows}" '
	FNR == 1 { if (what == "rows") print; next }
	FNR == 2 { t0 = $1 }
	lo != "" && ($1 < t0 + lo || $1 > t0 + hi) { next }
	{ row[FNR] = $0; o = $2
	  if (!(o in open)) { open[o] = 1; seg[o] = ""; n[o] = 0; opened++ }
	  n[o]++
	  seg[o] = seg[o] " " FNR
	  if ($3 == "done" && $9 != 0) {
		m = split(seg[o], idx, " "); for (i = 1; i <= m; i++) keep[idx[i]] = 1
		delete open[o]
		committed++
	  } else if (n[o] >= 50) delete open[o]
	}
	END {
		if (what != "rows") { print opened + 0, committed + 0; exit }
		for (i = 2; i <= FNR; i++) if (i in keep) print row[i]
	}' all3.csv
}
obj_ref >obj-ref.csv
if cmp -s obj-ref.csv obj.csv; then ok "per object = the reference ($(($(wc -l <obj.csv) - 1)) events)"
else fail "per object differs from the reference: $(diff obj-ref.csv obj.csv | head -5)"; fi

# the same within --from/--to: the script sees only the events of the window
# (chunks wholly inside it, and the two it cuts), the reference the same
# reading of the window's rows
"$B/vxreplay" t3.vxt --script obj.d -x nspec=512 --from 0.6 --to 2.3 --report events \
	--format csv >objw.csv 2>objw.err || fail "obj.d in a window ($(cat objw.err))"
obj_ref 600000000 2300000000 >objw-ref.csv
if [ "$(wc -l <objw-ref.csv)" -gt 1 ] && cmp -s objw-ref.csv objw.csv; then
	ok "per object in a window = the reference ($(($(wc -l <objw.csv) - 1)) events)"
else fail "per object in a window differs from the reference: $(diff objw-ref.csv objw.csv | head -5)"; fi
# the listing shows the window's events only, whatever the script saw: its
# speculations opened and committed say what it saw (errors at 2.5 s, past
# the window, commit nothing)
"$B/vxreplay" t3.vxt --script obj.d -x nspec=512 --from 0.6 --to 2.3 --report summary \
	--format json >objw.json 2>objw.err || fail "obj.d summary in a window ($(cat objw.err))"
expect_eq "speculations opened and committed by obj.d in the window" \
	"$(json objw.json '"%d %d" % (j["speculation"]["opened"], j["speculation"]["committed"])')" \
	"$(obj_ref 600000000 2300000000 counts)"

# too few buffers: DTrace's two kinds of failed speculation, in its words
"$B/vxreplay" t3.vxt --script obj.d -x nspec=4 >/dev/null 2>few.err
grep -q "^vxreplay: obj: [0-9]* failed speculations (available buffer(s) still busy)\$" few.err &&
	ok "busy buffers counted: $(grep busy few.err)" || fail "no busy failure: $(cat few.err)"
"$B/vxreplay" t3.vxt --script obj.d >/dev/null 2>one.err
grep -q "nspec is DTrace's default, 1" one.err && ok "DTrace's default nspec named" ||
	fail "default nspec not named: $(cat one.err)"
"$B/vxreplay" t3.vxt --script obj.d -x nspec=4 --report summary --format json >few.json ||
	fail "summary json"
expect_eq "json failed_busy > 0" "$(json few.json 'j["speculation"]["failed_busy"] > 0')" True
finish
