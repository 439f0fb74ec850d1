#!/bin/sh
# ebpf_bufsize.sh - --bufsize on the ebpf source: a size its ring cannot be
# (0, 3, 100g, 2G: a BPF ring buffer is a power of two, here 64K to 1G) is
# refused, exit 2, in one line naming the size and the bounds, before
# anything is recorded; one between them that is no power of two is rounded
# up and the closing lines say to what; an exact one is taken as it is.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_ebpf
make_loop 16M

rec() { timeout 60 "$B/vxrecord" --source ebpf --objects "$LNAME" -d 1s -o "$T/b.vxt" "$@"; }
expect_fail "--bufsize 0" 2 "vxrecord: --bufsize: bad size '0'" -- rec --bufsize 0
for b in 3 100g 2G 65535; do
	expect_fail "--bufsize $b" 2 "vxrecord: ebpf: --bufsize .*: the ring buffer is 64K to 1G$" -- \
		rec --bufsize $b
done
[ -e "$T/b.vxt" ] && fail "a refused --bufsize left a file" || ok "no file left by a refusal"
rec --bufsize 5M 2>"$T/5m.err" || fail "--bufsize 5M: $(cat "$T/5m.err")"
expect_eq "--bufsize 5M: said" "$(grep -c -- '--bufsize 5M: the ring buffer is 8M (a power of two)' "$T/5m.err")" 1
rec --bufsize 64K -f 2>"$T/64k.err" || fail "--bufsize 64K: $(cat "$T/64k.err")"
expect_eq "--bufsize 64K: nothing said of it" "$(grep -c -- '--bufsize' "$T/64k.err")" 0
finish
