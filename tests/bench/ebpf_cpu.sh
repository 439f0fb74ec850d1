#!/bin/sh
# ebpf_cpu.sh - what the ebpf source costs per I/O, in figures that depend
# little on the machine's load (unlike fio's IOPS in ebpf.sh): for a fixed
# fio workload (4 KiB random reads, libaio, iodepth 32, VXT_BENCH_IOS I/Os)
# on a loop device over a file in /dev/shm, with each capture mode running:
#   bpf     the kernel's own accounting of our programs (kernel.bpf_stats_enabled
#           on for the run): runs of each program and ns per run, and the ns
#           all of them took per fio I/O
#   cpu     the capturing process's CPU time (user + system, its rusage when
#           it exits) per fio I/O
#   wakeups its voluntary context switches (each sleep in poll ends in one)
# Modes: ebpf (vxrecord --source ebpf), ebpf-ctx (... --profile
# errors-in-context), top-maps (vxtop --maps), and bt-count (bpftrace
# counting completions, a peer: the cost of one small program).
#   usage: tests/bench/ebpf_cpu.sh [BUILD_DIR]
#   env: VXT_BENCH_IOS (default 200000), VXT_BENCH_ROUNDS (default 3),
#        VXT_BENCH_MODES (default: all of the above)
#
# Recorded, 1 round of 100000 I/Os, load average 5-11 on 2 CPUs (BPF ns
# per I/O, all our programs; the capturing process's CPU ns per I/O;
# wakeups): helper reads per field, a hash lookup per device, a hash map
# for requests in flight, bpf_ringbuf_output waking user space: ebpf 6030,
# 6482, 25733; ebpf-ctx 2417, 679, 20; top-maps 2025, 554, 47. Fields read
# through BTF, devices by binary search, wakeups only at a quarter-full mark
# and a 10 ms read timer: ebpf 1584, 1840, 589; ebpf-ctx 1494, 1327, 558;
# top-maps 1625, 737, 71. The requests in flight in an array claimed by
# compare-and-swap: ebpf 1224, 1936, 736; ebpf-ctx 993, 1412, 524; top-maps
# 747, 892, 59. bpftrace counting completions: 150-220 ns per I/O.
# 600000 I/Os, 3 pairs, load average 5-6: the programs' records to events
# without the channel decoder and a command interned once per run of
# records naming it: ebpf process CPU 680, 849, 684 ns per I/O before,
# 661, 651, 589 after; BPF 656, 853, 680 before, 713, 630, 567 after.
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-${VXT_BUILD:-$top/build}}
ios=${VXT_BENCH_IOS:-200000}
rounds=${VXT_BENCH_ROUNDS:-3}
modes=${VXT_BENCH_MODES:-ebpf ebpf-ctx top-maps bt-count}
say() { echo "ebpf_cpu: $*"; }
[ "$(id -u)" -eq 0 ] || { say "skipped (needs root)"; exit 0; }
command -v fio >/dev/null || { say "skipped (no fio)"; exit 0; }
command -v bpftool >/dev/null || { say "skipped (no bpftool)"; exit 0; }
[ -r /sys/kernel/btf/vmlinux ] || { say "skipped (no BTF)"; exit 0; }
[ -w /proc/sys/kernel/bpf_stats_enabled ] || { say "skipped (no kernel.bpf_stats_enabled)"; exit 0; }
# a build directory without the programs is an error, not a skip
for t in vxrecord vxtop vxreplay; do
	[ -x "$build/$t" ] || { say "FAILED: no $build/$t (build with make, or name the build directory)"; exit 1; }
done
grep -q 'this build has no BPF programs' "$build/vxrecord" &&
	{ say "skipped (built without the ebpf source)"; exit 0; }
command -v bpftrace >/dev/null || modes=$(echo "$modes" | sed 's/bt-[a-z]*//g')
. "$top/tests/bench/shm_loop.inc"
stats0=$(cat /proc/sys/kernel/bpf_stats_enabled)
cleanup() {
	echo "$stats0" >/proc/sys/kernel/bpf_stats_enabled
	shm_loop_free
}
trap cleanup EXIT
shm_loop 256 fill
major=$(( $(stat -c 0x%t "$loop") )) minor=$(( $(stat -c 0x%T "$loop") ))
echo 1 >/proc/sys/kernel/bpf_stats_enabled

