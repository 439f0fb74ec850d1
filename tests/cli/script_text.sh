#!/bin/sh
# script_text.sh - what a script without `quiet` prints for the events it
# commits (DTrace's CPU ID FUNCTION:NAME columns, then the event), and that
# a `quiet` script with printf prints the fields it names, against lines
# made here with awk from every event of a simulated trace: the I/Os that
# fail, each with its own start (paired first in first out by object,
# sector and size), in the order of their completions; and the layout of
# aggregations printed at the end, against dt_consume.c's rules.
. "$VXT_TOP/tests/lib.sh"

cd "$T" || exit 1
"$B/vxrecord" --source sim --seed 7 -c 200000 -o t.vxt -q || fail "record"
"$B/vxreplay" t.vxt --report events --format csv >all.csv || fail "all events"
cat >text.d <<'EOF'
#pragma D option nspec=4096
io:::start { req->spec = speculation(); }
io:::start, io:::done /req->spec/ { speculate(req->spec); }
io:::done /req->spec && error/ { commit(req->spec); }
io:::done /req->spec && !error/ { discard(req->spec); }
EOF
cat >printf.d <<'EOF'
#pragma D option quiet
#pragma D option nspec=4096
io:::start { req->spec = speculation(); }
io:::start /req->spec/ { speculate(req->spec); printf("%s %d %d %s %d\n", probename, pid, cpu, execname, flags); }
io:::done /req->spec/ { speculate(req->spec); printf("%s %d %d %s %d %d\n", probename, pid, cpu, execname, latency, error); }
io:::done /req->spec && error/ { commit(req->spec); }
io:::done /req->spec && !error/ { discard(req->spec); }
EOF

# columns: 2 object, 3 phase, 4 op, 5 flags, 6 sector, 7 bytes, 8 latency_ns,
# 9 error, 11 pid, 12 comm, 13 cpu; $1 = default: the default text, else printf.d's
ref() {
	awk -F, -v form="$1" '
	function flags(f,   n, i, v, bit) {	# include/vxtrace/event.h
		bit["sync"] = 1; bit["fua"] = 2; bit["meta"] = 4; bit["preflush"] = 8
		bit["recovery"] = 16; bit["rahead"] = 32; bit["bio"] = 64
		n = split(f, part, "|")
		for (i = 1; i <= n; i++) v += bit[part[i]]
		return v
	}
	function line(r, probe,   f) {
		split(r, f, ",")
		if (form == "default") {
			s = sprintf("%s %s %s %s %s %s", f[13], 2, probe, f[2], f[4], f[6]) " " f[7]
			if (probe == "done") s = s " " f[8] "ns"
			if (f[9] != 0) s = s " error " f[9]
			return s " pid " f[11]
		}
		if (probe == "start")
			return sprintf("%s %s %s %s %d", probe, f[11], f[13], f[12], flags(f[5]))
		return sprintf("%s %s %s %s %s %s", probe, f[11], f[13], f[12], f[8], f[9])
	}
	NR == 1 { next }
	$3 == "start" { k = $2 "," $6 "," $7; q[k, ++tl[k]] = $0; next }
	$3 == "done" {
		k = $2 "," $6 "," $7
		if (hd[k] >= tl[k]) next	# its start is not in the trace
		s = q[k, ++hd[k]]
		delete q[k, hd[k]]
		if ($9 != 0) { print line(s, "start"); print line($0, "done") }
	}' all.csv
}

"$B/vxreplay" t.vxt --script text.d >text.out 2>text.err || fail "text.d: $(cat text.err)"
# dtrace's header, then per firing "%3d %6d %32s " of CPU, ID and
# FUNCTION:NAME (dtrace.c's chew()), FUNCTION as illumos's io provider
# names it (bdev_strategy for start, biodone for done), then the event
awk 'NR == 1 { if ($0 != "CPU     ID                    FUNCTION:NAME") print "BAD HEADER"; next }
{
	split($3, fn, ":")
	f = fn[2] == "start" ? "bdev_strategy" : fn[2] == "done" ? "biodone" : "?"
	if (substr($0, 1, 44) != sprintf("%3d %6d %32s ", $1, $2, f ":" fn[2]))
		print "BAD COLUMNS: " $0
	$3 = fn[2]
	print
}' text.out >text.got
ref default >text.want
n=$(wc -l <text.want)
[ "$n" -gt 40 ] || fail "the reference has only $n lines"
if cmp -s text.got text.want; then
	ok "the default text of $((n / 2)) failed I/Os and their starts, as awk made it"
