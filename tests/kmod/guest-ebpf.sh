# guest-ebpf.sh - vxrecord --source ebpf on the guest's kernel (Debian 12's
# 6.1, or the newer ones), sourced by guest.sh when the programs are in the
# guest, with the module unloaded: the CO-RE programs built against the
# build machine's kernel load here, see every I/O dd does, see null_blk's
# bad-block errors, keep in the kernel only an error and what came before
# it on its object (a context profile), count in the kernel for vxtop
# --maps (its latency histograms in maps), load the phase programs, and are
# the default without the module.
# expect: ebpf_load ebpf_dd ebpf_errors ebpf_spec ebpf_maps ebpf_phases ebpf_default


# ebpf_start OUT ARGS...: vxrecord --source ebpf in the background, once it
# writes OUT (the programs are attached then) -> $REC
ebpf_start() {
	out=$1
	shift
	rm -f "$out"
	vxrecord -q -f --source ebpf "$@" -o "$out" 2>/tmp/ebpf.err &
	REC=$!
	i=0
	while [ ! -e "$out" ]; do
		i=$((i + 1))
		if [ $i -gt 150 ] || ! kill -0 $REC 2>/dev/null; then
			return 1
		fi
		sleep 0.1
	done
	return 0
}

ebpf_json() { grep -o "\"$2\" *: *[0-9]*" "$1" | head -n 1 | grep -o '[0-9]*$'; }

