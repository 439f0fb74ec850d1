#!/bin/sh
# bt_dialect.sh - bpftrace's language on a simulator trace, each output
# against what awk computes from the trace's CSV export: hist(args.bytes),
# if / else if / else with maps keyed by comm and by a tuple, speculation
# keeping exactly the failed completions, print() and clear() per interval;
# bpftrace's errors with file:line:col; the phase a file lacks said once.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/bt_hist.inc"

"$B/vxrecord" --source sim -c 200000 --seed 3 -o "$T/t.vxt" -q \
	--sim-errors 'sda@0.5s+7:EIO,sdb@1s+5' || fail "record"
"$B/vxreplay" "$T/t.vxt" --report events --format csv >"$T/ev.csv" || fail "csv"

echo 'tracepoint:block:block_rq_issue { @ = hist(args.bytes); }' >"$T/one.bt"
"$B/vxreplay" "$T/t.vxt" --script "$T/one.bt" >"$T/one.out" || fail "one-liner"
expect_eq "@ = hist(args.bytes): rows" "$(rows "$T/one.out")" \
	"$(awk -F, '$3 == "start" { print $7 }' "$T/ev.csv" | hist)"
expect_eq "@ = hist(args.bytes): bpftrace's first line, '@: ' after two newlines" \
	"$(head -4 "$T/one.out" | tr '\n' '|')" "Attaching 1 probe...|||@: |"

# a hist per comm (bitesize.bt's): each comm's rows, the comms by their
# totals, smallest first
echo 'tracepoint:block:block_rq_issue { @[comm] = hist(args->bytes); }' >"$T/size.bt"
"$B/vxreplay" "$T/t.vxt" --script "$T/size.bt" >"$T/size.out" || fail "size.bt"
sed -n 's/^@\[\(.*\)\]: $/\1/p' "$T/size.out" >"$T/comms"
for c in $(cat "$T/comms"); do
	got=$(awk -v c="$c" '/^@\[/ { on = ($0 == "@[" c "]: ") } on && /^[[(]/' "$T/size.out" |
		sed 's/^\([[(][^|]*[])]\) *\([0-9][0-9]*\) |.*$/\1 \2/')
	want=$(awk -F, -v c="$c" '$3 == "start" && $12 == c { print $7 }' "$T/ev.csv" | hist)
	[ "$got" = "$want" ] || fail "hist per comm: $c: got '$got', want '$want'"
done
expect_eq "hist per comm: the comms, by total then name" "$(tr '\n' ' ' <"$T/comms")" \
	"$(awk -F, '$3 == "start" { n[$12]++ } END { for (c in n) print n[c], c }' "$T/ev.csv" |
	   sort -k1,1n -k2 | awk '{ printf "%s ", $2 }')"

# print(@m, top, div): the 3 largest sums, in KiB
printf 'tracepoint:block:block_rq_issue { @b[comm] = sum(args.bytes); }\nEND { print(@b, 3, 1024); clear(@b); }\n' >"$T/top.bt"
"$B/vxreplay" "$T/t.vxt" --script "$T/top.bt" >"$T/top.out" || fail "top.bt"
expect_eq "print(@b, 3, 1024)" "$(grep '^@b\[' "$T/top.out")" \
	"$(awk -F, '$3 == "start" { n[$12] += $7 } END { for (c in n) print n[c], c }' "$T/ev.csv" |
	   sort -k1,1n -k2 | tail -3 | awk '{ printf "@b[%s]: %d\n", $2, int($1 / 1024) }')"

# $1: the program's argument after --
printf 'tracepoint:block:block_rq_issue /pid == $1/ { @n = count(); }\n' >"$T/pid.bt"
expect_eq "\$1 in a predicate" \
	"$("$B/vxreplay" "$T/t.vxt" --script "$T/pid.bt" -- 1010 | sed -n 's/^@n: //p')" \
	"$(awk -F, '$3 == "start" && $11 == 1010' "$T/ev.csv" | wc -l)"

