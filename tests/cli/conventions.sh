#!/bin/sh
# conventions.sh - the three programs behave alike: --version/-V and
# --help/-h on stdout with exit 0; bad usage is one line on stderr,
# "PROG: ... (see PROG --help)", exit 2; failures exit 1; NO_COLOR removes
# colour from the screens, TERM=dumb gets no screen and no escape sequences.
. "${VXT_TOP:?}/tests/lib.sh"
b=$B top=$VXT_TOP tmp=$T
version=$(sed -n 's/^#define VXT_VERSION_STRING "\(.*\)"/\1/p' "$top/include/vxtrace/vxtrace.h")
"$b/vxrecord" -q -s sim -d 2s -o "$tmp/t.vxt" || { fail "vxrecord failed"; finish; }

# expect STATUS PROG ARGS...: run, check the status; output in $tmp/out, $tmp/err.
expect() {
	want=$1; shift
	"$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
	got=$?
	[ $got -eq "$want" ] || { cat "$tmp/err"; fail "'$*' exited $got, expected $want"; }
}
# usage_error PROG ARGS...: exit 2 and one "PROG: ... (see PROG --help)" line.
usage_error() {
	p=$1; shift
	expect 2 "$b/$p" "$@"
	[ ! -s "$tmp/out" ] || fail "'$p $*' wrote to stdout on a usage error"
	[ "$(wc -l < "$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "'$p $*': usage error is not one line"; }
	grep -q "^$p: .* (see $p --help)\$" "$tmp/err" ||
		fail "'$p $*': usage error reads '$(cat "$tmp/err")'"
}

for p in vxrecord vxreplay vxtop; do
	for v in --version -V; do
		expect 0 "$b/$p" $v
		[ "$(cat "$tmp/out")" = "$p $version" ] || fail "$p $v printed '$(cat "$tmp/out")'"
		[ ! -s "$tmp/err" ] || fail "$p $v wrote to stderr"
	done
	for h in --help -h; do
		expect 0 "$b/$p" $h
		head -n 1 "$tmp/out" | grep -q "^usage: $p " || fail "$p $h does not start with 'usage: $p'"
		[ "$(wc -l < "$tmp/out")" -le 40 ] || fail "$p $h is longer than 40 lines"
		awk 'length > 100 { exit 1 }' "$tmp/out" || fail "$p $h has lines over 100 columns"
		[ ! -s "$tmp/err" ] || fail "$p $h wrote to stderr"
	done
	usage_error $p --no-such-option
done
usage_error vxrecord -s sim
usage_error vxrecord -s sim -o "$tmp/x.vxt" --level 99
usage_error vxrecord -s sim -o "$tmp/x.vxt" --duration
usage_error vxrecord -s sim -o "$tmp/x.vxt" --rotate 10
usage_error vxreplay
usage_error vxreplay "$tmp/t.vxt" --report nope
usage_error vxreplay "$tmp/t.vxt" --export nope
usage_error vxreplay "$tmp/t.vxt" --export csv --report summary
usage_error vxreplay "$tmp/t.vxt" --from yesterday
usage_error vxtop -b --interval 1ns
usage_error vxtop -b -i

# failure PROG ARGS...: exit 1 with a message naming the program.
failure() {
	p=$1; shift
	expect 1 "$b/$p" "$@"
	grep -q "^$p: " "$tmp/err" || fail "'$p $*': failure message reads '$(cat "$tmp/err")'"
}
failure vxreplay "$tmp/missing.vxt"
# an unknown object is a usage error (README's exit status), named in one line
expect 2 "$b/vxreplay" "$tmp/t.vxt" --objects nosuchdisk
grep -q "^vxreplay: .*no object named 'nosuchdisk'" "$tmp/err" ||
	fail "unknown object: message reads '$(cat "$tmp/err")'"
failure vxrecord -q -s sim -d 1s -o "$tmp/no/dir/x.vxt"
failure vxrecord -q -s sim -d 1s -o "$tmp/t.vxt"
failure vxtop -b -c 1 --follow "$tmp/missing.vxt"
expect 0 "$b/vxreplay" "$tmp/t.vxt" --report summary
expect 0 "$b/vxtop" -b -c 1 -i 100ms -s sim

# Colours and terminals need a pseudo-terminal: script(1).
command -v script >/dev/null || skip "script (bsdutils) not installed"
# on_pty OUT CMD ENV...: run CMD on a pty for at most 1.5 s; output in OUT.
# --foreground keeps CMD in the terminal's foreground process group: in a
# group of its own (what timeout does by default, and what happens when
# script's shell is dash, which forks rather than execs) the first tcsetattr
# stops it with SIGTTOU and nothing ever ends it. Each window is a clock's
# 1.5 s, so the eight run at once, each on its own pty and output file.
on_pty() {
	out=$1 c=$2
	shift 2
	env "$@" script -qec "timeout --foreground -k 3 -s TERM 1.5 $c" /dev/null \
		< /dev/null > "$out" 2>&1
}
colours() { grep -caP '\x1b\[[0-9;]*(3[0-7]|4[0-7]|38;5|48;5)[0-9;]*m' "$1"; }
top="$b/vxtop -s sim" rep="$b/vxreplay $tmp/t.vxt"
rec="$b/vxrecord -s sim --realtime -d 1.2s -f -o"
on_pty "$tmp/pty-top" "$top" TERM=xterm-256color NO_COLOR= &
on_pty "$tmp/pty-top-nc" "$top" TERM=xterm-256color NO_COLOR=1 &
on_pty "$tmp/pty-rep" "$rep" TERM=xterm-256color NO_COLOR= &
on_pty "$tmp/pty-rep-nc" "$rep" TERM=xterm-256color NO_COLOR=1 &
on_pty "$tmp/pty-rep-dumb" "$rep" TERM=dumb &
on_pty "$tmp/pty-top-dumb" "$top" TERM=dumb &
on_pty "$tmp/pty-rec" "$rec $tmp/r1.vxt" TERM=xterm-256color &
on_pty "$tmp/pty-rec-dumb" "$rec $tmp/r2.vxt" TERM=dumb &
wait
for p in top rep; do
	[ $p = top ] && cmd=$top || cmd=$rep
	[ "$(colours "$tmp/pty-$p")" -gt 0 ] || fail "'$cmd' shows no colour on xterm-256color"
	[ "$(colours "$tmp/pty-$p-nc")" -eq 0 ] || fail "'$cmd' shows colour with NO_COLOR=1"
	grep -q . "$tmp/pty-$p-nc" || fail "'$cmd' drew nothing with NO_COLOR=1"
done
grep -q '^events: ' "$tmp/pty-rep-dumb" || fail "vxreplay on TERM=dumb did not print the summary"
grep -qaP '\x1b' "$tmp/pty-rep-dumb" && fail "vxreplay on TERM=dumb wrote escape sequences"
grep -q 'TERM=dumb.*-b' "$tmp/pty-top-dumb" || fail "vxtop on TERM=dumb did not refuse the screen"
grep -q 'ev/s' "$tmp/pty-rec" || fail "vxrecord shows no progress line on a terminal"
grep -q 'ev/s' "$tmp/pty-rec-dumb" && fail "vxrecord shows a progress line on TERM=dumb"
grep -qaP '\x1b' "$tmp/pty-rec-dumb" && fail "vxrecord wrote escape sequences on TERM=dumb"
grep -q '^vxrecord: .* events' "$tmp/pty-rec-dumb" || fail "vxrecord printed no summary on TERM=dumb"
[ $fails = 0 ] && ok "conventions: the three programs behave alike"
finish
