#!/bin/sh
# signals.sh - SIGTERM and SIGINT (^C) restore the terminal before the
# browser exits; a crash (SIGSEGV) restores it too.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 50000
sane() {
	wait_for '^-?icanon'
	screen | grep -Eq '(^| )icanon( |$)' || fail "$1: terminal left without icanon"
	screen | grep -Eq '(^| )echo( |$)' || fail "$1: terminal left without echo"
	screen | grep -q 'Help' && fail "$1: the browser's screen was not cleared"
}
pid_of_browser() { cat "$T/pid"; }
# the browser under a shell that records its pid before becoming it
browse() { start 120 40 sh -c "'echo \$\$ >$T/pid; exec $B/vxreplay $T/s.vxt'"; }

browse
wait_for 'events 50000/50000'
kill -TERM "$(pid_of_browser)"
wait_for '^\[exit 1\]'
screen | grep -q 'stopped by signal 15' || fail "SIGTERM: no message"
sane SIGTERM
ok "SIGTERM: terminal restored, exit 1"

browse
wait_for 'events 50000/50000'
keys C-c
wait_for '^\[exit 1\]'
sane "^C"
ok "^C: terminal restored"

browse
wait_for 'events 50000/50000'
kill -SEGV "$(pid_of_browser)"
wait_for '^\[exit 139\]'
sane SIGSEGV
ok "SIGSEGV: terminal restored before dying"
