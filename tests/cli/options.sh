#!/bin/sh
# options.sh - the three programs speak one option vocabulary: README.md's
# table in "## Options" against each program's --help, both ways. A row marked
# yes must appear in that program's help with the same short letter (or with
# none when the table has none); a row marked - must not; every option a help
# shows must be a row of the table marked yes for that program. Then the old
# spellings kept for one release still work and print their one-line hint.
. "${VXT_TOP:?}/tests/lib.sh"
top=$VXT_TOP tmp=$T

# the table: "short long vxrecord vxreplay vxtop" per row (short "." when none)
awk '/^## Options/ { on = 1; next } /^## / { on = 0 }
     on && /^\| `-/ {
	split($0, c, "|")
	spell = c[2]; gsub(/`/, "", spell)
	short = "."; long = ""
	n = split(spell, w, /[ ,]+/)
	for (i = 1; i <= n; i++) {
		if (w[i] ~ /^--[a-z]/) { long = w[i]; break }
		if (w[i] ~ /^-[A-Za-z]$/) short = w[i]
	}
	for (k = 4; k <= 6; k++) gsub(/ /, "", c[k])
	print short, long, c[4], c[5], c[6]
     }' "$top/README.md" >"$tmp/table"
[ -s "$tmp/table" ] || { fail "no table under '## Options' in README.md"; finish; }
dups=$(awk '{ print $2 }' "$tmp/table" | sort | uniq -d)
[ -z "$dups" ] || fail "README.md lists twice: $dups"
dups=$(awk '$1 != "." { print $1 }' "$tmp/table" | sort | uniq -d)
[ -z "$dups" ] || fail "README.md gives a letter to two options: $dups"

col=3
for p in vxrecord vxreplay vxtop; do
	"$B/$p" --help >"$tmp/$p.help" 2>&1 || fail "$p --help exits non-zero"
	# "-X --long" for the pairs the help shows, "--long" for every long option
	grep -oE -- '-[A-Za-z], --[a-z][a-z-]*' "$tmp/$p.help" | sed 's/,//' | sort -u >"$tmp/$p.pairs"
	grep -oE -- '--[a-z][a-z-]*' "$tmp/$p.help" | sort -u >"$tmp/$p.longs"
	while read -r short long r1 r2 r3; do
		eval "has=\$r$((col - 2))"
		if [ "$has" = yes ]; then
			grep -qx -- "$long" "$tmp/$p.longs" || fail "$p --help lacks $long"
			if [ "$short" = . ]; then
				got=$(awk -v l="$long" '$2 == l { print $1 }' "$tmp/$p.pairs")
				[ -z "$got" ] || fail "$p gives $long the letter $got; README.md gives it none"
			else
				grep -qx -- "$short $long" "$tmp/$p.pairs" ||
					fail "$p --help lacks '$short, $long'"
			fi
		else
			grep -qx -- "$long" "$tmp/$p.longs" &&
				fail "$p --help shows $long, which README.md says it does not have"
			[ "$short" != . ] && grep -q -- "^$short " "$tmp/$p.pairs" &&
				fail "$p uses $short for $(grep -- "^$short " "$tmp/$p.pairs" | cut -d' ' -f2); README.md: $long"
		fi
	done <"$tmp/table"
	# the converse: nothing in the help that the table does not have for p
	while read -r long; do
		awk -v l="$long" -v c="$col" '$2 == l && $c == "yes" { f = 1 } END { exit !f }' \
			"$tmp/table" || fail "$p --help shows $long: not in README.md's table for $p"
	done <"$tmp/$p.longs"
	while read -r short long; do
		awk -v s="$short" -v l="$long" '$1 == s && $2 == l { f = 1 } END { exit !f }' \
			"$tmp/table" || fail "$p --help pairs $short with $long: not so in README.md"
	done <"$tmp/$p.pairs"
	col=$((col + 1))
done

# the old spellings: they work, with a one-line hint naming the new one
"$B/vxtop" -b -n 1 -i 100ms -s sim --rate 2000 </dev/null >"$tmp/n.out" 2>"$tmp/n.err" ||
	fail "vxtop -n 1 (old spelling of -c) failed: $(cat "$tmp/n.err")"
grep -q '^vxtop: -n is deprecated, use -c/--count' "$tmp/n.err" || fail "vxtop -n: no hint"
[ "$(wc -l <"$tmp/n.err")" -eq 1 ] || fail "vxtop -n: the hint is not one line"
"$B/vxtop" -b -c 1 -i 100ms -s sim --rate 2000 --where 'op == write' -w "$tmp/w.vxt" \
	</dev/null >/dev/null 2>"$tmp/w.err" || fail "vxtop --where/-w failed: $(cat "$tmp/w.err")"
grep -q -- '--where is deprecated, use --filter' "$tmp/w.err" || fail "vxtop --where: no hint"
grep -q -- '-w is deprecated, use -o/--output' "$tmp/w.err" || fail "vxtop -w: no hint"
[ -s "$tmp/w.vxt" ] || fail "vxtop -w did not record"
"$B/vxrecord" -q -s sim -c 2000 -o "$tmp/t.vxt" || fail "vxrecord failed"
a=$("$B/vxreplay" "$tmp/t.vxt" --report events -F csv --object sdb 2>"$tmp/o.err" | wc -l)
b=$("$B/vxreplay" "$tmp/t.vxt" --report events -F csv -O sdb | wc -l)
[ "$a" -gt 1 ] && [ "$a" = "$b" ] || fail "vxreplay --object sdb gave $a lines, -O sdb $b"
grep -q -- '--object is deprecated, use -O/--objects' "$tmp/o.err" || fail "vxreplay --object: no hint"
# vxtop -F FILE was --follow FILE: the message says so
"$B/vxtop" -b -c 1 -F "$tmp/t.vxt" </dev/null >/dev/null 2>"$tmp/f.err"
[ $? -eq 2 ] && grep -q -- '--follow FILE' "$tmp/f.err" || fail "vxtop -F FILE: $(cat "$tmp/f.err")"

[ $fails = 0 ] && ok "options: the three --help agree with README.md's table"
finish
