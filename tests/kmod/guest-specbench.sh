# guest-specbench.sh - the cost of keeping errors in context, in one boot:
# fio 4 KiB random reads (psync, full rate) on a null_blk with bad blocks (1
# read in ~10 000 fails), run by tests/bench/kmod-spec.sh inside the guest.
# Modes: none, full (vxrecord of every event), user (errors-in-context run
# by vxrecord in user space), kernel (the same profile run in the module),
# blktrace. All five run ROUNDS times, alternating, so that the IOPS of
# each round compare runs made seconds apart. Each run also says the guest's busy CPU time (/proc/stat,
# both CPUs, all tasks: fio, the kernel, vxrecord or blktrace) and the
# I/Os fio made. Then check: a full and a kernel-speculating vxrecord at
# once on the same I/O: the bytes each read from its channel (the module's
# read_bytes, by kind of record), the errors fio saw against its I/Os and
# the errors in the full trace, and the profile applied offline to the
# full file compared with the kernel's file; then the check's windows
# counted by brute force over the full trace against the events the module
# sent, and the share the window and the error rate predict (windows()).
# Prints "SPECBENCH" lines.

M=/modules
RUNTIME=${RUNTIME:-2}
ROUNDS=${ROUNDS:-9}
CHECK_SECONDS=${CHECK_SECONDS:-20}
PROFILE=${PROFILE:-errors-in-context}
P=/sys/module/vxtrace/parameters
insmod $M/configfs.ko
mount -t configfs none /sys/kernel/config
insmod $M/null_blk.ko nr_devices=0
insmod $M/vxtrace.ko
d=/sys/kernel/config/nullb/nullb0
mkdir $d && echo 1024 >$d/size && echo 512 >$d/blocksize
# 1 GiB = 262144 blocks of 4 KiB: 26 bad ones, every 10082nd
i=0
while [ $i -lt 26 ]; do
	s=$(((i * 10082 + 5000) * 8))
	echo "+$s-$((s + 7))" >$d/badblocks
	i=$((i + 1))
done
echo 1 >$d/power
while [ ! -b /dev/nullb0 ]; do sleep 0.1; done
echo none >/sys/block/nullb0/queue/scheduler
# The same profile with a trigger the kernel program does not parse: it
# runs in user space, with the same meaning.
mkdir -p /tmp/prof
cp /profiles/*.yaml /tmp/prof/
sed "s/^  on: error\$/  on: error != 0 \&\& error != 0/; s/^name: .*/name: $PROFILE-user/" \
	/profiles/$PROFILE.yaml >/tmp/prof/$PROFILE-user.yaml

# busy: the guest's busy clock ticks so far, all CPUs (/proc/stat: all but
# idle and iowait)
busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
hz=100

# fio_run SEED [SECONDS]: fio's terse line, then its JSON; FIO_BUSY is left
# with the busy ticks of the run
fio_run() {
	b0=$(busy)
	fio --name=sb --filename=/dev/nullb0 --direct=1 --rw=randread --bs=4k \
		--ioengine=psync --numjobs=1 --time_based --runtime="${2:-$RUNTIME}" \
		--randseed=$1 --continue_on_error=read --output-format=terse,json \
		>/tmp/fio.out 2>/dev/null
	FIO_BUSY=$(($(busy) - b0))
}
# IOPS from fio's terse line (field 8); I/Os and errors from its JSON
fio_iops() { grep '^3;' /tmp/fio.out | head -n 1 | cut -d';' -f8; }
fio_json() { grep -o "\"$1\" : [0-9]*" /tmp/fio.out | head -n 1 | grep -o '[0-9]*$'; }
# what every run prints: IOPS, I/Os, errors fio saw, busy CPU seconds
fio_line() {
	echo "iops=$(fio_iops) ios=$(fio_json total_ios) fio_errors=$(fio_json total_err)" \
		"busy_s=$(awk -v t="$FIO_BUSY" -v h=$hz 'BEGIN { printf "%.2f", t / h }')"
}

wait_chan() {
	i=0
	while [ "$(cat $P/tracing_channels)" != "$1" ] && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
}

# cpu PID: user+system clock ticks so far (vxrecord's start-up, a second
# or two of the guest's time, is left out: only the run beside fio counts)
cpu() { awk '{ print $14 + $15 }' /proc/$1/stat 2>/dev/null; }

