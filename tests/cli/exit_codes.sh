#!/bin/sh
# exit_codes.sh - one rule for vxrecord, vxreplay and vxtop (README "Exit
# status"): 0 success, 1 a failure while capturing, reading or writing, 2 bad
# usage (an unknown option or value, source, profile, object, a bad filter
# expression, an impossible time range). Each failure prints one line that
# names what is wrong. Checked command by command.
. "$VXT_TOP/tests/lib.sh"

"$B/vxrecord" -q --source sim --seed 4 -c 3000 -o "$T/t.vxt" || fail "record"
mkdir "$T/dir"
echo "not a trace" >"$T/text.vxt"
rec() { "$B/vxrecord" -q "$@"; }
rep() { "$B/vxreplay" "$@"; }
top() { timeout 20 "$B/vxtop" -b -c 1 -i 100ms "$@" </dev/null; }
end=$(rep "$T/t.vxt" --report events --format csv | awk -F, 'NR > 1 { t = $1 } END { print t }')
first=$(rep "$T/t.vxt" --report events --format csv | awk -F, 'NR == 2 { print $1 }')
last_s=$(awk -v a="$first" -v b="$end" 'BEGIN { printf "%.9f", (b - a) / 1e9 }')

# -- 0: success
rep "$T/t.vxt" --report summary >/dev/null && ok "vxreplay report: 0" || fail "vxreplay report"
rec --source sim -c 10 -o "$T/ok.vxt" && ok "vxrecord: 0" || fail "vxrecord"
top --source sim >/dev/null && ok "vxtop -b: 0" || fail "vxtop -b"
rep "$T/t.vxt" --report summary --filter 'bytes > 1G' >/dev/null &&
	ok "a filter matching nothing is no error: 0" || fail "empty filter result"

# -- 2: usage, the same in every program
for p in vxrecord vxreplay vxtop; do
	expect_fail "$p: unknown option" 2 "$p: unknown option '--bogus'" -- "$B/$p" --bogus
done
expect_fail "vxrecord: unknown source" 2 "vxrecord: unknown source 'floppy'" -- \
	rec --source floppy -o "$T/u.vxt"
expect_fail "vxtop: unknown source" 2 "vxtop: unknown source 'floppy'" -- top --source floppy
expect_fail "vxrecord: bad simulator spec" 2 "sim object 'a:zz'" -- \
	rec --source sim --sim-objects a:zz -o "$T/u.vxt"
expect_fail "vxtop: bad simulator spec" 2 "sim object 'a:zz'" -- top --source sim --sim-objects a:zz
expect_fail "vxrecord: unknown profile" 2 "vxrecord: no profile 'nope' in" -- \
	rec --source sim -c 10 --profile nope -o "$T/u.vxt"
expect_fail "vxreplay: unknown profile" 2 "vxreplay: no profile 'nope' in" -- \
	rep "$T/t.vxt" --profile nope --report summary
expect_fail "vxtop: unknown profile" 2 "vxtop: no profile 'nope' in" -- top --source sim --profile nope
[ -e "$T/u.vxt" ] && fail "a refused vxrecord left its output" || ok "no output left by a refusal"
expect_fail "vxreplay: bad --filter" 2 "filter:1:8: expected a value after '>'" -- \
	rep "$T/t.vxt" --filter 'bytes >' --report summary
expect_fail "vxtop: bad --filter" 2 "filter:1:8: expected a value after '>'" -- \
	top --source sim --filter 'bytes >'
expect_fail "vxreplay: --from after --to" 2 "--to 2s is before --from 5s" -- \
	rep "$T/t.vxt" --from 5s --to 2s
expect_fail "vxreplay: --from past the end" 2 "--from 100: past the end of the trace (its last event is at $last_s)" -- \
	rep "$T/t.vxt" --from 100
expect_fail "vxreplay: --from past the end, an export" 2 "past the end of the trace" -- \
	rep "$T/t.vxt" --from 100 --export csv
expect_fail "vxreplay: unknown object" 2 "no object named 'sdz'" -- rep "$T/t.vxt" --objects sdz
# --objects: a list naming no device, or a device this system lacks, is bad
# usage; the message says which names the list may hold (a sysfs of two disks)
mkdir -p "$T/sys/class/block/vxq0" "$T/sys/class/block/vxq1" "$T/sys/dev/block/8:0"
echo 8:0 >"$T/sys/class/block/vxq0/dev"
echo 8:16 >"$T/sys/class/block/vxq1/dev"
for l in "" ",,," " , " "vxq0,nosuch"; do
	expect_fail "vxrecord -O '$l'" 2 "block devices here: vxq0, vxq1)" -- \
		env VXT_SYSFS="$T/sys" "$B/vxrecord" -q --source sim -c 10 -O "$l" -o "$T/u.vxt"
	expect_fail "vxrecord --objects '$l'" 2 "block devices here: vxq0, vxq1)" -- \
		env VXT_SYSFS="$T/sys" "$B/vxrecord" -q --source sim -c 10 --objects="$l" -o "$T/u.vxt"
	expect_fail "vxtop -O '$l'" 2 "block devices here: vxq0, vxq1)" -- \
		env VXT_SYSFS="$T/sys" timeout 20 "$B/vxtop" -b -c 1 -i 100ms --source sim -O "$l"
	expect_fail "vxreplay -O '$l'" 2 "(its objects: sda, sdb, nvme0n1, dm-0)" -- \
		rep "$T/t.vxt" -O "$l"
