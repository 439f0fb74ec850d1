#!/bin/sh
# script_text.sh - what a script without `quiet` prints for the events it
# commits (DTrace's CPU ID FUNCTION:NAME columns, then the event), and that
# a `quiet` script with printf prints the fields it names, against lines
# made here with awk from every event of a simulated trace: the I/Os that
# fail, each with its own start (paired first in first out by object,
# sector and size), in the order of their completions.
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
# CPU ID FUNCTION:NAME then the event: FUNCTION is empty, NAME the probe
awk 'NR == 1 { next } { sub(/^:/, "", $3); print }' text.out >text.got
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
finish
