# guest-record.sh - vxrecord --source kmod checks, sourced by guest.sh when
# the programs are in the guest (the module is loaded, a fresh error ring)
# expect: record_default record_dd record_fio record_lost record_errors vxtop_kmod record_kspec
# expect: record_kspec_user record_kspec_flight record_kspec_pid record_kspec_slow
# expect: record_kspec_rate record_kspec_big

# json FILE KEY: the number after "KEY": in a one-line JSON object
json() { grep -o "\"$2\" *: *[0-9]*" "$1" | head -n 1 | grep -o '[0-9]*$'; }

# rec_start ARGS...: vxrecord in the background, once its channel traces
# (an I/O channel has selected its objects; an error channel is open)
rec_start() {
	vxrecord -q -f "$@" 2>/tmp/rec.err &
	REC=$!
	ready=tracing_channels
	case " $* " in *" --errors "*) ready=open_channels ;; esac
	i=0
	while [ "$(cat /sys/module/vxtrace/parameters/$ready)" = 0 ]; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 $REC 2>/dev/null; then
			cat /tmp/rec.err
			return 1
		fi
		sleep 0.1
	done
	return 0
}

# A reader is woken within a tick of the last event: give it that, then stop.
rec_stop() {
	sleep 0.3
	kill -INT $REC
	wait_for 60 $REC
}

