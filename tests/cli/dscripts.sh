#!/bin/sh
# dscripts.sh - real D scripts for block I/O (../shared/data/dscripts/, kept
# byte for byte as their authors wrote them) run unmodified with
# `vxreplay FILE --script PATH` and print what dtrace prints, checked against
# references computed here with awk from the same trace's events (its CSV
# export), not through the script engine:
#  - illumos_iotime.d: one line per completion whose start was seen, with its
#    device, "<none>" for the file, R or W and the script's own milliseconds;
#  - dtt_iosnoop.d: its header and one row per such completion (uid 0, the
#    start's pid and command, R/W, block, size);
#  - illumos_whoio.d: the bytes issued per device, command and pid, after its
#    header (printa's text comes after the header printf of the same clause);
#  - dtt_bitesize.d: per pid and command a power-of-two histogram of sizes,
#    each under its "%8d  %S" line;
#  - freebsd_disklatency: at its tick-10s, per device and unit the lquantize
#    of latencies in us, their max, avg and stddev (dt_stddev's integers);
#  - dtt_iotop.d: every 5 s, its status line (the file's wall clock, KB
#    started) and the bytes completed per pid, command, device, direction;
#  - each says once, on one line, what it reads as a stand-in (uid, psargs);
#    vxrecord --script and vxtop --script print what vxreplay prints, and the
#    three give a script the words after -- as $1 ....
# Skips (77) when ../shared/data/dscripts is not there.
. "$VXT_TOP/tests/lib.sh"

D=$VXT_TOP/../shared/data/dscripts
if [ ! -f "$D/illumos_iotime.d" ]; then
	echo "skip: $D (the real D scripts) is not there"
	exit 77
fi
cd "$T" || exit 1
"$B/vxrecord" --source sim --seed 5 --rate 3000 -d 12s -o t.vxt -q 2>rec.err ||
	{ fail "vxrecord: $(cat rec.err)"; finish; }
"$B/vxreplay" t.vxt --report events --format csv >ev.csv || fail "events csv"
[ "$(grep -c ',done,' ev.csv)" -gt 10000 ] || fail "too few completions to prove anything"

# run NAME: the script's stdout in NAME.out, its stderr in NAME.err
run() {
	"$B/vxreplay" t.vxt --script "$D/$1" >"$1.out" 2>"$1.err" ||
		fail "$1 does not run: $(head -c 300 "$1.err")"
}
# same WHAT GOT WANT: equal files
same() {
	if cmp -s "$2" "$3"; then
		ok "$1 ($(wc -l <"$3") lines)"
	else
		fail "$1: differs from the reference"
		diff "$2" "$3" | head -10
	fi
}

# ---- illumos_iotime.d
run illumos_iotime.d
awk -F, 'BEGIN { printf("%10s %58s %2s %7s\n", "DEVICE", "FILE", "RW", "MS") }
	NR > 1 && $3 == "start" { s[$2, $6] = $1 }
	NR > 1 && $3 == "done" && s[$2, $6] {
		e = $1 - s[$2, $6]
		printf("%10s %58s %2s %3d.%03d\n", $2, "<none>", $4 == "read" ? "R" : "W",
		       int(e / 10000000), int(e / 1000) % 1000)
		s[$2, $6] = 0 }' ev.csv >iotime.ref
same "illumos_iotime.d: a line per completion" illumos_iotime.d.out iotime.ref
expect_eq "illumos_iotime.d: its warning" "$(cat illumos_iotime.d.err)" \
	"vxreplay: $D/illumos_iotime.d: fileinfo_t reads as for an I/O with no file"

# ---- dtt_iosnoop.d
run dtt_iosnoop.d
awk -F, 'BEGIN { printf("%5s %5s %1s %8s %6s %10s %s\n", "UID", "PID", "D", "BLOCK",
			"SIZE", "COMM", "PATHNAME") }
	NR > 1 && $3 == "start" { k = $2 SUBSEP $6; s[k] = $1; p[k] = $11; c[k] = $12 }
	NR > 1 && $3 == "done" && s[$2, $6] {
		k = $2 SUBSEP $6
		printf("%5d %5d %1s %8d %6d %10s %s\n", 0, p[k], $4 == "read" ? "R" : "W", $6,
		       $7, c[k], "<none>")
		s[k] = 0 }' ev.csv >iosnoop.ref