# rd KIND: bytes read from channels since load (read_bytes: plain, spec_io,
# spec_stats, spec_horizon, spec_other)
rd() {
	awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' $P/read_bytes
}
rd_all() { echo "$(rd plain) $(rd spec_io) $(rd spec_stats) $(rd spec_horizon) $(rd spec_other)"; }
# rd_delta "BEFORE" "AFTER": the same five, as key=value differences
rd_delta() {
	echo "$1 $2" | awk '{ printf "read_plain=%d read_io=%d read_stats=%d read_horizon=%d read_other=%d",
		$6 - $1, $7 - $2, $8 - $3, $9 - $4, $10 - $5 }'
}

rec() {	# rec NAME OUT SEED ARGS...: one vxrecord run beside fio
	name=$1 out=$2 seed=$3
	shift 3
	r0=$(rd_all)
	vxrecord -q -f --source kmod --objects nullb0 --profile-dir /tmp/prof "$@" \
		-o "$out" 2>/tmp/$name.err &
	p=$!
	wait_chan 1
	sleep 1		# as long as blktrace is given to start
	t0=$(cpu $p)
	fio_run $seed
	sleep 0.3
	t=$(($(cpu $p) - t0))
	st=$(cat $P/spec_stats)
	kill -INT $p
	wait $p
	ev=$(vxreplay "$out" --report summary --format json | grep -o '"events": [0-9]*' |
		grep -o '[0-9]*$')
	er=$(vxreplay "$out" --report summary --format json | grep -o '"errors": [0-9]*' |
		grep -o '[0-9]*$')
	echo "SPECBENCH $name $(fio_line) cpu_s=$(awk -v t="$t" -v h=$hz 'BEGIN { printf "%.2f", t / h }') events=$ev errors=$er $(rd_delta "$r0" "$(rd_all)") spec=[$st] $(tail -n 1 /tmp/$name.err)"
}

blk() {	# blk SEED: fio beside blktrace
	mkdir -p /tmp/bt
	blktrace -d /dev/nullb0 -D /tmp/bt >/tmp/bt.out 2>&1 &
	p=$!
	sleep 1
	fio_run $1
	kill -INT $p
	wait $p
	echo "$(fio_line) bytes=$(cat /tmp/bt/* | wc -c)"
	rm -rf /tmp/bt
}