# kernel structures older tools read: the disk's name is the object's
printf '#include <linux/blkdev.h>\nkprobe:blk_mq_start_request { @d[((struct request *)arg0)->rq_disk->disk_name] = sum(((struct request *)arg0).__data_len); }\n' >"$T/disk.bt"
expect_eq "((struct request *)arg0)->rq_disk->disk_name, .__data_len" \
	"$("$B/vxreplay" "$T/t.vxt" --script "$T/disk.bt" | grep '^@d\[' | sort)" \
	"$(awk -F, '$3 == "start" { n[$2] += $7 } END { for (o in n) printf "@d[%s]: %d\n", o, n[o] }' "$T/ev.csv" | sort)"

# probe: the probe that fired, of a wildcard's; the block runs once per
# probe that fires, as bpftrace's: a failed completion fires both
# block_rq_complete and block_rq_error
printf 't:block:block_rq_* { @[probe] = count(); }\n' >"$T/probe.bt"
expect_eq "@[probe] of t:block:block_rq_*" \
	"$("$B/vxreplay" "$T/t.vxt" --script "$T/probe.bt" | grep '^@\[' | sort)" \
	"$(awk -F, '$3 == "start" { s++ } $3 == "done" { d++; if ($9 != 0) e++ } END {
		printf "@[tracepoint:block:block_rq_complete]: %d\n", d
		printf "@[tracepoint:block:block_rq_error]: %d\n", e
		printf "@[tracepoint:block:block_rq_issue]: %d\n", s }' "$T/ev.csv")"

# a map keyed by kstack (biostacks.bt's): one key, the empty stack, and
# one warning at load
printf 'tracepoint:block:block_rq_issue { @s[kstack] = count(); @t[kstack] = count(); }\n' >"$T/st.bt"
"$B/vxreplay" "$T/t.vxt" --script "$T/st.bt" >"$T/st.out" 2>"$T/st.err" || fail "st.bt"
expect_eq "kstack: the empty stack as the key" "$(sed -n 's/^@s\[\]: //p' "$T/st.out")" \
	"$(awk -F, '$3 == "start"' "$T/ev.csv" | wc -l)"
expect_eq "kstack: one warning" "$(grep -c 'st.bt:1:38: WARNING: kstack: a recording holds no stacks' "$T/st.err") $(wc -l <"$T/st.err")" "1 1"

cat >"$T/ifs.bt" <<'BT'
tracepoint:block:block_rq_complete
{
	$k = (comm, pid);
	if (args.error) {
		@err[comm] = count();
		@errno[args.error] = count();
	} else if (args.nr_sector >= 128) {
		@big[$k] = sum(args.nr_sector);
	} else {
		@small = count();
	}
}
BT
"$B/vxreplay" "$T/t.vxt" --script "$T/ifs.bt" >"$T/ifs.out" 2>"$T/ifs.err" || fail "ifs: $(cat "$T/ifs.err")"
expect_eq "if: @err[comm] lines" "$(grep '^@err\[' "$T/ifs.out" | sort)" \
	"$(awk -F, '$3 == "done" && $9 != 0 { n[$12]++ } END { for (c in n) printf "@err[%s]: %d\n", c, n[c] }' "$T/ev.csv" | sort)"
expect_eq "if: @errno[args.error] (negative errnos)" "$(grep '^@errno\[' "$T/ifs.out" | sort)" \
	"$(awk -F, '$3 == "done" && $9 != 0 { n[-$9]++ } END { for (e in n) printf "@errno[%d]: %d\n", e, n[e] }' "$T/ev.csv" | sort)"
expect_eq "else if: @big[comm, pid] sums of sectors" "$(grep '^@big\[' "$T/ifs.out" | sort)" \
	"$(awk -F, '$3 == "done" && $9 == 0 && $7 >= 65536 { n[$12 ", " $11] += $7 / 512 }
		END { for (k in n) printf "@big[%s]: %d\n", k, n[k] }' "$T/ev.csv" | sort)"
expect_eq "else: @small" "$(sed -n 's/^@small: //p' "$T/ifs.out")" \
	"$(awk -F, '$3 == "done" && $9 == 0 && $7 < 65536' "$T/ev.csv" | wc -l)"