same "dtt_iosnoop.d: a row per completion" dtt_iosnoop.d.out iosnoop.ref
[ "$(wc -l <dtt_iosnoop.d.err)" -eq 1 ] && grep -q "uid reads 0" dtt_iosnoop.d.err &&
	grep -q "pr_psargs reads the command name" dtt_iosnoop.d.err &&
	grep -q "option switchrate does nothing" dtt_iosnoop.d.err &&
	ok "dtt_iosnoop.d: one warning naming its stand-ins" ||
	fail "dtt_iosnoop.d's warning: $(cat dtt_iosnoop.d.err)"

# ---- illumos_whoio.d
run illumos_whoio.d
head -1 illumos_whoio.d.out >whoio.head
expect_eq "illumos_whoio.d: the header first" "$(cat whoio.head)" \
	"$(printf '%10s %20s %10s %15s' DEVICE APP PID BYTES)"
awk -F, 'NR > 1 && $3 == "start" { b[$2, $12, $11] += $7 }
	END { for (k in b) { split(k, p, SUBSEP)
		printf("%10s %20s %10d %15d\n", p[1], p[2], p[3], b[k]) } }' ev.csv |
	LC_ALL=C sort >whoio.ref
tail -n +2 illumos_whoio.d.out | LC_ALL=C sort >whoio.got
same "illumos_whoio.d: bytes per device, command and pid" whoio.got whoio.ref
tail -n +2 illumos_whoio.d.out | awk '$4 < last { bad = 1 } { last = $4 } END { exit bad }' &&
	ok "illumos_whoio.d: rows by bytes, smallest first" ||
	fail "illumos_whoio.d: rows not sorted by value"

# entries FILE: each printa entry (a line matching $2, and the lines up to the
# next) as one line, sorted, so the order of the keys does not matter
entries() {
	awk -v re="$2" '$0 ~ re { if (e != "") print e; e = $0; next }
		e != "" { e = e "|" $0 } END { if (e != "") print e }' "$1" | LC_ALL=C sort
}
# dist: awk functions printing a distribution as dt_print_quantize and
# dt_print_lquantize do (buckets b[lo..hi] of total t, labels l[])
dist='function row(label, n, t) {
		printf("%16s |", label); d = t ? int(n * 40 / t + 0.5) : 0
		for (i = 0; i < 40; i++) printf("%s", i < d ? "@" : " ")
		printf(" %-9d\n", n) }
	function hdr() { printf("\n%16s %41s %-9s\n", "value",
				"------------- Distribution -------------", "count") }'

# ---- dtt_bitesize.d
run dtt_bitesize.d
awk -F, "$dist"'
	function p2(v) { if (v <= 0) return 0; x = 1; while (x * 2 <= v) x *= 2; return x }
	NR > 1 && $3 == "start" { k = $11 SUBSEP $12; n[k]++; h[k, p2($7)]++
		if (!(k in lo) || p2($7) < lo[k]) lo[k] = p2($7)
		if (!(k in hi) || p2($7) > hi[k]) hi[k] = p2($7) }
	END { for (k in n) { split(k, p, SUBSEP); printf("%8d  %s\n", p[1], p[2]); hdr()
		first = lo[k] > 1 ? lo[k] / 2 : lo[k] == 1 ? 0 : -1
		for (v = first; ; v = v <= 0 ? v + 1 : v * 2) {
			row(v, h[k, v], n[k]); if (v > hi[k]) break }
		printf("\n") } }' ev.csv >bitesize.raw
entries bitesize.raw '^ *[0-9]+  [^ |]' >bitesize.ref
tail -n +4 dtt_bitesize.d.out >bitesize.body
entries bitesize.body '^ *[0-9]+  [^ |]' >bitesize.got
same "dtt_bitesize.d: a histogram per pid and command" bitesize.got bitesize.ref
expect_eq "dtt_bitesize.d: its header before printa" "$(head -3 dtt_bitesize.d.out | tr '\n' '/')" \
	"Tracing... Hit Ctrl-C to end./$(printf '/%8s  %s' PID CMD)/"

