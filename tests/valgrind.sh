#!/bin/sh
# valgrind.sh - the command lines the CLI tests run, under valgrind: no memory
# error and no leak (definite or indirect) on the normal exits of vxrecord,
# vxreplay and vxtop, nor on a few refusals of bad input.
#   usage: tests/valgrind.sh [BUILD_DIR]     (default: build)
# Prints one line per command and a closing "N passed, N failed" line.
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
shared=${VXT_SHARED:-$top/../shared}
H=$top/tests/data/hostile
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind: not installed (apt-get install valgrind)"
	exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

# vg WANT_EXIT CMD...: run CMD under valgrind; valgrind's own verdict is exit 99
vg() {
	want=$1
	shift
	valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
		--log-file="$T/vg.log" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	name=$(echo "$*" | sed "s|$B/||; s|$T/||g; s|$H/||g; s|$top/||g")
	if [ $rc -eq "$want" ] && [ ! -s "$T/vg.log" ]; then
		pass=$((pass + 1))
		echo "PASS: $name"
	else
		fail=$((fail + 1))
		echo "FAIL: $name (exit $rc, want $want)"
		sed 's/^/    /' "$T/vg.log" "$T/err" | head -n 40
	fi
}

# vxrecord: simulator (plain, sync, realtime, rotation), import, refusals
vg 0 "$B/vxrecord" -q --source sim --seed 42 --rate 20000 -d 2s -o "$T/t.vxt"
vg 0 "$B/vxrecord" -q --source sim --seed 3 -c 10000 --sync -l 9 -o "$T/s.vxt"
vg 0 "$B/vxrecord" -q --source sim --realtime --rate 5000 -d 1200ms -o "$T/rt.vxt"
vg 0 "$B/vxrecord" -q --source sim --rate 2000 -c 12000 --rotate 10K --keep 2 -o "$T/r.vxt"
vg 0 "$B/vxrecord" --source sim -c 5000 -o "$T/loud.vxt"
vg 1 "$B/vxrecord" -q --source sim -c 10 -o "$T/t.vxt"
vg 0 "$B/vxrecord" -q --source sim --seed 7 -c 20000 --profile errors-in-context -o "$T/p.vxt"
vg 0 "$B/vxrecord" --source sim --seed 7 -c 20000 --profile slow-io -o "$T/p2.vxt"
vg 2 "$B/vxrecord" -q --source sim -c 10 --profile nope -o "$T/p3.vxt"
[ -c /dev/full ] && vg 1 "$B/vxrecord" -q --source sim -c 10 -f -o /dev/full
vg 2 "$B/vxrecord" --source sim -d "5 parsecs" -o "$T/w.vxt"
if [ -f "$shared/data/blktrace/centos7-sda/sda.blktrace.0" ]; then
	vg 0 "$B/vxrecord" -q --import blktrace "$shared/data/blktrace/centos7-sda/sda" -o "$T/b.vxt"
fi

# vxreplay: every batch report and export, both index paths, damage
head -c $(($(wc -c <"$T/t.vxt") - 24)) "$T/t.vxt" >"$T/nofooter.vxt"
for f in "$T/t.vxt" "$T/nofooter.vxt"; do
	vg 0 "$B/vxreplay" --info "$f"
	vg 0 "$B/vxreplay" --verify "$f"
done
for r in summary objects errors events; do
	for fmt in text json csv; do
		vg 0 "$B/vxreplay" "$T/t.vxt" --report $r --format $fmt
	done
done
vg 0 "$B/vxreplay" "$T/nofooter.vxt" --report events --format csv
vg 0 "$B/vxreplay" "$T/t.vxt" --report events --format csv --from 1 --to +1s --objects sdb
vg 0 "$B/vxreplay" "$T/t.vxt" --report html -o "$T/r.html"
for x in csv jsonl chrome blktrace; do
	vg 0 "$B/vxreplay" "$T/t.vxt" --export $x -o "$T/x.$x"
done
vg 0 "$B/vxreplay" --verify "$T/r.vxt"
# profiles, speculation and filters; refusals of broken ones
for p in errors-in-context slow-io per-process writes-only hot-lba; do
	vg 0 "$B/vxreplay" "$T/t.vxt" --profile $p --report summary
done
vg 0 "$B/vxreplay" "$T/t.vxt" --profile errors-in-context --report events --format csv
vg 0 "$B/vxreplay" "$T/t.vxt" --profile slow-io --export chrome -o "$T/x.json"
vg 0 "$B/vxreplay" "$T/t.vxt" --filter 'op == write && object ~ "sd*" && latency > 1ms' \
	--report summary --format json
vg 2 "$B/vxreplay" "$T/t.vxt" --filter 'bytes >' --report summary
for p in alias-bomb both deep speculate-twice; do
	[ -f "$top/tests/profiles-bad/$p.yaml" ] &&
		vg 2 "$B/vxreplay" "$T/t.vxt" --profile "$top/tests/profiles-bad/$p.yaml" --report summary
done
vg 1 "$B/vxreplay" --verify "$H/torn-data"
vg 1 "$B/vxreplay" --verify "$H/chunk-data-junk"
vg 1 "$B/vxreplay" "$H/hdr-objects-4g" --report summary
vg 2 "$B/vxreplay" "$T/t.vxt" --objects sdz
vg 2 "$B/vxreplay" "$T/t.vxt" --report nope

# vxtop: batch output from the simulator and from a file
vg 0 "$B/vxtop" -b -c 2 -i 300ms -s sim --rate 10000 -o "$T/w.vxt"
vg 0 "$B/vxtop" -b -c 2 -i 300ms -F json -s sim --seed 3 --rate 20000
vg 0 "$B/vxtop" -b -c 1 --follow "$T/w.vxt"
vg 0 "$B/vxtop" -b -c 2 -i 300ms -s sim --seed 3 --rate 20000 --profile errors-in-context
vg 2 "$B/vxtop" -b --format xml

echo "valgrind: $pass passed, $fail failed"
[ $fail -eq 0 ]
