#!/bin/sh
# bt_ebpf.sh - bpftrace's block tools, unmodified, on an ebpf `--phases all`
# recording of fio on a loop device: biolatency.bt (block_bio_queue to
# completion, a histogram), biosnoop.bt (block_io_start to block_io_done,
# a line per I/O) and bitesize.bt (block_rq_issue sizes per command),
# each against awk over the recording's CSV export (queue, getrq, start and
# done events paired by hand).
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
. "$VXT_TOP/tests/cli/bt_hist.inc"
need_ebpf
. "$VXT_TOP/tests/cli/ebpf_lost.inc"
tools="$VXT_TOP/../shared/data/dscripts"
[ -r "$tools/bt_biolatency.bt" ] && [ -r "$tools/bt_biosnoop.bt" ] ||
	skip "no ../shared/data/dscripts (bpftrace's biolatency.bt and biosnoop.bt)"
make_loop 64M
echo 2 >"/sys/block/$LNAME/queue/nomerges" || skip "cannot turn off merges on $LNAME"
for attempt in 1 2 3; do
	rm -f "$T/e.vxt"
	start_rec "$T/e.vxt" --source ebpf --phases all --objects "$LNAME" || finish
	fio --name=bt --filename="$LOOP" --direct=1 --rw=randrw --bsrange=4k-64k --ioengine=libaio \
		--iodepth=8 --number_ios=3000 --size=64M --output-format=json \
		>"$T/fio.json" 2>"$T/fio.err" || fail "fio: $(cat "$T/fio.err")"
	sleep 0.5
	stop_rec INT
	expect_eq "vxrecord exit status" "$RC" 0
	[ "$(lost_in "$T/e.vxt")" -eq 0 ] && break
	echo "capture $attempt: $(lost_in "$T/e.vxt") lost"
done
"$B/vxreplay" "$T/e.vxt" --export csv >"$T/ev.csv" || fail "csv"
N=$(json "$T/fio.json" 'j["jobs"][0]["read"]["total_ios"] + j["jobs"][0]["write"]["total_ios"]')
expect_eq "fio's I/Os issued" "$(awk -F, '$3 == "start"' "$T/ev.csv" | wc -l)" $N
set -- $(tr : ' ' <"/sys/block/$LNAME/dev")
major=$1 minor=$2

# biolatency.bt: queue to completion by sector, in microseconds
"$B/vxreplay" "$T/e.vxt" --script "$tools/bt_biolatency.bt" >"$T/lat.out" 2>"$T/lat.err" ||
	fail "biolatency.bt: $(cat "$T/lat.err")"
expect_eq "biolatency.bt: no warning" "$(cat "$T/lat.err")" ""
expect_eq "biolatency.bt: @usecs" "$(rows <"$T/lat.out")" \
	"$(awk -F, '$3 == "queue" { st[$6] = $1 }
		$3 == "done" && st[$6] { print int(($1 - st[$6]) / 1000); delete st[$6] }' "$T/ev.csv" |
	   hist)"

# biosnoop.bt: a line per I/O from its getrq (block_io_start) to its completion
"$B/vxreplay" "$T/e.vxt" --script "$tools/bt_biosnoop.bt" >"$T/snoop.out" 2>"$T/snoop.err" ||
	fail "biosnoop.bt: $(cat "$T/snoop.err")"
expect_eq "biosnoop.bt: no warning" "$(cat "$T/snoop.err")" ""
grep -v '^Attaching\|^TIME\|^  *MAJOR\|^$' "$T/snoop.out" >"$T/snoop.got"
awk -F, -v ma="$major" -v mi="$minor" '
	$3 == "getrq" { k = $6; st[k] = $1; pid[k] = $11; cm[k] = $12 }
	$3 == "done" && ($6 in st) { k = $6
		printf "%-12u %-5d %-8d %-16s %-6d %7d\n", int($15 / 1e6), ma, mi, cm[k], pid[k],
			int(($1 - st[k]) / 1e6)
		delete st[k]; delete pid[k]; delete cm[k] }' "$T/ev.csv" >"$T/snoop.want"
expect_eq "biosnoop.bt: a line per I/O" "$(wc -l <"$T/snoop.got")" $N
expect_eq "biosnoop.bt: the lines" "$(diff "$T/snoop.got" "$T/snoop.want" | head -5 || :)" ""

# bitesize.bt (bpftrace's tools/bitesize.bt)
cat >"$T/bitesize.bt" <<'EOF'
BEGIN
{
	printf("Tracing block device I/O... Hit Ctrl-C to end.\n");
}

tracepoint:block:block_rq_issue
{
	@[args.comm] = hist(args.bytes);
}

END
{
	printf("\nI/O size (bytes) histograms by process name:");
}
EOF
"$B/vxreplay" "$T/e.vxt" --script "$T/bitesize.bt" >"$T/size.out" 2>"$T/size.err" ||
	fail "bitesize.bt: $(cat "$T/size.err")"
for c in $(sed -n 's/^@\[\(.*\)\]: $/\1/p' "$T/size.out"); do
	got=$(awk -v c="$c" '/^@\[/ { on = ($0 == "@[" c "]: ") } on' "$T/size.out" | rows)
	want=$(awk -F, -v c="$c" '$3 == "start" && $12 == c { print $7 }' "$T/ev.csv" | hist)
	expect_eq "bitesize.bt: @[$c]" "$got" "$want"
done
expect_eq "bitesize.bt: the commands" "$(sed -n 's/^@\[\(.*\)\]: $/\1/p' "$T/size.out" | sort)" \
	"$(awk -F, '$3 == "start" { print $12 }' "$T/ev.csv" | sort -u)"
finish