# ---- freebsd_disklatency: its tick-10s, 10 s after the first event
run freebsd_disklatency
"$B/vxreplay" --info t.vxt | awk '$4 ~ /^[0-9]+:[0-9]+$/ { split($4, d, ":"); print $2, d[2] }' \
	>units
awk -F, "$dist"'
	FILENAME == "units" { split($0, u, " "); unit[u[1]] = u[2]; next }
	FNR == 2 { t0 = $1 }
	FNR > 1 && $1 >= t0 + 10000000000 { exit }
	FNR > 1 && $3 == "start" { q[$2, $6, $7, ++nq[$2, $6, $7]] = $1 }
	FNR > 1 && $3 == "done" && done[$2, $6, $7] < nq[$2, $6, $7] {
		k = $2; s = q[$2, $6, $7, ++done[$2, $6, $7]]; v = int(($1 - s) / 1000)
		b = v < 4000 ? 0 : v >= 80000 ? 20 : 1 + int((v - 4000) / 4000)
		n[k]++; h[k, b]++; sum[k] += v; sq[k] += v * v
		if (!(k in mx) || v > mx[k]) mx[k] = v
		if (!(k in lo) || b < lo[k]) lo[k] = b
		if (!(k in hi) || b > hi[k]) hi[k] = b }
	END { for (k in n) {
		printf("   %s (%d), us:\n", k, unit[k]); hdr()
		for (b = (lo[k] ? lo[k] - 1 : 0); b <= (hi[k] < 20 ? hi[k] + 1 : 20); b++)
			row(b == 0 ? "< 4000" : b == 20 ? ">= 80000" : 4000 + (b - 1) * 4000,
			    h[k, b], n[k])
		printf("\n")
		a = int(sum[k] / n[k])
		printf("max%s (%d), us:\n%d\n", k, unit[k], mx[k])
		printf("avg%s (%d), us:\n%d\n", k, unit[k], a)
		printf("stddev%s (%d), us:\n%d\n", k, unit[k], int(sqrt(int(sq[k] / n[k]) - a * a))) } }' \
	units ev.csv >disklat.raw
re='^(   |max|avg|stddev)[^ ]+ \([0-9]+\), us:$'
entries disklat.raw "$re" >disklat.ref
tail -n +2 freebsd_disklatency.out >disklat.body
entries disklat.body "$re" >disklat.got
same "freebsd_disklatency: lquantize, max, avg and stddev at tick-10s" disklat.got disklat.ref

# ---- dtt_iotop.d: every 5 s of event time (its tick-1sec counting down),
# the bytes completed per pid, command, device and direction, and the KB
# started; its %Y is the file's wall clock at the tick
TZ=UTC; export TZ
run dtt_iotop.d
"$B/vxreplay" --info t.vxt >info
real0=$(sed -n 's/.*monotonic \([0-9]*\) = realtime \([0-9]*\)).*/\2 \1/p' info)
t0=$(sed -n 2p ev.csv | cut -d, -f1)
wall() { date -u -d "@$(( (${real0% *} - ${real0#* } + t0) / 1000000000 + $1 ))" '+%Y %b %e %T'; }
"$B/vxreplay" --info t.vxt | awk '$4 ~ /^[0-9]+:[0-9]+$/ { print $2, $4 }' >devs
awk -F, -v t0="$t0" -v w5="$(wall 5)" -v w10="$(wall 10)" '
	function flush(k) {
		printf("%s,  load: %d.%02d,  disk_r: %6d KB,  disk_w: %6d KB\n\n",
		       k == 5 ? w5 : w10, 0, 0, int(dr / 1024), int(dw / 1024))
		printf("  UID %6s %6s %-16s %-7s %3s %3s %1s %16s\n", "PID", "PPID", "CMD",
		       "DEVICE", "MAJ", "MIN", "D", "BYTES")
		for (x in out) { split(x, p, SUBSEP)
			printf("%5d %6d %6d %-16s %-7s %3d %3d %1s %16d\n", 0, p[1], 0, p[2], p[3],
			       maj[p[3]], mnr[p[3]], p[4], out[x]) }
		printf("\n"); delete out; dr = dw = 0 }
	FILENAME == "devs" { split($0, d, " "); split(d[2], m, ":"); maj[d[1]] = m[1]
		mnr[d[1]] = m[2]; next }
	FNR == 1 { print "Tracing... Please wait."; next }
	{ while ($1 >= t0 + (k + 1) * 1000000000) { k++; if (k % 5 == 0) flush(k) } }
	$3 == "start" { x = $2 SUBSEP $6; sp[x] = $11; sc[x] = $12; rw[x] = $4 == "read" ? "R" : "W"
		if ($4 == "read") dr += $7; else dw += $7 }
	$3 == "done" { x = $2 SUBSEP $6; out[sp[x] + 0, sc[x], $2, rw[x]] += $7
		delete sp[x]; delete sc[x]; delete rw[x] }' devs ev.csv >iotop.raw
