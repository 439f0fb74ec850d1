#!/bin/sh
# completion.sh - the bash completions of vxrecord, vxreplay and vxtop offer
# the options of each program's --help, the values of the options that take a
# fixed set, trace files, and the objects of the trace being replayed.
. "${VXT_TOP:?}/tests/lib.sh"
top=$VXT_TOP b=$B tmp=$T
command -v bash >/dev/null || skip "bash not installed"
"$b/vxrecord" -q -s sim -d 1s -o "$tmp/t.vxt" || { fail "vxrecord failed"; finish; }
mkdir "$tmp/sub"
cd "$tmp" || { fail "cd $tmp"; finish; }
# the completions run in bash, which sources lib.sh too and counts its own
# failed checks
PATH=$b:$PATH bash -c '
. "$1/tests/lib.sh"
set +u	# as in the interactive shells the completions are written for
c=$1/contrib/bash-completion
. "$c/vxrecord"; . "$c/vxreplay"; . "$c/vxtop"
# comp FUNC WORDS...: complete the last word; the result in $got, sorted.
comp() {
	local f=$1; shift
	COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
	$f
	got=$(printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " ")
}
want() { [ "$got" = "$1" ] || fail "$2: got [$got], want [$1]"; }
has() { case " $got " in *" $1 "*) ;; *) fail "$2: [$got] lacks $1" ;; esac; }

comp _vxreplay vxreplay t.vxt --report ""
want "errors events html objects summary " "vxreplay --report"
comp _vxreplay vxreplay t.vxt --export b
want "blktrace " "vxreplay --export b"
comp _vxreplay vxreplay t.vxt --objects ""
want "dm-0 nvme0n1 sda sdb " "vxreplay --objects (objects of t.vxt)"
comp _vxreplay vxreplay t.vxt --object ""
want "dm-0 nvme0n1 sda sdb " "vxreplay --object (the old spelling)"
comp _vxreplay vxreplay ""
want "sub t.vxt " "vxreplay FILE"
comp _vxreplay vxreplay t.vxt --
for o in $(vxreplay --help | grep -o -- "--[a-z][a-z-]*" | sort -u); do
	has "$o" "vxreplay options"
done
comp _vxreplay vxreplay t.vxt --profile ""
for y in "$1"/formats/profiles/*.yaml; do
	[ -e "$y" ] || continue
	n=${y##*/}; has "${n%.yaml}" "vxreplay --profile (shipped profiles)"
done
comp _vxrecord vxrecord --source ""
want "ebpf kmod sim tracefs " "vxrecord --source"
comp _vxrecord vxrecord --ro
want "--rotate " "vxrecord --ro"
comp _vxrecord vxrecord --import ""
want "blktrace " "vxrecord --import"
comp _vxrecord vxrecord -o ""
want "sub t.vxt " "vxrecord -o"
comp _vxtop vxtop --sort ""
has "p99" "vxtop --sort"; has "util" "vxtop --sort"
comp _vxtop vxtop --format ""
want "json text " "vxtop --format"
comp _vxtop vxtop -F ""
want "json text " "vxtop -F"
comp _vxtop vxtop --
for o in --batch --count --interval --follow --output --objects --match --filter \
	 --profile-dir --version --help; do has "$o" "vxtop options"; done
[ $fails = 0 ] && ok "completion: every option, value, file and object offered"
finish
' sh "$top" || fail "the completions (above)"
finish
