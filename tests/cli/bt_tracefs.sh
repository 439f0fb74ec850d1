#!/bin/sh
# bt_tracefs.sh - bpftrace programs on a tracefs --phases all recording of a
# partition of a loop device (its bios remapped onto the disk) and of a
# bio-based zram device, against the kernel's own text of the same
# tracepoints (a tracefs instance of ours beside vxrecord's): a remap's
# args.dev, sector, nr_sector, old_dev and old_sector as block_bio_remap
# gives them; block_rq_issue and block_rq_complete per device as the kernel
# fires them, never on zram's bios, which block_bio_queue sees.
. "$VXT_TOP/tests/lib.sh"
. "$VXT_TOP/tests/cli/tracefs_env.inc"
need_tracefs
make_zram 32M

# a loop device with one partition at sector 2048 (an MBR written by hand)
truncate -s 64M "$T/disk.img" || skip "cannot create a backing file in $T"
python3 - "$T/disk.img" <<'PY' || fail "partition table"
import struct, sys
with open(sys.argv[1], "r+b") as f:
    mbr = bytearray(512)
    mbr[446:462] = struct.pack("<B3sB3sII", 0, bytes(3), 0x83, bytes(3), 2048, 65536)
    mbr[510:512] = b"\x55\xaa"
    f.write(mbr)
PY
LOOP=$(losetup -f --show -P "$T/disk.img" 2>/dev/null) || skip "no free loop device"
LNAME=${LOOP#/dev/}
command -v udevadm >/dev/null && udevadm settle 2>/dev/null
[ -e "/sys/block/$LNAME/${LNAME}p1" ] || partx -a "$LOOP" 2>/dev/null
[ -e "/sys/block/$LNAME/${LNAME}p1" ] || skip "the loop device shows no partition"
i=0
while [ ! -b "${LOOP}p1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -b "${LOOP}p1" ] || skip "no ${LOOP}p1 node"
ldev=$(cat "/sys/block/$LNAME/dev") pdev=$(cat "/sys/block/$LNAME/${LNAME}p1/dev")
zdev=$(cat "/sys/block/zram$ZRAM/dev")
# "major,minor" of a /sys dev "major:minor"; the kernel's dev_t of one
mm() { echo "$1" | tr : ,; }
kdev() { echo "$1" | awk -F: '{ print $1 * 1048576 + $2 }'; }

# the kernel's text: an instance of our own with the tracepoints on
td=$(tracing_dir)
kinst="$td/instances/vxt-bt-$$"
mkdir "$kinst" || skip "cannot make a tracefs instance"
trap 'rmdir "$kinst" 2>/dev/null; cleanup' EXIT
# only our devices' events, so the host's other I/O cannot overwrite them
filt="dev == $(kdev "$ldev") || dev == $(kdev "$zdev")"
echo 4096 >"$kinst/buffer_size_kb"
for e in block_bio_remap block_rq_issue block_rq_complete block_bio_queue; do
	echo "$filt" >"$kinst/events/block/$e/filter" || fail "filter $e"
	echo 1 >"$kinst/events/block/$e/enable" || fail "enable $e"
done
echo 1 >"$kinst/tracing_on"

start_rec "$T/r.vxt" --source tracefs --phases all -q || finish
fio_run "${LOOP}p1" pw randwrite 200 >/dev/null
fio_run "/dev/zram$ZRAM" zw randwrite 100 >/dev/null
fio_run "${LOOP}p1" pr randread 100 >/dev/null
sleep 0.5
stop_rec INT
echo 0 >"$kinst/tracing_on"
cat "$kinst/trace" >"$T/kernel.txt"
expect_eq "vxrecord exit status" "$RC" 0

# the kernel's lines of tracepoint $1 on devices $2 (an awk regex of "M,m")
klines() { awk -v tp="$1:" -v d="^($2)$" '$0 ~ " " tp " " {
	for (i = 1; i <= NF; i++) if ($i == tp) break
	if ($(i + 1) ~ d) print substr($0, index($0, tp) + length(tp) + 1) }' "$T/kernel.txt"; }

# remaps: "dev sector nr_sector old_dev old_sector" from
# "7,0 W 4024 + 8 <- (259,0) 1976"
klines block_bio_remap "$(mm "$ldev")" | awk '{
	split($1, d, ","); gsub(/[()]/, "", $7); split($7, o, ",")
	printf "%d %d %d %d %d\n", d[1] * 1048576 + d[2], $3, $5, o[1] * 1048576 + o[2], $8 }' |
	sort >"$T/remap.want"
printf 'tracepoint:block:block_bio_remap { printf("%%d %%d %%d %%d %%d\\n", args.dev, args.sector,\n  args.nr_sector, args.old_dev, args.old_sector); }\n' >"$T/remap.bt"
"$B/vxreplay" "$T/r.vxt" --script "$T/remap.bt" 2>"$T/remap.err" |
	awk -v d="$(kdev "$ldev")" '$1 == d' | sort >"$T/remap.got" ||
	fail "remap.bt: $(cat "$T/remap.err")"
expect_eq "remaps: the partition's 300 I/Os" "$(wc -l <"$T/remap.want")" 300
expect_eq "remaps: dev sector nr_sector old_dev old_sector as the kernel's" \
	"$(diff "$T/remap.got" "$T/remap.want" | head -6 || :)" ""

# per device and tracepoint: the kernel's counts, then the program's
kcount() { klines "$1" "$(mm "$ldev")|$(mm "$zdev")" | awk '{ n[$1]++ }
	END { for (d in n) { split(d, m, ","); printf "%s %d:%d %d\n", tp, m[1], m[2], n[d] } }' tp="$1"; }
{ kcount block_rq_issue; kcount block_rq_complete; kcount block_bio_queue; } | sort >"$T/count.want"
cat >"$T/count.bt" <<'EOF'
t:block:block_rq_issue, t:block:block_rq_complete, t:block:block_bio_queue {
	@[probe, args.dev >> 20, args.dev & 0xfffff] = count(); }
END { print(@); clear(@); }
EOF
"$B/vxreplay" "$T/r.vxt" --script "$T/count.bt" 2>"$T/count.err" |
	sed -n 's/^@\[tracepoint:block:\([a-z_]*\), \([0-9]*\), \([0-9]*\)\]: \([0-9]*\)$/\1 \2:\3 \4/p' |
	awk -v l="$ldev" -v z="$zdev" '$2 == l || $2 == z' | sort >"$T/count.got"
expect_eq "zram has no request events in the kernel's text" \
	"$(grep -c "^block_rq_[a-z]* $zdev " "$T/count.want")" 0
expect_eq "zram's bios are queued in the kernel's text" \
	"$(grep -c "^block_bio_queue $zdev " "$T/count.want")" 1
expect_eq "per tracepoint and device, as the kernel fired them" \
	"$(cat "$T/count.got")" "$(cat "$T/count.want")"
finish
