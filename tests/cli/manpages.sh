#!/bin/sh
# manpages.sh - the man pages format without a warning (groff -ww, man
# --warnings), each has the sections a reader expects, and every option a
# program's --help lists is documented in its page.
. "${VXT_TOP:?}/tests/lib.sh"
[ -n "${VXT_SAN:-}" ] && skip "reads the man pages, no program runs: run once, not again under the sanitizers"
top=$VXT_TOP b=$B tmp=$T
command -v groff >/dev/null || skip "groff not installed"

m=$top/contrib/man
for p in vxrecord.1 vxreplay.1 vxtop.1 vxtrace.4 vxt.5 vxprofile.5 vxscript.5; do
	f=$m/$p
	[ -f "$f" ] || { fail "$p missing"; continue; }
	name=${p%.*} sec=${p##*.}
	up=$(echo "$name" | tr a-z A-Z)
	grep -q "^\.TH $up $sec " "$f" || fail "$p: .TH does not say '$up $sec'"
	for s in NAME DESCRIPTION "SEE ALSO"; do
		grep -q "^\.SH \"*$s\"*\$" "$f" || fail "$p: no $s section"
	done
	grep -A1 '^\.SH NAME' "$f" | tail -n 1 | grep -q "^$name \\\\- " ||
		fail "$p: NAME line is not '$name \\- ...'"
	LC_ALL=C.UTF-8 groff -ww -Tutf8 -man -z "$f" 2> "$tmp/w" || fail "$p: groff failed"
	[ -s "$tmp/w" ] && { cat "$tmp/w"; fail "$p: groff warnings"; }
	if command -v man >/dev/null; then
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" 2> "$tmp/w" > "$tmp/out" ||
			fail "$p: man failed"
		[ -s "$tmp/w" ] && { cat "$tmp/w"; fail "$p: man --warnings"; }
		[ "$(wc -l < "$tmp/out")" -gt 20 ] || fail "$p: renders to almost nothing"
	fi
done

# --help and the page agree: every long option of --help is in the page.
for prog in vxrecord vxreplay vxtop; do
	"$b/$prog" --help > "$tmp/help" || { fail "$prog --help failed"; continue; }
	opts=$(grep -o -- '--[a-z][a-z-]*' "$tmp/help" | sort -u)
	[ -n "$opts" ] || fail "$prog --help lists no options"
	for o in $opts; do
		pat=$(echo "$o" | sed 's/-/\\\\-/g')
		grep -q -- "$pat" "$m/$prog.1" || fail "$prog.1 does not document $o"
	done
	echo "manpages: $prog.1 documents all $(echo "$opts" | wc -l) options of --help"
	# Every page's exit statuses are the same three.
	for st in 0 1 2; do
		sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$m/$prog.1" | grep -q "^\.B $st\$" ||
			fail "$prog.1: exit status $st not documented"
	done
done
# Cross references point at pages that exist here or in Debian.
refs=$(cat "$m"/*.[1-8] | grep -o '^\.BR [a-z0-9_-]* ([1-8])' | awk '{print $2 "." substr($3, 2, 1)}' |
	sort -u)
for r in $refs; do
	case $r in vx*) [ -f "$m/$r" ] || fail "reference to $r, which is not shipped" ;; esac
done
[ $fails = 0 ] && ok "manpages: every page formats and documents its program's options"
finish