# one run of mode $1: prints one result line
run_one() {
	rm -f "$dir/f.vxt"
	python3 - "$1" "$build" "$name" "$dir" "$loop" "$ios" "$major" "$minor" <<'PY'
import json, os, signal, subprocess, sys, time
mode, build, name, d, loop, ios, major, minor = sys.argv[1:9]
out = os.path.join(d, "f.vxt")
if mode in ("ebpf", "ebpf-ctx"):
    cmd = [build + "/vxrecord", "--source", "ebpf", "--objects", name, "-o", out, "-q"]
    if mode == "ebpf-ctx":
        cmd[3:3] = ["--profile", "errors-in-context"]
    names = ("vxt_rq_issue", "vxt_rq_requeue", "vxt_rq_complete")
elif mode == "top-maps":
    cmd = [build + "/vxtop", "--maps", "-b", "-F", "jsonl", "--objects", name]
    names = ("vxt_rq_issue", "vxt_rq_requeue", "vxt_rq_complete")
else:
    cmd = ["bpftrace", "-e", "tracepoint:block:block_rq_complete /args->dev == ((%s << 20) | %s)/"
           " { @ios = count(); }" % (major, minor)]
    names = ("block_rq_complete",)
    # (bpftrace names its program by the probe, cut at 15 characters)

def progs():
    j = json.loads(subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True,
                                  check=True).stdout)
    return {p["id"]: p for p in j}

before = progs()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "err"), "w"))
mine = {}
# wait for the programs by the clock, not by a count of bpftool runs (each
# takes a while on a loaded machine), and stop at once if the tracer exits
deadline = time.monotonic() + 20
while time.monotonic() < deadline and p.poll() is None:
    now = progs()
    mine = {i: q for i, q in now.items() if i not in before and q.get("name", "")[:15] in [n[:15] for n in names]
            and q.get("type") in ("tracing", "tracepoint")}
    if len(mine) >= len(names):
        break
    time.sleep(0.1)
if len(mine) < len(names):
    how = "exited %d" % p.returncode if p.poll() is not None else "killed after 20 s"
    if p.poll() is None:
        p.kill()
    p.wait()
    sys.stderr.write("%s: %d of %d programs loaded (%s), tracer %s\n" %
                     (mode, len(mine), len(names), ", ".join(names), how))
    sys.exit(1)
time.sleep(0.5)
start = {i: q for i, q in progs().items() if i in mine}
subprocess.run(["fio", "--name=cpu", "--filename=" + loop, "--direct=1", "--rw=randread",
                "--bs=4k", "--ioengine=libaio", "--iodepth=32", "--size=256M",
                "--io_size=%dk" % (4 * int(ios)), "--output=/dev/null"], check=True)
end = {i: q for i, q in progs().items() if i in mine}
time.sleep(0.3)
p.send_signal(signal.SIGINT)
_, status, ru = os.wait4(p.pid, 0)
cpu = (ru.ru_utime + ru.ru_stime) * 1e9
per = []
bpf = 0
for i, q in end.items():
    runs = q.get("run_cnt", 0) - start.get(i, {}).get("run_cnt", 0)
    ns = q.get("run_time_ns", 0) - start.get(i, {}).get("run_time_ns", 0)
    bpf += ns
    per.append("%s %d runs %.0f ns/run" % (q["name"], runs, ns / max(runs, 1)))
print("%.0f %.0f %d | bpf %.0f ns/io (%s); cpu %.0f ns/io (user %.2f s, sys %.2f s); "
      "%d wakeups (%.2f per io); exit %d" %
      (bpf / int(ios), cpu / int(ios), ru.ru_nvcsw, bpf / int(ios), ", ".join(per),
       cpu / int(ios), ru.ru_utime, ru.ru_stime, ru.ru_nvcsw, ru.ru_nvcsw / int(ios),
       os.waitstatus_to_exitcode(status)))
PY
}

res=$(mktemp)
r=1
while [ "$r" -le "$rounds" ]; do
	for m in $modes; do
		line=$(run_one "$m") || { say "$m: failed: $(head -c 300 "$dir/err")"; continue; }
		set -- $line
		echo "$m $1 $2 $3" >>"$res"
		shift 4
		extra=
		case $m in ebpf|ebpf-ctx)
			extra=$("$build/vxreplay" "$dir/f.vxt" --report summary --format json |
				python3 -c 'import json,sys; j=json.load(sys.stdin)
print("; %d I/Os in the file, %d lost" % (j["ios"], j["lost"]))') ;;
		esac
		say "round $r: $m: $*$extra"
	done
	r=$((r + 1))
done
med() { sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.0f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for m in $modes; do
	say "median $m: bpf $(awk -v m=$m '$1 == m { print $2 }' "$res" | med) ns/io," \
	    "process cpu $(awk -v m=$m '$1 == m { print $3 }' "$res" | med) ns/io," \
	    "$(awk -v m=$m '$1 == m { print $4 }' "$res" | med) wakeups"
done
say "fio: $ios random 4 KiB reads, iodepth 32, on $name over /dev/shm; load: $(uptime)"
rm -f "$res"
