#!/bin/sh
# bad_input.sh - every bad input gets one clear line and a non-zero exit
. "$VXT_TOP/tests/lib.sh"

"$B/vxrecord" --source sim -c 50000 -o "$T/t.vxt" -q
size=$(stat -c %s "$T/t.vxt")

expect_fail "missing file" 1 "$T/none.vxt: No such file" -- "$B/vxreplay" "$T/none.vxt"
echo "just some text that is long enough to be read as a header" >"$T/text.vxt"
expect_fail "not a vxt file" 1 "not a .vxt file" -- "$B/vxreplay" "$T/text.vxt"
expect_fail "bad option" 2 "unknown option .--bogus." -- "$B/vxreplay" "$T/t.vxt" --bogus
expect_fail "bad report" 2 "unknown report 'nope'" -- "$B/vxreplay" "$T/t.vxt" --report nope
expect_fail "bad time" 2 "bad time 'yesterday'" -- "$B/vxreplay" "$T/t.vxt" --from yesterday
expect_fail "unknown object" 2 "no object named 'sdz'" -- "$B/vxreplay" "$T/t.vxt" --objects sdz
expect_fail "existing output" 1 "file exists (use --force" -- "$B/vxrecord" --source sim -c 10 -o "$T/t.vxt"
expect_fail "unwritable output" 1 "/nonexistent/x.vxt: No such file" -- "$B/vxrecord" --source sim -c 10 -o /nonexistent/x.vxt
expect_fail "unknown source" 2 "unknown source 'floppy'" -- "$B/vxrecord" --source floppy -o "$T/u.vxt"
expect_fail "bad sim spec" 2 "sim object 'sda:zigzag'" -- "$B/vxrecord" --source sim --sim-objects sda:zigzag -o "$T/v.vxt"
expect_fail "bad duration" 2 "bad duration '5 parsecs'" -- "$B/vxrecord" --source sim -d "5 parsecs" -o "$T/w.vxt"
expect_fail "no output" 2 "no output file" -- "$B/vxrecord" --source sim
ln -s "$T/target.vxt" "$T/link.vxt"
expect_fail "symlink output" 1 "refusing to follow" -- "$B/vxrecord" --source sim -c 10 -o "$T/link.vxt"

# a newer, incompatible version: set an unknown incompat bit (header offset 8+4+8)
set_header "$T/t.vxt" "$T/newer.vxt" 20 '<I' 0x80	# incompat
expect_fail "newer version" 1 "newer vxtrace" -- "$B/vxreplay" "$T/newer.vxt"

# truncated in the middle: opens, reads what came before, --verify names the offset
head -c $((size / 2)) "$T/t.vxt" >"$T/half.vxt"
"$B/vxreplay" "$T/half.vxt" --report summary --format json >"$T/half.json" 2>"$T/half.err" &&
	ok "truncated file opens" || fail "truncated file does not open"
grep -q "warning: torn chunk" "$T/half.err" && ok "torn chunk named" || fail "no torn warning: $(cat "$T/half.err")"
n=$(json "$T/half.json" 'j["events"]')
[ "$n" -gt 0 ] && [ "$n" -lt 50000 ] && ok "kept $n events before the damage" || fail "kept $n events"
expect_fail "verify truncated" 1 "damaged at offset [0-9]*: .*torn chunk" -- "$B/vxreplay" --verify "$T/half.vxt"

# a flipped bit in the middle: --verify names the chunk's offset
cp "$T/t.vxt" "$T/flip.vxt"
printf '\377' | dd of="$T/flip.vxt" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect_fail "verify bit flip" 1 "damaged at offset [0-9]*" -- "$B/vxreplay" --verify "$T/flip.vxt"
finish