else
	fail "default text differs from awk's: $(diff text.want text.got | head -n 4 | tr '\n' '|')"
fi

"$B/vxreplay" t.vxt --script printf.d >printf.got 2>printf.err || fail "printf.d: $(cat printf.err)"
ref printf >printf.want
if cmp -s printf.got printf.want; then
	ok "printf of pid, cpu, execname, flags, latency and errno for the same $((n / 2)) I/Os"
else
	fail "printf differs from awk's: $(diff printf.want printf.got | head -n 4 | tr '\n' '|')"
fi

# What a script that ends without printa prints: dtrace(1)'s blank line,
# then every aggregation in the order the script names them, entries by
# value then key, each laid out by dt_consume.c's rules, written here by
# hand: a string key "  %-50s", a 32-bit integer key (pid_t) " %8d", a
# value " %16lld" (none of it with keys), a distribution's key line, then
# "\n%16s %41s %-9s\n" (value, Distribution, count), a row "%16lld |" per
# bucket from one below the first in use to one above the last, its
# share of 40 '@' rounded, " %-9lld", and a blank line.
cat >aggs.d <<'EOF'
#pragma D option quiet
io:::done { @c[execname] = count(); @n = count(); @b[pid] = sum(bytes);
	@m[execname, pid] = max(bytes); @q[op] = quantize(bytes); }
EOF
"$B/vxreplay" t.vxt --script aggs.d >aggs.got 2>aggs.err || fail "aggs.d: $(cat aggs.err)"
tab=$(printf '\t')
done_rows() { awk -F, 'NR > 1 && $3 == "done"' all.csv; }
{
	echo
	done_rows | awk -F, '{ n[$12]++ } END { for (k in n) printf("%d\t%s\n", n[k], k) }' |
		LC_ALL=C sort -t "$tab" -k1,1n -k2,2 |
		awk -F'\t' '{ printf("  %-50s %16d\n", $2, $1) }'
	done_rows | awk 'END { printf(" %16d\n", NR) }'
	done_rows | awk -F, '{ b[$11] += $7 } END { for (k in b) printf("%d\t%d\n", b[k], k) }' |
		LC_ALL=C sort -t "$tab" -k1,1n -k2,2n |
		awk -F'\t' '{ printf(" %8d %16d\n", $2, $1) }'
	done_rows | awk -F, '{ k = $12 "\t" $11; if (!(k in m) || $7 + 0 > m[k]) m[k] = $7 + 0 }
		END { for (k in m) printf("%d\t%s\n", m[k], k) }' |
		LC_ALL=C sort -t "$tab" -k1,1n -k2,2 -k3,3n |
		awk -F'\t' '{ printf("  %-50s %8d %16d\n", $2, $3, $1) }'
	done_rows | awk -F, '
		function idx(v,   k) { if (v == 0) return 64; k = 0; while (2 ^ (k + 1) <= v) k++; return 65 + k }
		function label(i) { return i == 64 ? 0 : i > 64 ? 2 ^ (i - 65) : -1 }
		{ n[$4]++; h[$4, idx($7)]++ }
		END {
			for (op in n) {
				lo = 200; hi = -1
				for (i = 0; i < 128; i++) if (h[op, i]) { if (i < lo) lo = i; hi = i }
				out = sprintf("  %-50s\n%16s %41s %-9s\n", op, "value",
					      "------------- Distribution -------------", "count")
				for (i = lo - 1; i <= hi + 1; i++) {
					c = h[op, i] + 0; d = int(c * 40 / n[op] + 0.5); bar = ""
					for (j = 0; j < 40; j++) bar = bar (j < d ? "@" : " ")
					out = out sprintf("%16d |%s %-9d\n", label(i), bar, c)
				}
				gsub(/\n/, "\001", out)
				printf("%d\t%s\t%s\n", n[op], op, out)
			}
		}' | LC_ALL=C sort -t "$tab" -k1,1n -k2,2 |
		awk -F'\t' '{ gsub(/\001/, "\n", $3); printf("%s\n", $3) }'
} >aggs.want
if cmp -s aggs.got aggs.want; then
	ok "aggregations at the end as dt_consume.c lays them out ($(wc -l <aggs.want) lines)"
else
	fail "aggregations differ from dt_consume.c's layout: $(diff aggs.want aggs.got | head -n 6 | tr '\n' '|')"
fi
finish