ebpf_checks() {
if ebpf_start /tmp/ebpf-dd.vxt --objects nullb0; then
	res PASS ebpf_load "the BPF programs load and attach on $(uname -r)"
	dd if=/dev/nullb0 of=/dev/null bs=4k count=500 skip=1000 iflag=direct 2>/dev/null
	dd if=/dev/zero of=/dev/nullb0 bs=8k count=200 seek=3000 oflag=direct 2>/dev/null
	sleep 0.3
	kill -INT $REC
	wait_for 60 $REC
	vxreplay /tmp/ebpf-dd.vxt --report summary --format json >/tmp/ebpf-dd.json
	got="$(ebpf_json /tmp/ebpf-dd.json starts) $(ebpf_json /tmp/ebpf-dd.json reads)"
	got="$got $(ebpf_json /tmp/ebpf-dd.json writes) $(ebpf_json /tmp/ebpf-dd.json bytes)"
	got="$got $(ebpf_json /tmp/ebpf-dd.json lost) $(ebpf_json /tmp/ebpf-dd.json errors)"
	want="700 500 200 $((500 * 4096 + 200 * 8192)) 0 0"
	if [ "$got" = "$want" ]; then
		res PASS ebpf_dd "dd 500 reads + 200 writes: starts reads writes bytes lost errors = $got"
	else
		res FAIL ebpf_dd "starts reads writes bytes lost errors = $got, want $want"
	fi
else
	res FAIL ebpf_load "vxrecord --source ebpf did not start: $(cat /tmp/ebpf.err)"
	res FAIL ebpf_dd "not run"
fi

# the bad blocks of nullb1: each failed read is a completion with -EIO
if ebpf_start /tmp/ebpf-err.vxt --objects nullb1; then
	dd if=/dev/nullb1 of=/dev/null bs=512 count=1 skip=$BAD iflag=direct 2>/dev/null
	sleep 0.3
	kill -INT $REC
	wait_for 60 $REC
	n=$(vxreplay /tmp/ebpf-err.vxt --report events --format csv |
		awk -F, -v s=$BAD '$3 == "done" && $6 == s && $10 == "EIO"' | wc -l)
	if [ "$n" -ge 1 ]; then
		res PASS ebpf_errors "the bad block at sector $BAD completes with EIO ($n times)"
	else
		res FAIL ebpf_errors "no EIO completion at sector $BAD"
		vxreplay /tmp/ebpf-err.vxt --report events
	fi
else
	res FAIL ebpf_errors "vxrecord --source ebpf did not start: $(cat /tmp/ebpf.err)"
fi

# the kernel speculation: of 20 reads, a failed read and 30 reads after it,
# a profile keeping the 10 s before an error and 1 ms after keeps, in the
# kernel, the 20 reads and the failed one (issues and completions)
cat >/tmp/ebpf-ctx.yaml <<EOF
name: ebpf-ctx
context:
  key: object
  before: 10s
  after: 1ms
  on: error
  nspec: 1
  specsize: 1M
EOF
if ebpf_start /tmp/ebpf-ctx.vxt --objects nullb1 --profile /tmp/ebpf-ctx.yaml; then
	dd if=/dev/nullb1 of=/dev/null bs=4k count=20 skip=2000 iflag=direct 2>/dev/null
	dd if=/dev/nullb1 of=/dev/null bs=512 count=1 skip=$BAD iflag=direct 2>/dev/null
	sleep 0.3
	dd if=/dev/nullb1 of=/dev/null bs=4k count=30 skip=4000 iflag=direct 2>/dev/null
	sleep 0.3
	kill -INT $REC
	wait_for 60 $REC
	# events as (phase, sector, error) from sectors 16000-16159 (the 20
	# reads), $BAD (the failed one) and 32000-32239 (those after)
	got=$(vxreplay /tmp/ebpf-ctx.vxt --report events --format csv | awk -F, -v s=$BAD '
		NR > 1 && $6 >= 16000 && $6 < 16160 { before[$3]++ }
		NR > 1 && $6 == s && $3 == "start" { bad_start = 1 }
		NR > 1 && $6 == s && $3 == "done" && $10 == "EIO" { bad_eio = 1 }
		NR > 1 && $6 >= 32000 && $6 < 32240 { after++ }
		END { printf "%d %d %d %d %d", before["start"], before["done"], bad_start,
			bad_eio, after }')
	kernel=$(vxreplay /tmp/ebpf-ctx.vxt --info | grep -c 'speculation: kernel')
	if [ "$got" = "20 20 1 1 0" ] && [ "$kernel" = 1 ]; then
		res PASS ebpf_spec "kept in the kernel: reads before (starts, dones), the failed read (start, EIO), reads after = $got"
	else
		res FAIL ebpf_spec "reads before (starts, dones), the failed read (start, EIO), reads after = $got (want 20 20 1 1 0); header says kernel: $kernel"
	fi
else
	wait $REC
	res FAIL ebpf_spec "vxrecord --source ebpf --profile did not start (exit $?): $(cat /tmp/ebpf.err)"
fi

# vxtop --maps: the counting programs load here and count dd's reads, with
# their latencies' p99 from the kernel's histogram
if command -v vxtop >/dev/null; then
	vxtop --maps -b -F jsonl -i 1s -c 3 --objects nullb0 >/tmp/ebpf-maps.jsonl \
		2>/tmp/ebpf-maps.err &
	TOP=$!
	i=0
	while [ ! -s /tmp/ebpf-maps.jsonl ] && [ $i -lt 150 ] && kill -0 $TOP 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	dd if=/dev/nullb0 of=/dev/null bs=4k count=500 skip=1000 iflag=direct 2>/dev/null
	wait_for 60 $TOP
	reads=$(sed -n 's/.*"duration_s":\([0-9.]*\).*"r_s":\([0-9.]*\).*/\1 \2/p' \
		/tmp/ebpf-maps.jsonl | awk '{ s += $1 * $2 } END { printf "%.0f", s }')
	p99=$(grep -o '"p99_lat_us":[0-9][0-9.]*' /tmp/ebpf-maps.jsonl | head -n 1)
	if [ "$reads" = 500 ] && [ -n "$p99" ]; then
		res PASS ebpf_maps "vxtop --maps counted dd's 500 reads ($p99)"
	else
		res FAIL ebpf_maps "vxtop --maps: reads $reads (want 500), ${p99:-no p99}: $(cat /tmp/ebpf-maps.err)"
	fi
else
	res SKIP ebpf_maps "no vxtop in the guest"
fi

# --phases all: the phase programs load here too; each of dd's reads is
# queued, gets its request, is issued and completes
if ebpf_start /tmp/ebpf-ph.vxt --objects nullb0 --phases all; then
	dd if=/dev/nullb0 of=/dev/null bs=4k count=100 skip=5000 iflag=direct 2>/dev/null
	sleep 0.3
	kill -INT $REC
	wait_for 60 $REC
	got=$(vxreplay /tmp/ebpf-ph.vxt --report events --format csv | awk -F, '
		NR > 1 && $6 >= 40000 && $6 < 40800 { n[$3]++ }
		END { printf "%d %d %d %d", n["queue"], n["getrq"], n["start"], n["done"] }')
	if [ "$got" = "100 100 100 100" ]; then
		res PASS ebpf_phases "dd's 100 reads: queue getrq start done = $got"
	else
		res FAIL ebpf_phases "queue getrq start done = $got, want 100 each: $(cat /tmp/ebpf.err)"
	fi
else
	res FAIL ebpf_phases "vxrecord --source ebpf --phases all did not start: $(cat /tmp/ebpf.err)"
fi

# without /dev/vxtrace the default is ebpf, and it says why not kmod
if [ ! -e /dev/vxtrace ]; then
	vxrecord -f -o /tmp/ebpf-def.vxt -c 1 -d 1s 2>/tmp/ebpf-def.err
	if vxreplay /tmp/ebpf-def.vxt --report summary --format json | grep -q '"source": "ebpf"' &&
	   grep -q 'kmod: no /dev/vxtrace' /tmp/ebpf-def.err; then
		res PASS ebpf_default "without the module vxrecord picks ebpf and says why"
	else
		res FAIL ebpf_default "default: $(cat /tmp/ebpf-def.err)"
	fi
else
	res SKIP ebpf_default "/dev/vxtrace exists"
fi
}

if [ -r /sys/kernel/btf/vmlinux ]; then
	ebpf_checks
else
	for t in ebpf_load ebpf_dd ebpf_errors ebpf_spec ebpf_maps ebpf_phases ebpf_default; do
		res SKIP $t "the guest kernel has no BTF"
	done
fi