# rows sorted within each interval: ties of value are ordered by keys
rows() { awk '/^ +0 +[0-9]+ +0 / { print | "LC_ALL=C sort"; next }
	{ close("LC_ALL=C sort"); print }' "$1"; }
rows iotop.raw >iotop.ref
rows dtt_iotop.d.out >iotop.got
same "dtt_iotop.d: bytes per process, device and direction every 5 s" iotop.got iotop.ref
awk '/^ +0 +[0-9]+ +0 / { if ($NF + 0 < last) bad = 1; last = $NF + 0; next } { last = 0 }
	END { exit bad }' dtt_iotop.d.out && ok "dtt_iotop.d: rows by bytes, smallest first" ||
	fail "dtt_iotop.d: rows not sorted by value"

# ---- the same engine at record time and live
"$B/vxrecord" --source sim --seed 5 --rate 3000 -d 12s --script "$D/illumos_whoio.d" \
	-o kept.vxt >rec.out 2>rec.err || fail "vxrecord --script illumos_whoio.d: $(cat rec.err)"
head -1 rec.out >rec.head
tail -n +2 rec.out | LC_ALL=C sort >rec.got
if cmp -s rec.head whoio.head && cmp -s rec.got whoio.ref; then
	ok "vxrecord --script illumos_whoio.d prints what vxreplay prints"
else
	fail "vxrecord --script illumos_whoio.d: $(head -3 rec.out)"
fi
"$B/vxtop" --follow t.vxt -b --script "$D/illumos_whoio.d" </dev/null >top.out 2>top.err ||
	fail "vxtop --script illumos_whoio.d: $(cat top.err)"
grep -q "$(sed -n 2p illumos_whoio.d.out)" top.out &&
	ok "vxtop --script illumos_whoio.d prints its rows" ||
	fail "vxtop --script illumos_whoio.d: $(head -5 top.out)"
# ---- $1 after --, in the three programs: the completions of one device
cat >arg.d <<'D'
#pragma D option quiet
io:::done /args[1]->dev_statname == $$1/ { @n = count(); }
END { printf("%s ", $$1); printa("%@d\n", @n); }
D
want="sdb $(awk -F, '$2 == "sdb" && $3 == "done"' ev.csv | wc -l)"
expect_eq "vxreplay --script arg.d -- sdb" "$("$B/vxreplay" t.vxt --script ./arg.d -- sdb)" "$want"
"$B/vxrecord" --source sim --seed 5 --rate 3000 -d 12s --script ./arg.d -o k3.vxt -- sdb \
	>rec3.out 2>/dev/null
expect_eq "vxrecord --script arg.d -- sdb" "$(cat rec3.out)" "$want"
"$B/vxtop" --follow t.vxt -b -i 20s --script ./arg.d -- sdb </dev/null >top3.out 2>/dev/null
expect_eq "vxtop --script arg.d -- sdb" "$(tail -1 top3.out)" "$want"
finish