done
expect_fail "vxrecord -O: an unknown name" 2 "object 'nosuch': no such block device" -- \
	env VXT_SYSFS="$T/sys" "$B/vxrecord" -q --source sim -c 10 -O vxq1,nosuch -o "$T/u.vxt"
VXT_SYSFS="$T/sys" "$B/vxrecord" -q --source sim -c 10 -O vxq1,8:0 -o "$T/u.vxt" &&
	ok "vxrecord -O of known names: 0" || fail "vxrecord -O of known names"
rm -f "$T/u.vxt"
expect_fail "vxreplay: bad time" 2 "--from: bad time 'soon'" -- rep "$T/t.vxt" --from soon
expect_fail "vxreplay: no file" 2 "no trace file given" -- rep --report summary
expect_fail "vxrecord: no output" 2 "no output file" -- rec --source sim
expect_fail "vxrecord: bad duration" 2 "bad duration '5 parsecs'" -- \
	rec --source sim -d "5 parsecs" -o "$T/u.vxt"
expect_fail "vxtop: -o with --follow" 2 "-o and --follow together" -- \
	top --follow "$T/t.vxt" -o "$T/u.vxt"

# -- 1: failures reading, writing or capturing
expect_fail "vxreplay: a directory" 1 "vxreplay: $T/dir: a directory without .vxt files" -- \
	rep "$T/dir"
expect_fail "vxreplay --info: a directory" 1 "$T/dir: a directory without .vxt files" -- \
	rep --info "$T/dir"
expect_fail "vxrecord -o a directory" 1 "vxrecord: $T/dir: is a directory" -- \
	rec --source sim -c 10 -o "$T/dir"
expect_fail "vxreplay: a missing file" 1 "$T/none.vxt: No such file or directory" -- rep "$T/none.vxt"
expect_fail "vxreplay: not a trace" 1 "not a .vxt file" -- rep "$T/text.vxt"
expect_fail "vxrecord: existing output" 1 "file exists (use --force to overwrite)" -- \
	rec --source sim -c 10 -o "$T/t.vxt"
expect_fail "vxreplay: existing output" 1 "file exists (use --force to overwrite)" -- \
	rep "$T/t.vxt" --report summary -o "$T/ok.vxt"
expect_fail "vxtop: a missing followed file" 1 "$T/none.vxt: No such file or directory" -- \
	top --follow "$T/none.vxt"

# -- 1: stdout that takes nothing (a full disk), whatever went to it
if [ -c /dev/full ]; then
	full() { "$@" >/dev/full; }
	printf 'io:::done { printf("%%d\\n", bytes); }\n' >"$T/p.d"
	for a in "--help" "-V" "--source sim -c 3000 -o $T/full.vxt -f --script $T/p.d -x quiet=1"; do
		# shellcheck disable=SC2086 # the words of $a are the arguments
		expect_fail "vxrecord $a > /dev/full" 1 "write error" -- full rec $a
	done
	for a in "--help" "-V" "--info" "--verify" "--report summary" "--report events --format csv" \
		"--export jsonl" "--sql 'select count(*) from events'" "--script $T/p.d"; do
		# shellcheck disable=SC2086
		eval "set -- $a"
		expect_fail "vxreplay $a > /dev/full" 1 "write error" -- \
			full rep "$T/t.vxt" "$@"
	done
	expect_fail "vxreplay --info of two files > /dev/full" 1 "write error" -- \
		full rep --info "$T/t.vxt" "$T/ok.vxt"
	for a in "--help" "-V" "--source sim" "--source sim -F json" "--follow $T/t.vxt"; do
		# shellcheck disable=SC2086
		expect_fail "vxtop -b $a > /dev/full" 1 "write error" -- full top $a
	done
	# a reader that goes away (| head) is no failure
	{ timeout 20 "$B/vxtop" -b -i 10ms -c 500 --source sim 2>"$T/pipe.err"; echo $? >"$T/pipe.rc"; } |
		head -1 >/dev/null
	expect_eq "vxtop -b | head -1: exit status" "$(cat "$T/pipe.rc")" 0
	expect_eq "vxtop -b | head -1: nothing said" "$(cat "$T/pipe.err")" ""
fi
finish
