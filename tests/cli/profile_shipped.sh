#!/bin/sh
# profile_shipped.sh - what the shipped speculation profiles keep, against
# a reference computed here from every event of a simulated trace:
#  - per-process (a D program, one speculation per process): from a
#    process's first event its events are buffered; a failed completion
#    keeps the buffer, and the buffer is forgotten when the process has no
#    I/O in flight any more (each I/O counted once, from its queue or start
#    to its completion, I/Os with the same object, sector and size paired
#    first in, first out). The reference follows that definition over every
#    event, and every failed completion of the trace must be kept.
#  - slow-io (key request): every kept completion took 20 ms or more and
#    comes with its own start; every slow I/O is kept unless another I/O with
#    the same (object, sector, bytes) was in flight with it (they share the
#    request key, formats/profile.md).
. "$VXT_TOP/tests/lib.sh"

cd "$T" || exit 1
"$B/vxrecord" --source sim --seed 7 -c 200000 -o t.vxt -q || fail "record"
"$B/vxreplay" t.vxt --report events --format csv >all.csv || fail "all events"
# columns: 1 time_ns, 2 object, 3 phase, 6 sector, 7 bytes, 8 latency_ns, 9 error, 11 pid

# per-process
"$B/vxreplay" t.vxt --profile per-process --report events --format csv >pp.csv ||
	fail "per-process events"
awk -F, '
	FNR == 1 { print; next }
	{ row[FNR] = $0; p = $11; k = $2 "," $6 "," $7; ph = $3; r = ""
	  # the I/O of the event: a start takes the oldest queued one, a done
	  # or requeue the oldest started one (else the oldest)
	  n = split(q[k], ids, " ")
	  if (ph == "queue" || ph == "start") {
		if (ph == "start")
			for (i = 1; i <= n; i++) if (!st[ids[i]]) { r = ids[i]; st[r] = 1; break }
		if (r == "") { r = ++nreq; st[r] = (ph == "start"); q[k] = q[k] " " r }
	  } else if (ph == "done" || ph == "requeue") {
		for (i = 1; i <= n; i++) if (st[ids[i]]) { r = ids[i]; break }
		if (r == "" && n) r = ids[1]
		if (ph == "requeue" && r != "") st[r] = 0
	  }
	  if (!(p in open)) { open[p] = 1; buf[p] = "" }
	  if ((ph == "queue" || ph == "start") && !cnt[r]) { cnt[r] = 1; inflight[p]++ }
	  if (ph == "done" && r != "" && cnt[r]) inflight[p]--
	  buf[p] = buf[p] " " FNR
	  if (ph == "done" && $9 != 0) {
		m = split(buf[p], idx, " "); for (i = 1; i <= m; i++) keep[idx[i]] = 1
		delete open[p]
	  } else if (ph == "done" && inflight[p] == 0) {
		delete open[p]
	  }
	  if (ph == "done" && r != "") {
		s = ""; for (i = 1; i <= n; i++) if (ids[i] != r) s = s " " ids[i]
		q[k] = s; delete st[r]; delete cnt[r]
	  } }
	END { for (i = 2; i <= FNR; i++) if (i in keep) print row[i] }' all.csv >pp-ref.csv
kept=$(($(wc -l <pp.csv) - 1))
[ "$kept" -gt 0 ] && ok "per-process kept $kept events" || fail "per-process kept nothing"
if cmp -s pp-ref.csv pp.csv; then ok "per-process = the reference"; else
	fail "per-process differs from the reference: $(diff pp-ref.csv pp.csv | head -5)"; fi
want=$(awk -F, 'NR > 1 && $3 == "done" && $9 != 0' all.csv | wc -l)
got=$(awk -F, 'NR > 1 && $3 == "done" && $9 != 0' pp.csv | wc -l)
[ "$want" -gt 0 ] || fail "no failed completion in the trace"
expect_eq "per-process failed completions kept (of $want)" "$got" "$want"

# slow-io
"$B/vxreplay" t.vxt --profile slow-io --report events --format csv >slow.csv ||
	fail "slow-io events"
bad=$(awk -F, 'NR > 1 && $3 == "done" && $8 < 20000000' slow.csv | wc -l)
expect_eq "slow-io completions under 20 ms" "$bad" 0
# each kept completion has its own start kept (start time = done time - latency)
orphans=$(awk -F, '
	NR == FNR { if (FNR > 1 && $3 == "start") s[$1 "," $2 "," $6 "," $7] = 1; next }
	FNR > 1 && $3 == "done" && !(sprintf("%.0f", $1 - $8) "," $2 "," $6 "," $7 in s) { n++ }
	END { print n + 0 }' slow.csv slow.csv)
expect_eq "slow-io completions without their start" "$orphans" 0
# every slow I/O of the trace, unless it overlapped another with its key
awk -F, '
	NR == FNR { if (FNR > 1 && $3 == "start") { k = $2 "," $6 "," $7; st[k] = st[k] " " $1 } next }
	FNR > 1 && $3 == "done" && $8 >= 20000000 && $8 < $1 {
		k = $2 "," $6 "," $7; b = $1 - $8; n = split(st[k], t, " "); other = 0
		for (i = 1; i <= n; i++) if (t[i] != b && t[i] <= $1 && t[i] >= b - 1000000000) other = 1
		if (!other) print }' all.csv all.csv | sort >slow-want
awk -F, 'NR > 1 && $3 == "done"' slow.csv | sort >slow-got
missing=$(comm -23 slow-want slow-got | wc -l)
[ -s slow-want ] || fail "no slow I/O in the trace"
expect_eq "slow I/Os ($(wc -l <slow-want)) missing from slow-io" "$missing" 0
finish