# return leaves the block: the counts after it are of the events it did not end
cat >"$T/ret.bt" <<'BT'
tracepoint:block:block_rq_issue /args.bytes > 0/
{
	@all = count();
	if (args.bytes < 8192) { @small = count(); return; }
	@big = count();
	if (args.bytes > 65536) { @huge = count(); return; }
	@mid = count();
}
BT
expect_eq "return: all small big huge mid" \
	"$("$B/vxreplay" "$T/t.vxt" --script "$T/ret.bt" | awk -F': ' '/^@/ { v[$1] = $2 }
		END { print v["@all"], v["@small"], v["@big"], v["@huge"], v["@mid"] }')" \
	"$(awk -F, '$3 == "start" && $7 > 0 { a++; if ($7 < 8192) s++; else { b++; if ($7 > 65536) h++; else m++ } }
		END { print a, s, b, h, m }' "$T/ev.csv")"

# speculation: each issue's printf goes into its own speculation, kept
# when the completion failed; an unset $local in an if is an error
cat >"$T/spec.bt" <<'BT'
config = { nspec = 4096; specsize = 4096 }
tracepoint:block:block_rq_issue
{
	$s = speculation();
	@spec[args.dev, args.sector] = $s;
	speculate($s);
	printf("issue %d %d\n", args.sector, args.bytes);
}
tracepoint:block:block_rq_complete /@spec[args.dev, args.sector]/
{
	$s = @spec[args.dev, args.sector];
	delete(@spec, (args.dev, args.sector));
	if (args.error != 0) {
		speculate($s);
		printf("error %d %d\n", args.sector, args.error);
		commit($s);
	} else {
		discard($s);
	}
}
END { clear(@spec); }
BT
"$B/vxreplay" "$T/t.vxt" --script "$T/spec.bt" >"$T/spec.out" 2>"$T/spec.err" || fail "spec.bt: $(cat "$T/spec.err")"
expect_eq "speculation: the failed completions, each after its issue" \
	"$(grep -E '^(issue|error) ' "$T/spec.out" | awk '{ print $1, $2 }' | sort)" \
	"$(awk -F, '$3 == "done" && $9 != 0 { print "issue", $6; print "error", $6 }' "$T/ev.csv" | sort)"
expect_eq "speculation: nothing failed" "$(cat "$T/spec.err")" ""

# print() and clear() each second: the counts add up to the issues
cat >"$T/tick.bt" <<'BT'
tracepoint:block:block_rq_issue { @n = count(); }
interval:s:1 { print(@n); clear(@n); }
BT
"$B/vxreplay" "$T/t.vxt" --script "$T/tick.bt" >"$T/tick.out" || fail "tick.bt"
expect_eq "interval print + clear: sum of the intervals' @n" \
	"$(awk '/^@n: / { s += $2 } END { print s }' "$T/tick.out")" \
	"$(awk -F, '$3 == "start"' "$T/ev.csv" | wc -l)"

# errors: one line, exit 2, bpftrace's words at file:line:col
bad() {
	printf '%s\n' "$2" >"$T/bad.bt"
	expect_fail "$1" 2 "$3" -- "$B/vxreplay" "$T/t.vxt" --script "$T/bad.bt"
}
bad "unknown identifier" 'BEGIN { @x = foo; }' 'bad.bt:1:14: ERROR: Unknown identifier: .foo.'
bad "unknown tracepoint" 'tracepoint:block:block_foo { @ = count(); }' \
	'bad.bt:1:1: ERROR: tracepoint not found: block:block_foo'
bad "field the tracepoint lacks" 'tracepoint:block:block_rq_complete { @ = hist(args.bytes); }' \
	"bad.bt:1:47: ERROR: Struct/union of type 'struct _tracepoint_block_block_rq_complete' does not contain a field named 'bytes'"
bad "undefined \$local" 'BEGIN { printf("%d\n", $x); }' 'bad.bt:1:24: ERROR: Undefined or undeclared variable: \$x'
bad "syntax" 'BEGIN { @x = 1 }}' 'bad.bt:1:17: ERROR: syntax error, unexpected }'
bad "aggregating function alone" 'BEGIN { $x = count(); }' \
	'bad.bt:1:14: ERROR: count() should be directly assigned to a map'
