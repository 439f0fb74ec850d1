#!/bin/sh
# comm_flood.sh - a process renaming itself (prctl PR_SET_NAME) before each of
# its I/Os cannot blind the recorder: tests/tools/comm_flood reads a loop
# device with O_DIRECT under 70000 names while vxrecord records it (tracefs,
# and ebpf when built and the kernel has BTF). The file verifies and reports;
# its string table stays within the 65536 names a file holds, every flood I/O
# is in it (under its own name, as "(many)", or under a block-layer worker's
# when the kernel issued it from one), and vxrecord counts the names
# it stored as "(many)". With --rotate, every rotated file verifies and holds
# only the names its own events use (the headers do not repeat one table).
# The references are counted from the events' CSV with awk.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
FLOOD=$B/tests/tools/comm_flood
[ -x "$FLOOD" ] || skip "no $FLOOD (make $FLOOD)"
N=70000		# more names than a file holds (VXT_FILE_STRINGS_MAX, 65536)
MAXS=65536
make_loop 64M

# flood OUT ARGS...: record the flood into OUT -> $T/rec.err
flood() {
	out=$1
	shift
	start_rec "$out" --objects "$LNAME" "$@" || return 1
	"$FLOOD" "$LOOP" $N 8 >"$T/flood.out" 2>"$T/flood.err" || fail "comm_flood: $(cat "$T/flood.err")"
	sleep 0.5
	stop_rec INT
	expect_eq "vxrecord $* exit status" "$RC" 0
}

# starts FILE: the flood's start events as "comm" lines -> stdout (a read
# the block layer issued from its own worker carries the worker's pid and
# name: "(worker)"; nothing else reads the device); the distinct command
# names of all the file's events -> $T/distinct
starts() {
	"$B/vxreplay" "$1" --report events --format csv 2>"$T/ev.err" |
		awk -F, -v obj="$LNAME" -v out="$T/distinct" -v pids="$(sed -n 's/^pid //p' "$T/flood.out")" '
			BEGIN { n = split(pids, p, "\n"); for (i = 1; i <= n; i++) flood[p[i]]; n = 0 }
			NR > 1 { if (!($12 in seen)) { seen[$12]; n++ } }
			NR > 1 && $2 == obj && $3 == "start" && $4 == "read" {
				if (!($11 in flood)) print "(worker)"
				else if ($12 ~ /^cf[0-9a-f]+-[0-9a-f]+$/ || $12 == "(many)") print $12
				else print "(wrong)"
			}
			END { print n + 0 > out }'
}

# check FILE SOURCE: one file of the whole flood
check() {
	"$B/vxreplay" "$1" --verify >"$T/verify" 2>&1 || fail "$2: --verify: $(cat "$T/verify")"
	"$B/vxreplay" "$1" --report summary --format json >"$T/sum.json" 2>"$T/sum.err" ||
		fail "$2: --report summary: $(cat "$T/sum.err")"
	lost=$(json "$T/sum.json" 'j["lost"]')
	starts "$1" >"$T/comm"
	! grep -q '^(wrong)$' "$T/comm" || fail "$2: $(grep -c '^(wrong)$' "$T/comm") flood reads under another name"
	named=$(grep -vc '^(many)$\|^(worker)$\|^(wrong)$' "$T/comm")
	many=$(grep -c '^(many)$' "$T/comm")
	worker=$(grep -c '^(worker)$' "$T/comm")
	[ "$worker" -le $((N / 20)) ] || fail "$2: $worker flood reads issued by the block layer's workers"
	distinct=$(cat "$T/distinct")
	[ "$distinct" -le $MAXS ] || fail "$2: $distinct distinct names in one file, over $MAXS"
	[ "$many" -gt 0 ] || fail "$2: no flood I/O stored as (many)"
	if [ "$lost" -eq 0 ]; then
		expect_eq "$2: flood reads recorded (named + (many) + by a worker)" $((named + many + worker)) $N
	else
		[ $((named + many + worker)) -le $N ] || fail "$2: more flood reads than issued"
	fi
	over=$(sed -n 's/^vxrecord: \([0-9]*\) command names past the .* were stored as (many)$/\1/p' "$T/rec.err")
	# a name is a read's, but blk-mq may issue a job's queued read from
	# another job's context, under that job's current name: a few names
	# then stand for two reads, and a worker's name may be one of them
	[ -n "$over" ] && [ "$over" -le $((many + worker)) ] && [ "$over" -ge $((many - many / 20)) ] ||
		fail "$2: vxrecord counted '${over:-no}' names as (many) for $many such reads"
	ok "$2: $named names kept, $many reads as (many) (vxrecord: $over), $worker issued by a worker, $distinct distinct names, lost $lost"
}

flood "$T/t.vxt" --source tracefs && check "$T/t.vxt" tracefs

if grep -q 'this build has no BPF programs' "$B/vxrecord"; then
	echo "ebpf: skipped (built without the ebpf source)"
elif [ ! -r /sys/kernel/btf/vmlinux ]; then
	echo "ebpf: skipped (the kernel has no BTF)"
else
	flood "$T/e.vxt" --source ebpf && check "$T/e.vxt" ebpf
fi

# rotated: every file reads, and holds only the names its events use
mkdir "$T/rot"
flood "$T/rot/r.vxt" --source tracefs --rotate 256K
nfiles=0 total=0 sum=0
for f in "$T"/rot/*.vxt; do
	nfiles=$((nfiles + 1))
	"$B/vxreplay" "$f" --verify >"$T/verify" 2>&1 || fail "rotated $(basename "$f"): $(cat "$T/verify")"
	n=$(starts "$f" | wc -l)
	total=$((total + n))
	sum=$((sum + $(stat -c %s "$f")))
done
[ "$nfiles" -ge 3 ] || fail "--rotate 256K made $nfiles files"
[ "$total" -le $N ] && [ "$total" -ge $((N * 9 / 10)) ] || fail "rotated files hold $total of $N flood reads"
# each file's header holds its own names only: all files together are not
# much more than the single file of the same flood (a table repeated in each
# header would be about nfiles / 2 times it)
single=$(stat -c %s "$T/t.vxt")
[ "$sum" -le $((single * 2)) ] || fail "rotated files: $sum bytes for a $single-byte single file"
ok "--rotate 256K: $nfiles files, every one verifies, $total flood reads, $sum bytes (single file $single)"
finish