# spec_n NAME: counter NAME of spec_stats (all speculations since load)
spec_n() { awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' $P/spec_stats; }
# ns VALUE: a profile's duration (200ms, 1s, 50us) in ns
ns() { echo "$1" | awk '{ v = $1 + 0; u = $1; sub(/^[0-9.]+/, "", u)
	print v * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }'; }
# windows: the check's windows counted by brute force over the full trace
# (one object), beside what the module sent: U events in the union of the
# windows [error - before, error + after], S the sum of each error's own
# window (S - U: events of overlapping windows, which a commit must not
# send twice), kept_module the events the module sent (spec_stats kept).
# And the share the window and the error rate give: p = errors / I/Os,
# n = IOPS x (before + after) I/Os whose error would claim an event:
# linear p x n, with overlaps 1 - (1 - p)^n, and the same with n counted
# around each event of the trace (the I/O rate as it varied).
# Time windows only: a window by count prints none.
windows() {
	pf=/profiles/$PROFILE.yaml
	if grep -q '^  before_events:\|^  after_events:' $pf; then
		echo "SPECBENCH windows skipped: windows by count"
		return
	fi
	bw=$(ns "$(sed -n 's/^  before: *//p' $pf)")
	aw=$(ns "$(sed -n 's/^  after: *//p' $pf)")
	vxreplay /tmp/ck-full.vxt --report events --format csv | tail -n +2 |
		sort -t, -k1,1n >/tmp/ck-sorted.csv
	awk -F, -v bw="$bw" -v aw="$aw" -v kept="$kept" '
		{ n++; t[n] = $1 + 0; if ($3 == "done") { d[n] = 1; nd++; if ($9 != 0) { e[++ne] = n } } }
		END {
			for (k = 1; k <= ne; k++) {
				i = e[k]
				for (j = i; j >= 1 && t[j] >= t[i] - bw; j--) { in_w[j] = 1; S++ }
				for (j = i + 1; j <= n && t[j] <= t[i] + aw; j++) { in_w[j] = 1; S++ }
			}
			for (j = 1; j <= n; j++) U += in_w[j]
			p = nd ? ne / nd : 0
			iops = n > 1 ? nd / ((t[n] - t[1]) / 1e9) : 0
			nw = iops * (bw + aw) / 1e9
			# completions within [t - after, t + before] of each event
			# (1 - p)^k by products: the guest busybox awk has no exp() or log()
			pw[0] = 1; top = 0
			while (top < nw) { top++; pw[top] = pw[top - 1] * (1 - p) }
			lo = 1; hi = 0; c = 0; m = 0
			for (j = 1; j <= n; j++) {
				while (hi < n && t[hi + 1] <= t[j] + bw) { hi++; c += d[hi] }
				while (lo <= hi && t[lo] < t[j] - aw) { c -= d[lo]; lo++ }
				while (top < c) { top++; pw[top] = pw[top - 1] * (1 - p) }
				m += 1 - pw[c]
			}
			printf "SPECBENCH windows events=%d errors=%d dones=%d before_ns=%d after_ns=%d union=%d sum=%d overlap=%d kept_module=%d share=%.5f iops=%.0f n_window=%.0f model_linear=%.5f model_union=%.5f model_timeline=%.5f\n", n, ne, nd, bw, aw, U, S, S - U, kept, n ? U / n : 0, iops, nw, p * nw, 1 - pw[int(nw + 0.5)], n ? m / n : 0
		}' /tmp/ck-sorted.csv
}

have_bt=0
command -v blktrace >/dev/null 2>&1 && have_bt=1
# Alternating rounds: none, full, user, kernel, blktrace, each from the same seed.
r=1
while [ $r -le $ROUNDS ]; do
	fio_run $r
	echo "SPECBENCH round=$r none $(fio_line)"
	rec full /tmp/full.vxt $r | sed "s/^SPECBENCH /SPECBENCH round=$r /"
	rec user /tmp/user.vxt $r --profile $PROFILE-user | sed "s/^SPECBENCH /SPECBENCH round=$r /"
	rec kernel /tmp/kern.vxt $r --profile $PROFILE | sed "s/^SPECBENCH /SPECBENCH round=$r /"
	if [ $have_bt = 1 ]; then
		echo "SPECBENCH round=$r blktrace $(blk $r)"
	else
		echo "SPECBENCH round=$r blktrace skipped: not in the guest"
	fi
	r=$((r + 1))
done

# check: both at once on the same I/O, CHECK_SECONDS long (errors are rare)
r0=$(rd_all)
kept0=$(spec_n kept)
vxrecord -q -f --source kmod --objects nullb0 --profile-dir /profiles --profile $PROFILE \
	-o /tmp/ck-kern.vxt 2>/tmp/ck-kern.err &
k=$!
vxrecord -q -f --source kmod --objects nullb0 -o /tmp/ck-full.vxt 2>/tmp/ck-full.err &
f=$!
wait_chan 2
fio_run 100 $CHECK_SECONDS
ckfio="ck_ios=$(fio_json total_ios) ck_fio_errors=$(fio_json total_err)"
sleep 0.3
kill -INT $k $f
wait $k
wait $f
rdd=$(rd_delta "$r0" "$(rd_all)")
kept=$(($(spec_n kept) - kept0))
vxreplay /tmp/ck-full.vxt --profile-dir /profiles --profile $PROFILE --report events \
	--format csv | cut -d, -f1-10,13 >/tmp/ck-user.csv
vxreplay /tmp/ck-kern.vxt --report events --format csv | cut -d, -f1-10,13 >/tmp/ck-kern.csv
ef=$(vxreplay /tmp/ck-full.vxt --report events --format csv | awk -F, '$3 == "done" && $9 != 0' | wc -l)
eu=$(awk -F, '$3 == "done" && $9 != 0' /tmp/ck-user.csv | wc -l)
ek=$(awk -F, '$3 == "done" && $9 != 0' /tmp/ck-kern.csv | wc -l)
nd=$(diff -U0 /tmp/ck-user.csv /tmp/ck-kern.csv | grep -c '^[-+][0-9]')
nf=$(vxreplay /tmp/ck-full.vxt --report summary --format json | grep -o '"events": [0-9]*' |
	grep -o '[0-9]*$')
echo "SPECBENCH check errors_full=$ef errors_offline=$eu errors_kernel=$ek events_full=$nf rows_offline=$(($(wc -l </tmp/ck-user.csv) - 1)) rows_kernel=$(($(wc -l </tmp/ck-kern.csv) - 1)) differing_rows=$nd $ckfio starts_full=$(vxreplay /tmp/ck-full.vxt --report events --format csv | awk -F, '$3 == "start"' | wc -l) $rdd"
windows
rmmod vxtrace