bad "a map never written" 'BEGIN { printf("%d", @nope); }' 'bad.bt:1:22: ERROR: Undefined map: @nope'
bad "a map given two types" 'BEGIN { @x = comm; @x = 1; }' \
	"bad.bt:1:23: ERROR: Type mismatch for @x: trying to assign value of type 'int64' when map already contains a value of type 'string'"
bad "printf against its argument" 'BEGIN { printf("%d", comm); }' \
	'bad.bt:1:22: ERROR: printf: %d specifier expects a value of type integer (string supplied)'
bad "args in BEGIN" 'BEGIN { @x = args.sector; }' 'bad.bt:1:14: ERROR: The args builtin'

# a phase the file lacks is said once, at load, naming --phases all
printf 'tracepoint:block:block_bio_queue { @q = count(); }\nt:block:block_bio_queue { @r = count(); }\n' >"$T/q.bt"
"$B/vxreplay" "$T/t.vxt" --script "$T/q.bt" >"$T/q.out" 2>"$T/q.err" || fail "q.bt"
expect_eq "missing phase: one line naming --phases all" \
	"$(grep -c 'q.bt:1:1: WARNING: tracepoint:block:block_bio_queue: .*no queue events.*--phases all' "$T/q.err") $(wc -l <"$T/q.err")" "1 1"
# while: at most 32 rounds; a condition still true after them is a
# run-time error at the while, naming its place, and the rest of the block
# is skipped (the I/Os of more than 32 sectors count nowhere)
printf 't:block:block_rq_issue {\n\t$i = 0;\n\twhile ($i < args.nr_sector) { $i++; }\n\t@n[$i] = count();\n}\n' >"$T/w.bt"
"$B/vxreplay" "$T/t.vxt" --script "$T/w.bt" >"$T/w.out" 2>"$T/w.err" || fail "w.bt"
expect_eq "while: the rounds run" "$(grep '^@n\[' "$T/w.out" | sort)" \
	"$(awk -F, '$3 == "start" && $7 / 512 <= 32 { n[$7 / 512]++ }
		END { for (k in n) printf "@n[%d]: %d\n", k, n[k] }' "$T/ev.csv" | sort)"
expect_eq "while: past 32 rounds, an error at the while" \
	"$(grep -c "first error: ERROR: while loop still running after 32 rounds (the bound of a loop) at $T/w.bt:3:2, probe t:block:block_rq_issue" "$T/w.err")" 1
expect_eq "while: the I/Os past the bound exist" \
	"$(awk -F, '$3 == "start" && $7 / 512 > 32' "$T/ev.csv" | head -1 | wc -l)" 1

# hist(v, k): 2^k buckets per power of 2 (bpftrace 0.21's)
printf 'tracepoint:block:block_rq_issue { @a = hist(args.sector %% 100000, 2); }\nt:block:block_io_done { @b = hist(args.bytes, 5); }\n' >"$T/hk.bt"
"$B/vxreplay" "$T/t.vxt" --script "$T/hk.bt" >"$T/hk.out" 2>"$T/hk.err" || fail "hk.bt: $(cat "$T/hk.err")"
awk '/^@a: $/ { on = 1; next } /^$/ { on = 0 } on' "$T/hk.out" >"$T/hka.out"
awk '/^@b: $/ { on = 1; next } /^$/ { on = 0 } on' "$T/hk.out" >"$T/hkb.out"
expect_eq "hist(args.sector % 100000, 2): rows" "$(rows "$T/hka.out")" \
	"$(awk -F, '$3 == "start" { print $6 % 100000 }' "$T/ev.csv" | histk 2)"
expect_eq "hist(args.bytes, 5): rows" "$(rows "$T/hkb.out")" \
	"$(awk -F, '$3 == "done" { print $7 }' "$T/ev.csv" | histk 5)"
expect_eq "hist(v, 6): refused" "$(printf 't:block:block_rq_issue { @ = hist(args.bytes, 6); }\n' >"$T/h6.bt"
	"$B/vxreplay" "$T/t.vxt" --script "$T/h6.bt" 2>&1 >/dev/null)" \
	"vxreplay: $T/h6.bt:1:47: ERROR: hist: bits argument must be in range 0-5"

finish
