#!/bin/sh
# hostile_profile.sh - profiles that try to do more than describe a view:
# YAML tags (!include, !!python/...) are not honoured, shell syntax in a
# filter is never run, and size, alias and nesting bombs are refused with one
# positioned line, quickly and in bounded memory, by vxreplay and vxrecord.
. "$VXT_TOP/tests/lib.sh"

"$B/vxrecord" -q --source sim --seed 3 -c 2000 -o "$T/t.vxt" || fail "record"
# max RSS in KiB (0 without GNU time)
rss() {
	if [ -x /usr/bin/time ]; then /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1
	else echo 0; fi
}

# prof NAME: the profile text comes on stdin
prof() { cat >"$T/$1.yaml"; }
prof include <<'Y'
name: include
filter: !include /etc/shadow
Y
prof python <<'Y'
name: python
filter: op == read
columns: !!python/object/apply:os.system ["touch /tmp/vxt-profile-pwned"]
Y
prof shell <<'Y'
name: shell
filter: comm == "$(touch /tmp/vxt-profile-pwned)" || comm == "`touch /tmp/vxt-profile-pwned`"
Y
prof deep <<'Y'
name: deep
timeline: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]
Y
{
	echo 'name: bomb'
	echo 'a: &a ["x","x","x","x","x","x","x","x","x","x"]'
	for l in b c d e f g h i j; do
		prev=$(printf '%s' "abcdefghij" | sed "s/$l.*//" | tail -c 1)
		echo "$l: &$l [*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev]"
	done
	echo 'filter: op == read'
} >"$T/bomb.yaml"
awk 'BEGIN { printf "name: big\ndescription: \""; for (i = 0; i < 2200000; i++) printf "x"; print "\"" }' >"$T/big.yaml"
awk 'BEGIN { printf "name: longfilter\nfilter: \""; for (i = 0; i < 10000; i++) printf "op == read || "; print "op == write\"" }' >"$T/longfilter.yaml"

rm -f /tmp/vxt-profile-pwned
# name | message (a broken profile is bad usage in both programs: exit 2)
while IFS='|' read -r name msg; do
	expect_fail "$name (vxreplay)" 2 "$name.yaml:.*$msg" -- \
		"$B/vxreplay" "$T/t.vxt" --profile "$T/$name.yaml" --report summary
	expect_fail "$name (vxrecord)" 2 "$name.yaml:.*$msg" -- \
		"$B/vxrecord" -q --source sim -c 100 --profile "$T/$name.yaml" -f -o "$T/p.vxt"
	kb=$(rss "$B/vxreplay" "$T/t.vxt" --profile "$T/$name.yaml" --report summary)
	[ "$kb" -lt 65536 ] && ok "$name: $kb KiB at most" || fail "$name: $kb KiB"
done <<'TABLE'
include|unexpected character '/'
python|unknown column 'touch /tmp/vxt-profile-pwned'
deep|nested too deeply
bomb|too many aliases\|too complex
big|profile too large
longfilter|string too long (more than 16384 bytes)
TABLE
# the shell-looking filter is a valid filter on command names: it loads and runs
"$B/vxreplay" "$T/t.vxt" --profile "$T/shell.yaml" --report summary >/dev/null 2>&1 ||
	fail "a filter comparing comm to a string with shell syntax"
[ -e /tmp/vxt-profile-pwned ] && fail "a profile ran a command" || ok "no profile ran a command"
rm -f /tmp/vxt-profile-pwned
finish