# expect FILE KEY VALUE...: every KEY has VALUE; sets DIFF to what differs
expect() {
	f=$1
	shift
	DIFF=
	while [ $# -ge 2 ]; do
		v=$(json "$f" "$1")
		[ "$v" = "$2" ] || DIFF="$DIFF $1=$v(want $2)"
		shift 2
	done
	[ -z "$DIFF" ]
}

# kspec_start NAME OBJECTS PROFILE_DIR PROFILE: vxrecord running PROFILE in
# the module to /tmp/NAME-kern.vxt and a full trace of the same objects beside
# it to /tmp/NAME-full.vxt (KREC, FREC), once both channels trace
kspec_start() {
	vxrecord -q -f --source kmod --objects "$2" --profile-dir "$3" \
		--profile "$4" -o "/tmp/$1-kern.vxt" 2>"/tmp/$1-kern.err" &
	KREC=$!
	vxrecord -q -f --source kmod --objects "$2" -o "/tmp/$1-full.vxt" \
		2>"/tmp/$1-full.err" &
	FREC=$!
	i=0
	while [ "$(cat /sys/module/vxtrace/parameters/tracing_channels)" != 2 ] && [ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
}

# kspec_stop: the module's speculation counters in spec_line, then both
# recorders stopped (krc: the kernel one's exit status)
kspec_stop() {
	spec_line=$(cat /sys/module/vxtrace/parameters/spec_stats)
	sleep 0.3
	kill -INT $KREC $FREC
	wait_for 60 $KREC
	krc=$?
	wait_for 60 $FREC
}

# kspec_files NAME PROFILE_DIR PROFILE: the events of the profile applied
# offline to the full trace (/tmp/NAME-user.csv) and of the module's file
# (/tmp/NAME-kern.csv), in the columns the two must agree on; nk: the
# module's events, nf: the full trace's, ne: the failed completions kept
kspec_files() {
	vxreplay "/tmp/$1-full.vxt" --profile-dir "$2" --profile "$3" \
		--report events --format csv | cut -d, -f1-10,13 >"/tmp/$1-user.csv"
	vxreplay "/tmp/$1-kern.vxt" --report events --format csv |
		cut -d, -f1-10,13 >"/tmp/$1-kern.csv"
	nk=$(($(wc -l <"/tmp/$1-kern.csv") - 1))
	nf=$(vxreplay "/tmp/$1-full.vxt" --report summary --format json |
		grep -o '"events": [0-9]*' | grep -o '[0-9]*$')
	ne=$(awk -F, '$3 == "done" && $9 != 0' "/tmp/$1-kern.csv" | wc -l)
}

# kspec_agree NAME [EXT]: the module's recorder exited 0, its file says
# "speculation: kernel", and /tmp/NAME-user.EXT equals /tmp/NAME-kern.EXT
# (EXT: csv, or sorted for the sorted copies)
kspec_agree() {
	[ $krc = 0 ] && vxreplay "/tmp/$1-kern.vxt" --info | grep -q 'speculation: kernel' &&
		cmp -s "/tmp/$1-user.${2:-csv}" "/tmp/$1-kern.${2:-csv}"
}

# kspec_explain NAME [EXT]: after a failure, the module's file header and
# where the two files differ
kspec_explain() {
	vxreplay "/tmp/$1-kern.vxt" --info | head -6
	diff "/tmp/$1-user.${2:-csv}" "/tmp/$1-kern.${2:-csv}" | head -20
}

# The default source is kmod when /dev/vxtrace exists.
if vxrecord -q -f -o /tmp/def.vxt -c 1 -d 1s 2>/tmp/def.err &&
   vxreplay /tmp/def.vxt --report summary --format json | grep -q '"source": "kmod"'; then
	res PASS record_default "vxrecord picks the kmod source by default"
else
	res FAIL record_default "default source is not kmod: $(cat /tmp/def.err)"
fi

# dd: 500 direct 4 KiB reads and 200 direct 8 KiB writes on nullb0.
if rec_start --source kmod --objects nullb0 --bufsize 4M -o /tmp/dd.vxt; then
	dd if=/dev/nullb0 of=/dev/null bs=4k count=500 skip=1000 iflag=direct 2>/dev/null
	dd if=/dev/zero of=/dev/nullb0 bs=8k count=200 seek=3000 oflag=direct 2>/dev/null
	rec_stop
	vxreplay /tmp/dd.vxt --report summary --format json >/tmp/dd.json
	if expect /tmp/dd.json starts 700 ios 700 reads 500 writes 200 \
		bytes_read $((500 * 4096)) bytes_written $((200 * 8192)) errors 0 lost 0 \
		objects 1; then
		res PASS record_dd "dd 500 reads + 200 writes: starts, ios, reads, writes, bytes, 0 errors, 0 lost match"
	else
		res FAIL record_dd "summary differs:$DIFF"
		cat /tmp/dd.json
	fi
else
	res FAIL record_dd "vxrecord did not start"
fi

# fio: random 4 KiB reads and writes, compared with fio's own counts.
if rec_start --source kmod --objects /dev/nullb0 -o /tmp/fio.vxt; then
	fio --name=rec --filename=/dev/nullb0 --direct=1 --ioengine=psync --rw=randrw \
		--bs=4k --size=64m --number_ios=1500 --randseed=7 \
		--output-format=json >/tmp/fio.json 2>/tmp/fio.err
	rec_stop
	# fio's job JSON lists total_ios for read, write, trim, sync in turn
	fr=$(grep -o '"total_ios" : [0-9]*' /tmp/fio.json | sed -n 1p | grep -o '[0-9]*$')
	fw=$(grep -o '"total_ios" : [0-9]*' /tmp/fio.json | sed -n 2p | grep -o '[0-9]*$')
	vxreplay /tmp/fio.vxt --report summary --format json >/tmp/fio.sum
	if [ -n "$fr" ] && [ -n "$fw" ] && [ $((fr + fw)) -gt 0 ] &&
	   expect /tmp/fio.sum reads "$fr" writes "$fw" ios $((fr + fw)) \
		bytes $(((fr + fw) * 4096)) errors 0 lost 0; then
		res PASS record_fio "fio $fr reads + $fw writes: vxreplay summary agrees"
	else
		res FAIL record_fio "fio reads=$fr writes=$fw; summary differs:$DIFF"
		cat /tmp/fio.sum /tmp/fio.err
	fi
else
	res FAIL record_fio "vxrecord did not start"
fi

# A 256-byte ring under dd: the lost count reaches the file, and traced +
# lost = issued.
if rec_start --source kmod --objects nullb0 --bufsize 1 -o /tmp/lost.vxt; then
	dd if=/dev/nullb0 of=/dev/null bs=4k count=2000 iflag=direct 2>/dev/null
	rec_stop
	vxreplay /tmp/lost.vxt --report summary --format json >/tmp/lost.json
	st=$(json /tmp/lost.json starts)
	io=$(json /tmp/lost.json ios)
	lo=$(json /tmp/lost.json lost)
	if [ -n "$lo" ] && [ "$lo" -gt 0 ] && [ $((st + io + lo)) = 4000 ]; then
		res PASS record_lost "256-byte ring: $st starts + $io completions + $lo lost = 4000 issued"
	else
		res FAIL record_lost "starts=$st ios=$io lost=$lo (want a sum of 4000)"
	fi
else
	res FAIL record_lost "vxrecord did not start"
fi

# --errors: two saved errors from before the capture, one new during it.
dd if=/dev/nullb1 of=/dev/null bs=4k count=1 skip=$((BAD / 8)) iflag=direct 2>/dev/null
dd if=/dev/nullb1 of=/dev/null bs=4k count=1 skip=$((BAD / 8)) iflag=direct 2>/dev/null
if rec_start --source kmod --errors -o /tmp/err.vxt; then
	dd if=/dev/dm-0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
	rec_stop
	vxreplay /tmp/err.vxt --report summary --format json >/tmp/err.json
	if expect /tmp/err.json errors 3 lost 0 objects 2; then
		res PASS record_errors "--errors: 2 saved + 1 new error captured"
	else
		res FAIL record_errors "summary differs:$DIFF"
		cat /tmp/err.json
		echo "rq_errors $(cat /sys/module/vxtrace/parameters/rq_errors)"
		vxreplay /tmp/err.vxt --report events
	fi
else
	res FAIL record_errors "vxrecord did not start"
fi

# vxtop: the kmod source by default, batch JSON without a terminal; its
# intervals add up to the reads dd made on nullb0.
vxtop -b -c 4 -i 1s -F json --objects nullb0 </dev/null >/tmp/top.json 2>/tmp/top.err &
TOP=$!
i=0
while [ "$(cat /sys/module/vxtrace/parameters/tracing_channels)" = 0 ] && [ $i -lt 100 ] &&
      kill -0 $TOP 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
dd if=/dev/nullb0 of=/dev/null bs=4k count=1000 skip=5000 iflag=direct 2>/dev/null
wait_for 60 $TOP
rc=$?
# reads: the sum over the intervals of r_s x duration_s
reads=$(grep -o '"duration_s":[0-9.]*\|"r_s":[0-9.]*' /tmp/top.json |
	awk -F: '$1 == "\"duration_s\"" { d = $2 } $1 == "\"r_s\"" { n += $2 * d }
		END { printf "%d\n", n + 0.5 }')
nint=$(grep -o '"interval":' /tmp/top.json | wc -l)
if [ $rc = 0 ] && grep -q '"source":"kmod"' /tmp/top.json && [ "$nint" = 4 ] &&
   [ "$reads" = 1000 ]; then
	res PASS vxtop_kmod "vxtop -b picks the kmod source: 4 intervals, $reads reads on nullb0 as dd"
else
	res FAIL vxtop_kmod "exit $rc, $nint intervals, $reads reads (want 1000): $(cat /tmp/top.err)"
	cat /tmp/top.json
fi

# --profile errors-in-context on the kmod source runs in the module: beside
# it a full trace of the same I/O, the profile applied to it offline must
# give the same events (the task of a completion whose issue fell out of a
# window is not compared: the module sends completions of interrupt context
# without one). Then a profile the module cannot run says why and runs in
# user space.
kspec_start ks nullb1 /profiles errors-in-context
k=0
while [ $k -lt 4 ]; do
	dd if=/dev/nullb1 of=/dev/null bs=4k count=300 skip=$((1000 + k * 400)) iflag=direct 2>/dev/null
	sleep 0.3
	dd if=/dev/nullb1 of=/dev/null bs=4k count=1 skip=$((BAD / 8)) iflag=direct 2>/dev/null
	dd if=/dev/nullb1 of=/dev/null bs=4k count=50 skip=$((1300 + k * 400)) iflag=direct 2>/dev/null
	sleep 0.3
	k=$((k + 1))
done
kspec_stop
kspec_files ks /profiles errors-in-context
if kspec_agree ks && [ "$ne" = 4 ] && [ "$nk" -lt "$nf" ]; then
	res PASS record_kspec "errors-in-context in the module: $nk of $nf events, the 4 errors with their windows, as the profile applied to a full trace ($spec_line)"
else
	res FAIL record_kspec "exit $krc, $nk of $nf events, $ne errors; $(cat /tmp/ks-kern.err)"
	kspec_explain ks
fi

# errors-flight (windows by count: 64 events before each error, 32 after,
# each within 1 s) in the module, against the profile applied offline to a
# full trace of the same I/O: pairs of errors (the second one's window
# starts afresh in the first's) and a lone one.
kspec_start kf nullb1 /profiles errors-flight
k=0
while [ $k -lt 3 ]; do
	dd if=/dev/nullb1 of=/dev/null bs=4k count=200 skip=$((1000 + k * 400)) iflag=direct 2>/dev/null
	dd if=/dev/nullb1 of=/dev/null bs=4k count=1 skip=$((BAD / 8)) iflag=direct 2>/dev/null
	dd if=/dev/nullb1 of=/dev/null bs=4k count=10 skip=$((1300 + k * 400)) iflag=direct 2>/dev/null
	dd if=/dev/nullb1 of=/dev/null bs=4k count=1 skip=$((BAD / 8)) iflag=direct 2>/dev/null
	dd if=/dev/nullb1 of=/dev/null bs=4k count=100 skip=$((1320 + k * 400)) iflag=direct 2>/dev/null
	sleep 1.2
	k=$((k + 1))
done
# a lone error: its after window ends by count, not by another error
dd if=/dev/nullb1 of=/dev/null bs=4k count=100 skip=2600 iflag=direct 2>/dev/null
dd if=/dev/nullb1 of=/dev/null bs=4k count=1 skip=$((BAD / 8)) iflag=direct 2>/dev/null
dd if=/dev/nullb1 of=/dev/null bs=4k count=60 skip=2800 iflag=direct 2>/dev/null
kspec_stop
kspec_files kf /profiles errors-flight
if kspec_agree kf && [ "$ne" = 7 ] && [ "$nk" -lt "$nf" ]; then
	res PASS record_kspec_flight "errors-flight (windows by count) in the module: $nk of $nf events, the 7 errors with their windows, as the profile applied to a full trace ($spec_line)"
else
	res FAIL record_kspec_flight "exit $krc, $nk of $nf events, $ne errors; $(cat /tmp/kf-kern.err)"
	kspec_explain kf
fi

# A context keyed by pid in the module: a completion in interrupt context
# is keyed by its issue's pid, as vxrecord pairs them. Two processes read
# a device completing from a timer (interrupt context: no task) at once;
# only the one that fails is kept, the same events as the profile applied
# offline to a full trace.
nullb_timer 5 20000 badblocks="+$BAD-$((BAD + 7))"
mkdir -p /tmp/pidprof
cat >/tmp/pidprof/pid-context.yaml <<'YAML'
name: pid-context
description: errors with what their process did just before and after
context: {key: pid, before: 2s, after: 50ms, on: error}
YAML
kspec_start kp nullb5 /tmp/pidprof pid-context
# the other process: sectors from 80000 on, before, during and after
dd if=/dev/nullb5 of=/dev/null bs=4k count=600 skip=10000 iflag=direct 2>/dev/null &
OTHER=$!
# the failing one: 40 reads, then the bad block stops it
dd if=/dev/nullb5 of=/dev/null bs=4k count=100 skip=$((BAD / 8 - 40)) iflag=direct 2>/dev/null
wait_for 120 $OTHER
kspec_stop
kspec_files kp /tmp/pidprof pid-context
no=$(awk -F, 'NR > 1 && $6 >= 80000' /tmp/kp-kern.csv | wc -l)
# completions from the timer carry no task in the channel
nirq=$(vxreplay /tmp/kp-full.vxt --report events --format csv |
	awk -F, '$3 == "done" && $11 == 0' | wc -l)
if kspec_agree kp && [ "$ne" = 1 ] && [ "$no" = 0 ] &&
   [ "$nk" -gt 40 ] && [ "$nirq" = 0 ]; then
	res PASS record_kspec_pid "a context keyed by pid in the module: $nk of $nf events, the failing process only, as the profile applied to a full trace; completions from a timer, every one given its issue's task ($spec_line)"
else
	res FAIL record_kspec_pid "exit $krc, $nk of $nf events, $ne errors, $no of the other process, $nirq completions without a task; $(cat /tmp/kp-kern.err)"
	kspec_explain kp
fi

vxrecord -f --source kmod --objects nullb1 --profile-dir /profiles --profile per-process -d 1s \
	-o /tmp/ks-pp.vxt 2>/tmp/ks-pp.err
if grep -q 'profile per-process runs in user space: ' /tmp/ks-pp.err &&
   [ "$(grep -c 'runs in user space' /tmp/ks-pp.err)" = 1 ] &&
   vxreplay /tmp/ks-pp.vxt --info | grep -q 'speculation: user space'; then
	res PASS record_kspec_user "per-process stays in user space and says why in one line: $(grep 'runs in user space' /tmp/ks-pp.err)"
else
	res FAIL record_kspec_user "$(cat /tmp/ks-pp.err)"
fi

# slow-io (key request: each I/O committed by its own completion when it
# took 20 ms) in the module. nullb8 completes every I/O after 150 ms, nullb9
# after 25 ms: while an I/O of nullb8 is in flight, several of nullb9's,
# all later than its start, are committed, and the module holds its start
# for longer than vxrecord's 50 ms of slack: the file is in time order only
# if vxrecord holds the commits back to the module's horizon. nullb0's
# fast I/Os meanwhile are discarded. The same events as the profile applied
# offline to a full trace, the slow ones counted from the full trace with
# awk.
nullb_timer 8 150000000
nullb_timer 9 25000000
kspec_start kr nullb0,nullb8,nullb9 /profiles slow-io
dd if=/dev/nullb0 of=/dev/null bs=4k count=400 skip=7000 iflag=direct 2>/dev/null &
FAST=$!
dd if=/dev/nullb9 of=/dev/null bs=4k count=24 skip=100 iflag=direct 2>/dev/null &
SLOW7=$!
dd if=/dev/nullb8 of=/dev/null bs=4k count=4 skip=200 iflag=direct 2>/dev/null
wait_for 120 $FAST $SLOW7
kspec_stop
kspec_files kr /profiles slow-io
# the reference: completions of 20 ms or more in the full trace
vxreplay /tmp/kr-full.vxt --report events --format csv >/tmp/kr-full.csv
hdr=$(head -n 1 /tmp/kr-full.csv)
nslow=$(awk -F, -v h="$hdr" 'BEGIN { n = split(h, c, ","); for (i = 1; i <= n; i++) col[c[i]] = i }
	NR > 1 && $col["phase"] == "done" && $col["latency_ns"] >= 20000000' /tmp/kr-full.csv | wc -l)
ndone=$(awk -F, '$3 == "done"' /tmp/kr-kern.csv | wc -l)
# time order: the first column never goes back
unordered=$(awk -F, 'NR > 2 && $1 < last { n++ } NR > 1 { last = $1 } END { print n + 0 }' \
	/tmp/kr-kern.csv)
# the same rows: compared sorted, since the full trace's own channel may hold
# an event a few ms out of time order when the guest's CPU stalls between its
# stamp and its queueing (the kernel file's order is checked just above)
sort /tmp/kr-user.csv >/tmp/kr-user.sorted
sort /tmp/kr-kern.csv >/tmp/kr-kern.sorted
if kspec_agree kr sorted && [ "$nslow" -ge 28 ] && [ "$ndone" = "$nslow" ] &&
   [ "$unordered" = 0 ] && [ "$nk" -lt "$nf" ]; then
	res PASS record_kspec_slow "slow-io in the module: $nk of $nf events, the $nslow slow I/Os with their starts in time order, as the profile applied to a full trace ($spec_line)"
else
	res FAIL record_kspec_slow "exit $krc, $nk of $nf events, $ndone slow completions kept of $nslow, $unordered out of order; $(cat /tmp/kr-kern.err)"
	kspec_explain kr sorted
fi

# At the device's full rate: fio random reads (psync) on a null_blk failing
# 1 read in ~10 000 (26 bad 4 KiB blocks in 1 GiB), errors-in-context with
# its window before an error widened to 2 s and its buffers to specsize 16M
# (262144 of the module's events), in the module beside a full trace. The
# 2 s before an error at the guest's rate are more events than 1 MiB
# (16384) holds, as the full trace shows: still no event is dropped, and
# the kernel's file is the profile applied offline to the full trace,
# event for event (compared sorted, as above). A guest too slow to fill
# 1 MiB in 2 s (under ~4 100 IOPS) cannot tell the sizes apart: it skips.
# Then the same profile keyed by pid with 64 buffers of 2M (128 MiB, past
# the module's 64 MiB spec_max_bytes) runs in user space and says why.
d=/sys/kernel/config/nullb/nullb11
mkdir $d && echo 1024 >$d/size && echo 512 >$d/blocksize
i=0
while [ $i -lt 26 ]; do
	s=$(((i * 10082 + 5000) * 8))
	echo "+$s-$((s + 7))" >$d/badblocks
	i=$((i + 1))
done
echo 1 >$d/power
i=0
while [ ! -b /dev/nullb11 ] && [ $i -lt 50 ]; do
	i=$((i + 1))
	sleep 0.1
done
echo none >/sys/block/nullb11/queue/scheduler
mkdir -p /tmp/rateprof
sed 's/^name: .*/name: context-2s/; s/^  before: 200ms$/  before: 2s/; s/^  specsize: 4M$/  specsize: 16M/' \
	/profiles/errors-in-context.yaml >/tmp/rateprof/context-2s.yaml
# spec N: counter N of spec_stats (all speculations since load)
spec() { awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' \
	/sys/module/vxtrace/parameters/spec_stats; }
drops0=$(spec drops) failed0=$(spec failed) commits0=$(spec commits)
kspec_start kq nullb11 /tmp/rateprof context-2s
kbytes=$(cat /sys/module/vxtrace/parameters/buffer_bytes)
fio --name=rate --filename=/dev/nullb11 --direct=1 --rw=randread --bs=4k --ioengine=psync \
	--time_based --runtime=8 --randseed=11 --continue_on_error=read \
	--output-format=json >/tmp/kq-fio.json 2>/dev/null
kspec_stop
drops=$(($(spec drops) - drops0)) failed=$(($(spec failed) - failed0))
commits=$(($(spec commits) - commits0))
iops=$(grep -o '"iops" : [0-9]*' /tmp/kq-fio.json | head -n 1 | grep -o '[0-9]*$')
ferr=$(grep -o '"total_err" : [0-9]*' /tmp/kq-fio.json | head -n 1 | grep -o '[0-9]*$')
kspec_files kq /tmp/rateprof context-2s
# compared sorted, as above
sort -o /tmp/kq-user.csv /tmp/kq-user.csv
sort -o /tmp/kq-kern.csv /tmp/kq-kern.csv
nu=$(($(wc -l </tmp/kq-user.csv) - 1))
nd=$(diff -U0 /tmp/kq-user.csv /tmp/kq-kern.csv | grep -c '^[-+][0-9]')
# the largest window before an error in the full trace, in events: what one
# buffer must hold (brute force over the full trace's rows)
vxreplay /tmp/kq-full.vxt --report events --format csv >/tmp/kq-full.csv
need=$(awk -F, 'NR > 1 { t[NR] = $1; if ($3 == "done" && $9 != 0) e[NR] = 1 }
	END { m = 0; for (i in e) { n = 0; for (j = i - 1; j > 1 && t[i] - t[j] <= 2e9; j--) n++
		if (n > m) m = n }; print m }' /tmp/kq-full.csv)
line="$nk of $nf events, $ne errors (fio saw $ferr) at $iops IOPS, $commits commits, drops $drops, failed $failed, the widest window $need events before its error, $kbytes bytes of buffers"
if [ $krc = 0 ] && vxreplay /tmp/kq-kern.vxt --info | grep -q 'speculation: kernel' &&
   [ "$drops" = 0 ] && [ "$failed" = 0 ] && [ "$nd" = 0 ] && [ "$nk" = "$nu" ] &&
   [ "$ne" -ge 2 ] && [ "$ne" = "$ferr" ] && [ "$nk" -le "$nf" ]; then
	if [ "$need" -gt 16384 ]; then
		res PASS record_kspec_rate "errors-in-context with 2 s before in the module at the device's full rate, in the profile's 16M buffers: $line"
	else
		res SKIP record_kspec_rate "the guest ran too slow for 2 s to fill 1 MiB (16384 events): $line"
	fi
else
	res FAIL record_kspec_rate "exit $krc, $nd rows differ; $line; $(cat /tmp/kq-kern.err)"
	vxreplay /tmp/kq-kern.vxt --info | head -6
	diff -U0 /tmp/kq-user.csv /tmp/kq-kern.csv | head -10
fi
cat >/tmp/rateprof/pid-big.yaml <<'YAML'
name: pid-big
description: errors with what their process did, in buffers too large for the module
context: {key: pid, before: 1s, on: error, nspec: 64, specsize: 2M}
YAML
vxrecord -f --source kmod --objects nullb11 --profile-dir /tmp/rateprof --profile pid-big \
	-d 1s -o /tmp/kq-big.vxt 2>/tmp/kq-big.err
brc=$?
want='profile pid-big runs in user space: its 64 buffers x 2 MiB = 128 MiB do not fit the module'"'"'s spec_max_bytes (64 MiB)'
if [ $brc = 0 ] && grep -qxF "vxrecord: $want" /tmp/kq-big.err &&
   [ "$(grep -c 'runs in user space' /tmp/kq-big.err)" = 1 ] &&
   ! vxreplay /tmp/kq-big.vxt --info | grep -q 'speculation: kernel'; then
	res PASS record_kspec_big "buffers past spec_max_bytes stay in user space and say why in one line: $(grep 'runs in user space' /tmp/kq-big.err)"
else
	res FAIL record_kspec_big "exit $brc: $(cat /tmp/kq-big.err)"
fi
