#!/bin/sh
# script_hostile.sh - a script a hostile user wrote, and names a crafted trace
# holds, do not hurt vxreplay: chains of 200 000 `+`, 100 000 `?:` and
# 100 000 `=` (under the 1 MiB limit) are refused with
# "expression nested too deeply" at a position, not a stack overflow; an
# lquantize() whose bounds are INT64_MAX apart and printf() widths and
# precisions of a billion are refused at load; exit(256) does not exit 0;
# and trace(), printf's %s and aggregation keys print a command name holding
# a terminal escape (mkhostile.c) escaped when stdout is a terminal, raw into
# a pipe, as dtrace does.
. "$VXT_TOP/tests/lib.sh"

cd "$T" || exit 1
"$B/vxrecord" --source sim --seed 3 -c 2000 -o t.vxt -q || { fail "record"; finish; }
run() { "$B/vxreplay" t.vxt --script "$@"; }

python3 - <<'PYEOF'
open('chain.d', 'w').write('BEGIN { x = ' + '1+' * 200000 + '1; exit(0); }\n')
open('cond.d', 'w').write('BEGIN { x = ' + '1?2:' * 100000 + '1; exit(0); }\n')
open('assign.d', 'w').write('BEGIN { ' + 'x = ' * 100000 + '1; exit(0); }\n')
open('within.d', 'w').write('#pragma D option quiet\n'
                            'BEGIN { x = ' + '1+' * 200 + '1; printf("%d\\n", x); exit(0); }\n')
PYEOF
for d in chain cond assign; do
	expect_fail "$d of 100 000 or more" 2 "$d.d:1:[0-9]*: expression nested too deeply" -- run $d.d
done
expect_eq "a chain of 201 terms" "$(run within.d 2>&1)" "201"

echo 'io:::done { @l = lquantize(latency, -9223372036854775807, 9223372036854775807, 1); }' >lq.d
expect_fail "lquantize over the whole int64 range" 2 "lq.d:1:[0-9]*: lquantize( ): upper bound" \
	-- run lq.d
for f in '%999999999d' '%2147483648d' '%.999999999d' '%5000s'; do
	printf 'BEGIN { printf("%s\\n", 1); exit(0); }\n' "$f" >w.d
	expect_fail "printf $f" 2 "w.d:1:[0-9]*: printf( ): the .* of conversion #1 is above 4096" \
		-- run w.d
done
printf '#pragma D option quiet\nBEGIN { printf("[%%4000d]\\n", 7); exit(0); }\n' >w.d
expect_eq "printf %4000d: bytes" "$(run w.d | wc -c)" "4003"

for n in 256 512 -256 257 255 1 0; do
	printf 'BEGIN { exit(%s); }\n' "$n" >e.d
	run e.d >/dev/null 2>&1
	rc=$?
	case $n in 256|512|-256) want=1 ;; *) want=$((n & 255)) ;; esac
	expect_eq "exit($n)'s status" "$rc" "$want"
done

# names with terminal escapes: escaped on a terminal (script(1) gives one)
cc -std=c11 -D_GNU_SOURCE -I"$VXT_TOP/include" "$VXT_TOP/tests/cli/mkhostile.c" \
	"$B/libvxtrace.a" -lzstd -lm -o mkhostile || { echo "cannot build the trace writer"; finish; }
./mkhostile h.vxt || { fail "mkhostile"; finish; }
cat >names.d <<'DEOF'
#pragma D option quiet
io:::done { trace(execname); printf(" <%s>\n", execname); @c[execname] = count(); }
DEOF
command -v script >/dev/null || { echo "no script(1): cannot run on a terminal"; finish; }
script -qec "'$B/vxreplay' h.vxt --script names.d" /dev/null >tty.out </dev/null ||
	fail "names.d on a terminal"
tr -d '\r' <tty.out >tty.txt
if grep -q "$(printf '\033')" tty.txt; then fail "a raw ESC reached the terminal"; else
	ok "no raw ESC on the terminal"; fi
grep -qF ' <\e]0;PWNED\a>' tty.txt && ok "printf %s escaped" || fail "printf %s not escaped"
grep -qF '\e]0;PWNED\a <' tty.txt && ok "trace() escaped" || fail "trace() not escaped"
grep -qE '^  \\e\]0;PWNED\\a +[0-9]+$' tty.txt && ok "aggregation key escaped" ||
	fail "aggregation key not escaped"
"$B/vxreplay" h.vxt --script names.d >pipe.txt || fail "names.d into a pipe"
grep -qF " <$(printf '\033]0;PWNED\a')>" pipe.txt && ok "into a pipe: raw, as dtrace" ||
	fail "into a pipe: not raw"
finish
