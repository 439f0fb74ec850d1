# guest-stack.sh - I/O followed down a device-mapper stack, sourced by
# guest.sh with the module loaded when vxrecord, vxreplay, blktrace and
# blkparse are in the guest.
#
# dm-linear "vxtstk" maps its sector S to sector S + ST_OFF of nullb7 (each
# I/O ST_NS on a timer). ST_DEPTH dd read ST_IOS / ST_DEPTH blocks each of
# dm, each its own region, while one dd writes ST_W blocks. The same run is
# seen by blktrace on both devices, by a kmod channel at --phases all on
# both and, when the guest kernel has tracefs, by vxrecord --source tracefs
# at --phases all on both. Independent references: blkparse's actions per
# device, and awk pairings that know the table (nullb7's sector = dm's +
# ST_OFF): over blkparse's text (where each remap names its source) and
# over each file's own events.
#   stack_capture    per device, the module's phases are blkparse's actions:
#                    dm queue = Q, done = C (bio level, no issue); nullb7
#                    remap = A, queue = Q, getrq = G, start = D, done = C
#   stack_breakdown  vxreplay --report breakdown of the module's file: dm's
#                    Q2C and nullb7's Q2C (from dm's queue: the remap
#                    carried it down) and D2C have awk's N and averages over
#                    the file's events (within 1 ns rounding) and blkparse's
#                    N; nothing unpaired; the averages are blktrace's within
#                    ST_TOL_NS or 50% (the tracers stamp each tracepoint
#                    apart)
#   stack_tracefs_capture, stack_tracefs_breakdown
#                    the same two checks on the tracefs source's file
#   stack2_remap, stack2_pairs
#                    two deep: dm-linear vxtstk2 over vxtstk over nullb7
#                    (below, where the section starts)
#   md_capture, md_pairs, md_tracefs_capture, md_tracefs_pairs
#                    an md RAID-1 of two null_blk mirrors, a write fanning
#                    out to both, seen by the module and by tracefs (below,
#                    where the section starts)
# expect: stack_capture stack_breakdown stack_tracefs_capture stack_tracefs_breakdown
# expect: stack2_remap stack2_pairs md_capture md_pairs md_tracefs_capture md_tracefs_pairs

ST_NS=300000		# nullb7 completion_nsec
ST_IOS=48		# reads, ST_DEPTH dd at once
ST_DEPTH=4
ST_W=16			# writes, one dd
ST_OFF=2048		# dm-linear's start on nullb7
# The tracers' probes on one tracepoint run one after the other, up to
# hundreds of microseconds apart under TCG on a busy host: their averages
# may differ by ST_TOL_NS or a half, whichever is more (seen: the tracefs
# source's Q2C a third short of blktrace's on Linux 7.3 beside the
# sanitizer runs, its D2C and the module's as blktrace's; a pairing with
# the wrong queue is off by a whole interval: twice the Q2C, seen).
ST_TOL_NS=100000

st_why=
st_dm=
hung=

st_setup() {
	for t in blktrace blkparse vxrecord vxreplay; do
		command -v $t >/dev/null 2>&1 || { st_why="$t not in the guest"; return 1; }
	done
	[ -d /sys/kernel/debug/block ] ||
		{ st_why="no debugfs block directory (CONFIG_BLK_DEV_IO_TRACE?)"; return 1; }
	[ -c /dev/mapper/control ] || { st_why="no device-mapper (dm-mod) in the guest"; return 1; }
	nullb_timer 7 $ST_NS hw_queue_depth=8 || { st_why="cannot create nullb7"; return 1; }
	vxtest dm-create vxtstk 65536 linear "/dev/nullb7 $ST_OFF" >/tmp/st-dm.err 2>&1 ||
		{ st_why="dm-linear over nullb7: $(cat /tmp/st-dm.err)"; return 1; }
	i=0
	while [ -z "$st_dm" ] && [ $i -lt 50 ]; do
		for n in /sys/block/dm-*/dm/name; do
			[ "$(cat "$n" 2>/dev/null)" = vxtstk ] && st_dm=${n#/sys/block/} st_dm=${st_dm%%/*}
		done
		[ -n "$st_dm" ] && [ -b /dev/$st_dm ] && break
		st_dm=
		i=$((i + 1))
		sleep 0.1
	done
	[ -n "$st_dm" ] || { st_why="no block device for dm vxtstk"; return 1; }
	return 0
}

# st_started TAG DEV...: blktrace has begun a file for each DEV
st_started() {
	sd_tag=$1
	shift
	for sd in "$@"; do
		[ -e /tmp/$sd_tag.d/$sd.blktrace.0 ] || return 1
	done
}

# st_trace TAG TRACEFS TOP DEV...: the workload on dm device TOP, seen by
# blktrace on each DEV (into /tmp/TAG.d), a kmod channel at --phases all
# on all of them (/tmp/TAG-kmod.vxt) and, with TRACEFS 1 when the guest
# kernel has tracefs, vxrecord --source tracefs (/tmp/TAG-tfs.vxt)
st_trace() {
	tag=$1 tfs=$2 top=$3
	shift 3
	devs=$*
	objs=$(echo $devs | tr ' ' ',')
	rm -rf /tmp/$tag.d /tmp/$tag-tfs.vxt && mkdir /tmp/$tag.d
	blktrace $(for d in $devs; do echo "-d /dev/$d"; done) -D /tmp/$tag.d >/tmp/$tag-bt.out 2>&1 &
	st_bt=$!
	vxrecord -q -f --source kmod --objects $objs --phases all -o /tmp/$tag-kmod.vxt \
		2>/tmp/$tag-kmod.err &
	st_km=$!
	st_tf=
	if [ $tfs = 1 ] &&
	   { [ -d /sys/kernel/tracing/events/block ] || [ -d /sys/kernel/debug/tracing/events/block ]; }; then
		vxrecord -q -f --source tracefs --objects $objs --phases all \
			-o /tmp/$tag-tfs.vxt 2>/tmp/$tag-tfs.err &
		st_tf=$!
	fi
	i=0
	while [ "$(cat /sys/module/vxtrace/parameters/tracing_channels)" != 1 ] ||
	      { [ -n "$st_tf" ] && [ ! -e /tmp/$tag-tfs.vxt ]; } ||
	      ! st_started $tag $devs; do
		i=$((i + 1))
		if [ $i -gt 150 ]; then
			st_why="recorders did not start: $(cat /tmp/$tag-bt.out /tmp/$tag-kmod.err /tmp/$tag-tfs.err 2>/dev/null | head -n 3 | tr '\n' ' ')"
			kill -INT $st_bt $st_km $st_tf 2>/dev/null
			wait_for 60 $st_bt $st_km $st_tf
			return 1
		fi
		sleep 0.1
	done
	sleep 0.3
	k=0
	st_dd=
	while [ $k -lt $ST_DEPTH ]; do
		dd if=/dev/$top of=/dev/null bs=4k count=$((ST_IOS / ST_DEPTH)) \
			skip=$((k * 1024)) iflag=direct 2>/dev/null &
		st_dd="$st_dd $!"
		k=$((k + 1))
	done
	dd if=/dev/zero of=/dev/$top bs=4k count=$ST_W seek=$((ST_DEPTH * 1024)) \
		oflag=direct 2>/dev/null &
	wait_for 120 $st_dd $!
	sleep 0.3
	kill -INT $st_km $st_tf $st_bt
	wait_for 60 $st_km $st_tf $st_bt
	[ -z "$hung" ] || { st_why=$hung; return 1; }
	return 0
}

st_run() {
	st_setup && st_trace st 1 $st_dm $st_dm nullb7
}

# st_acts DEV [TEXT]: "A=N C=N ..." of blkparse's actions on DEV (MAJ,MIN)
st_acts() {
	awk -v dev="$1" '$1 == dev && $6 ~ /^[A-Z]+$/ { n[$6]++ }
		END { for (a in n) printf "%s=%d\n", a, n[a] }' "${2:-/tmp/st-bp.txt}" |
		sort | tr '\n' ' '
}

# st_phases CSV OBJ: "phase=N ..." of one object in an events CSV
st_phases() {
	awk -F, -v o="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["object"] == o { n[$c["phase"]]++ }
		END { for (p in n) printf "%s=%d\n", p, n[p] }' "$1" | sort | tr '\n' ' '
}

# st_awk_events CSV: "dmq2c N AVG", "q2c N AVG", "d2c N AVG" from the
# events: dm's queue and done by sector; nullb7's done at S + ST_OFF paired
# with dm's queue at S, its start at its own sector (no sector is read twice)
st_awk_events() {
	awk -F, -v dm="$st_dm" -v off=$ST_OFF 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ t = $c["time_ns"]; p = $c["phase"]; s = $c["sector"]; o = $c["object"] }
	o == dm && p == "queue" { Q[s] = t }
	o == dm && p == "done" && (s in Q) { n1++; s1 += t - Q[s] }
	o == "nullb7" && p == "start" { D[s] = t }
	o == "nullb7" && p == "done" && ((s - off) in Q) { n2++; s2 += t - Q[s - off] }
	o == "nullb7" && p == "done" && (s in D) { n3++; s3 += t - D[s] }
	END {
		printf "dmq2c %d %d\n", n1, n1 ? int(s1 / n1 + 0.5) : 0
		printf "q2c %d %d\n", n2, n2 ? int(s2 / n2 + 0.5) : 0
		printf "d2c %d %d\n", n3, n3 ? int(s3 / n3 + 0.5) : 0
	}' "$1"
}

# st_awk_bp DMDEV: the same from blkparse's text: a remap on nullb7 names
# where it came from ("A R 2056 + 8 <- (254,2) 8"), so nullb7's completion is
# paired with dm's queue through it
st_awk_bp() {
	awk -v dm="$1" -v nb="$2" '$6 !~ /^[A-Z]+$/ { next }
	{ t = $4 * 1e9; a = $6; s = $8 }
	$1 == dm && a == "Q" { Q[s] = t }
	$1 == dm && a == "C" && (s in Q) { n1++; s1 += t - Q[s] }
	$1 == nb && a == "A" { src = $12; gsub(/[()]/, "", src); if (src == dm && ($13 in Q)) QA[s] = Q[$13] }
	$1 == nb && a == "D" { D[s] = t }
	$1 == nb && a == "C" && (s in QA) { n2++; s2 += t - QA[s] }
	$1 == nb && a == "C" && (s in D) { n3++; s3 += t - D[s] }
	END {
		printf "dmq2c %d %d\n", n1, n1 ? int(s1 / n1 + 0.5) : 0
		printf "q2c %d %d\n", n2, n2 ? int(s2 / n2 + 0.5) : 0
		printf "d2c %d %d\n", n3, n3 ? int(s3 / n3 + 0.5) : 0
	}' /tmp/st-bp.txt
}

# st_bd JSON OBJ IV: "N AVG" of an interval of one object in the breakdown
st_bd() {
	tr -d '\n' <"$1" | awk -v o="\"$2\": {" -v iv="\"$3\": {\"n\": " '{
		s = substr($0, index($0, "\"objects\": {"))
		s = substr(s, index(s, o))
		s = substr(s, index(s, iv) + length(iv))
		n = s + 0
		s = substr(s, index(s, "\"avg_ns\": ") + 10)
		printf "%d %d\n", n, s + 0 }'
}

# st_unpaired JSON: the unpaired kinds with a count, "" when none
st_unpaired() {
	tr -d '\n' <"$1" | sed 's/.*"unpaired": {//' |
		grep -o '"[a-z-]*": {"n": [1-9][0-9]*' | tr '\n' ' '
}

# st_check LABEL VXT NAME: the checks NAME_capture and NAME_breakdown of one file
st_check() {
	label=$1 f=$2 name=$3
	vxreplay $f --report events --format csv >/tmp/st-$label.csv 2>/tmp/st-$label.err
	vxreplay $f --report breakdown --format json >/tmp/st-$label.json 2>>/tmp/st-$label.err
	up=$(st_phases /tmp/st-$label.csv $st_dm)
	lo=$(st_phases /tmp/st-$label.csv nullb7)
	bio=$(awk -F, -v o="$st_dm" 'NR > 1 && $2 == o && $5 !~ /bio/' /tmp/st-$label.csv | wc -l)
	n=$((ST_IOS + ST_W))
	want_up="done=$(st_n "$acts_dm" C) queue=$(st_n "$acts_dm" Q)"
	got_lo=$(echo "$lo" | tr ' ' '\n' | grep -E '^(done|getrq|queue|remap|start)=' | tr '\n' ' ')
	want_lo="done=$(st_n "$acts_nb" C) getrq=$(st_n "$acts_nb" G) queue=$(st_n "$acts_nb" Q)"
	want_lo="$want_lo remap=$(st_n "$acts_nb" A) start=$(st_n "$acts_nb" D)"
	if [ "$(st_n "$acts_dm" Q)" = $n ] && [ "${up% }" = "$want_up" ] &&
	   [ "${got_lo% }" = "$want_lo" ] && [ "$bio" = 0 ]; then
		res PASS ${name}_capture "dm-linear $st_dm over nullb7, $ST_IOS reads and $ST_W writes: $st_dm has $up(bio level), nullb7 $got_lo as blkparse's actions"
	else
		res FAIL ${name}_capture "$st_dm: '$up' (want '$want_up', Q=$n, $bio events not at bio level); nullb7: '$got_lo' (want '$want_lo'); $(head -c 300 /tmp/st-$label.err)"
		res SKIP ${name}_breakdown "the capture differs"
		return 1
	fi
	st_awk_events /tmp/st-$label.csv >/tmp/st-$label-awk.txt
	d=
	while read -r iv an aa; do
		obj=nullb7
		[ $iv = dmq2c ] && obj=$st_dm iv=q2c
		set -- $(st_bd /tmp/st-$label.json $obj $iv)
		[ "$an $aa" = "${1:-0} ${2:-0}" ] ||
			d="$d $obj $iv: awk over the events 'N avg' $an $aa, vxreplay ${1:-} ${2:-};"
		[ "$an" = $n ] || d="$d $obj $iv: N $an of $n I/Os;"
	done </tmp/st-$label-awk.txt
	while read -r iv bn ba; do
		[ $iv = dmq2c ] && obj=$st_dm iv2=q2c || { obj=nullb7 iv2=$iv; }
		set -- $(st_bd /tmp/st-$label.json $obj $iv2)
		dd_=$((${2:-0} - ba))
		[ $dd_ -lt 0 ] && dd_=$((-dd_))
		tol=$((ba / 2))
		[ $tol -lt $ST_TOL_NS ] && tol=$ST_TOL_NS
		[ "$bn" = "${1:-0}" ] && [ $dd_ -le $tol ] ||
			d="$d $obj $iv2: blkparse 'N avg' $bn $ba, vxreplay ${1:-} ${2:-};"
	done </tmp/st-bp-awk.txt
	u=$(st_unpaired /tmp/st-$label.json)
	if [ -z "$d" ] && [ -z "$u" ]; then
		res PASS ${name}_breakdown "$st_dm Q2C $(st_bd /tmp/st-$label.json $st_dm q2c), nullb7 Q2C from $st_dm's queue $(st_bd /tmp/st-$label.json nullb7 q2c) and D2C $(st_bd /tmp/st-$label.json nullb7 d2c) (N avg_ns) are awk's over the events; blktrace's: $(tr '\n' ' ' </tmp/st-bp-awk.txt); nothing unpaired"
	else
		res FAIL ${name}_breakdown "$d unpaired: $u"
		cat /tmp/st-$label.json
	fi
}

# st_both CHECK TAG NAME KIND...: CHECK (st_check, md_check) of st_trace
# TAG's kmod file as NAME and of its tracefs file as NAME_tracefs, or a SKIP
# line for each NAME_tracefs_KIND when the guest kernel has no tracefs
st_both() {
	sb_check=$1 sb_tag=$2 sb_name=$3
	shift 3
	$sb_check kmod /tmp/$sb_tag-kmod.vxt $sb_name
	if [ -n "$st_tf" ]; then
		$sb_check tfs /tmp/$sb_tag-tfs.vxt ${sb_name}_tracefs
	else
		for sb_kind in "$@"; do
			res SKIP ${sb_name}_tracefs_$sb_kind "no tracefs block events in the guest kernel"
		done
	fi
}

st_n() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

if ! st_run; then
	# a process that had to be killed fails the tests; a missing tool skips them
	for t in capture breakdown tracefs_capture tracefs_breakdown; do
		res $([ -n "$hung" ] && echo FAIL || echo SKIP) stack_$t "$st_why"
	done
else
	blkparse -D /tmp/st.d -i $st_dm -i nullb7 >/tmp/st-bp.txt 2>/tmp/st-bp.err
	dmdev=$(tr ':' ',' </sys/block/$st_dm/dev)
	nbdev=$(tr ':' ',' </sys/block/nullb7/dev)
	acts_dm=$(st_acts $dmdev)
	acts_nb=$(st_acts $nbdev)
	st_awk_bp $dmdev $nbdev >/tmp/st-bp-awk.txt
	st_both st_check st stack capture breakdown
fi

# ---- two deep: dm-linear "vxtstk2" over vxtstk over nullb7 ----
# vxtstk2's sector S is vxtstk's S + ST_OFF2, nullb7's S + ST_OFF2 + ST_OFF.
# The same reads and writes on vxtstk2, seen by blktrace and a kmod channel
# at --phases all on the three devices.
#   stack2_remap  per device, the module's remaps (A), queues and dones
#                 are blkparse's A, Q and C; vxtstk and nullb7 have one A
#                 for each I/O, vxtstk2 none
#   stack2_pairs  each completed vxtstk2 I/O reaches a completion on
#                 nullb7: in blkparse's text through the remaps' sources
#                 (nullb7's A names vxtstk's sector, vxtstk's A vxtstk2's);
#                 in the module's events through the table (a remap and a
#                 done on each device below at the mapped sector); and
#                 vxreplay's breakdown of the file has nullb7's Q2C from
#                 vxtstk2's queue with the N and average awk computes over
#                 the events
ST_OFF2=4096		# vxtstk2's start on vxtstk
st2_top=

st2_run() {
	vxtest dm-create vxtstk2 61440 linear "/dev/$st_dm $ST_OFF2" >/tmp/st2-dm.err 2>&1 ||
		{ st_why="dm-linear over $st_dm: $(cat /tmp/st2-dm.err)"; return 1; }
	i=0
	while [ -z "$st2_top" ] && [ $i -lt 50 ]; do
		for n in /sys/block/dm-*/dm/name; do
			[ "$(cat "$n" 2>/dev/null)" = vxtstk2 ] && st2_top=${n#/sys/block/} st2_top=${st2_top%%/*}
		done
		[ -n "$st2_top" ] && [ -b /dev/$st2_top ] && break
		st2_top=
		i=$((i + 1))
		sleep 0.1
	done
	[ -n "$st2_top" ] || { st_why="no block device for dm vxtstk2"; return 1; }
	st_trace st2 0 $st2_top $st2_top $st_dm nullb7
}

# st2_bp_pairs TOP MID BOT: "C=N pairs=N": vxtstk2's completions, and those
# whose sector a remap on MID names as its source, that remap's sector a
# remap on BOT names, and BOT completes at that remap's sector
st2_bp_pairs() {
	awk -v top="$1" -v mid="$2" -v bot="$3" '$6 !~ /^[A-Z]+$/ { next }
	{ a = $6; s = $8 }
	a == "A" { src = $12; gsub(/[()]/, "", src) }
	$1 == top && a == "C" { C[s] = 1; nc++ }
	$1 == mid && a == "A" && src == top { MA[s] = $13 }
	$1 == bot && a == "A" && src == mid { BA[s] = $13 }
	$1 == bot && a == "C" { BC[s] = 1 }
	END {
		for (s in BC)
			if ((s in BA) && (BA[s] in MA) && (MA[BA[s]] in C))
				np++
		printf "C=%d pairs=%d\n", nc, np
	}' /tmp/st2-bp.txt
}

# st2_ev_pairs CSV: "done=N pairs=N q2c=N AVG": vxtstk2's dones, those with
# its queue and on each device below a remap and a done at the mapped
# sector; nullb7's done less vxtstk2's queue over those
st2_ev_pairs() {
	awk -F, -v top="$st2_top" -v mid="$st_dm" -v o2=$ST_OFF2 -v o1=$ST_OFF '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ t = $c["time_ns"]; p = $c["phase"]; s = $c["sector"]; o = $c["object"] }
	o == top && p == "queue" { Q[s] = t }
	o == top && p == "done" { D[s] = 1; nd++ }
	o == mid { M[p, s] = 1 }
	o == "nullb7" && (p == "remap" || p == "done") { B[p, s] = t }
	END {
		for (s in D) {
			m = s + o2; b = m + o1
			if (!(s in Q) || !(("remap", m) in M) || !(("done", m) in M) ||
			    !(("remap", b) in B) || !(("done", b) in B))
				continue
			np++; sum += B["done", b] - Q[s]
		}
		printf "done=%d pairs=%d q2c=%d %d\n", nd, np, np, np ? int(sum / np + 0.5) : 0
	}' "$1"
}

if [ -n "$st_dm" ] && st2_run; then
	blkparse -D /tmp/st2.d -i $st2_top -i $st_dm -i nullb7 >/tmp/st2-bp.txt 2>/tmp/st2-bp.err
	topdev=$(tr ':' ',' </sys/block/$st2_top/dev)
	dmdev=$(tr ':' ',' </sys/block/$st_dm/dev)
	nbdev=$(tr ':' ',' </sys/block/nullb7/dev)
	vxreplay /tmp/st2-kmod.vxt --report events --format csv >/tmp/st2-kmod.csv 2>/tmp/st2-kmod.err
	vxreplay /tmp/st2-kmod.vxt --report breakdown --format json >/tmp/st2-kmod.json 2>>/tmp/st2-kmod.err
	n=$((ST_IOS + ST_W))
	d= sum=
	for dv in "$st2_top $topdev 0" "$st_dm $dmdev $n" "nullb7 $nbdev $n"; do
		set -- $dv
		acts=$(st_acts $2 /tmp/st2-bp.txt)
		ph=$(st_phases /tmp/st2-kmod.csv $1)
		a=$(st_n "$acts" A) q=$(st_n "$acts" Q) c=$(st_n "$acts" C)
		got="A=$(st_n "$ph" remap) Q=$(st_n "$ph" queue) C=$(st_n "$ph" done)"
		got=$(echo "$got" | sed 's/=\( \|$\)/=0\1/g')
		want="A=${a:-0} Q=${q:-0} C=${c:-0}"
		[ "$got" = "$want" ] && [ "${a:-0}" = $3 ] && [ "$c" = $n ] ||
			d="$d $1: module $got, blkparse $want (A=$3 C=$n wanted);"
		sum="$sum $1 $got;"
	done
	if [ -z "$d" ]; then
		res PASS stack2_remap "dm-linear $st2_top over $st_dm over nullb7, $n I/Os on $st2_top:$sum as blkparse's"
	else
		res FAIL stack2_remap "$d $(head -c 300 /tmp/st2-kmod.err)"
	fi
	bp=$(st2_bp_pairs $topdev $dmdev $nbdev)
	ev=$(st2_ev_pairs /tmp/st2-kmod.csv)
	aq=${ev#*q2c=}
	vq=$(st_bd /tmp/st2-kmod.json nullb7 q2c)
	if [ "$bp" = "C=$n pairs=$n" ] && [ "${ev%% q2c=*}" = "done=$n pairs=$n" ] &&
	   [ "$aq" = "$vq" ]; then
		res PASS stack2_pairs "each of the $n completed I/Os of $st2_top reaches nullb7: blkparse through the remaps' sources ($bp), the module's events ($ev); vxreplay's nullb7 Q2C from $st2_top's queue (N avg_ns) $vq"
	else
		res FAIL stack2_pairs "blkparse '$bp', module events '$ev' (want $n of $n), nullb7 Q2C: awk '$aq', vxreplay '$vq'"
	fi
else
	for t in remap pairs; do
		res $([ -n "$hung" ] && echo FAIL || echo SKIP) stack2_$t "${st_why:-no dm-linear vxtstk}"
	done
fi

# ---- md RAID-1 ----
# md0 mirrors nullb12 and nullb13 (no superblock: member sector = md0's;
# each I/O MD_NS on a timer). The same workload as above: a read goes to
# one mirror, a write to both, so the members' remaps add up to ST_IOS +
# 2 x ST_W, and each copy is paired on its own.
#   md_capture  per device, the module's phases are blkparse's actions (md0
#               Q and C at bio level; each mirror A, Q, G, D, C), md0 has
#               ST_IOS + ST_W queues and the mirrors' remaps add up as above
#   md_pairs    per mirror, vxreplay's Q2C from md0's queue and D2C have
#               the N and average of an awk pairing over the file's events
#               (mirror done at S with md0's queue at S) and blkparse's N
#               through each remap's source; md0's Q2C N is every I/O;
#               nothing unpaired
MD_NS=200000

md_running() {
	[ -b /dev/md0 ] || return 1
	case $(cat /sys/block/md0/md/array_state 2>/dev/null) in
	clean|active) return 0 ;;
	esac
	return 1
}

md_setup() {
	for m in md-mod raid1; do
		[ -f $M/$m.ko ] || { st_why="the guest kernel has no $m module"; return 1; }
		# loaded already when /sys/module has it ('-' there is '_')
		insmod $M/$m.ko 2>/dev/null || [ -d /sys/module/$(echo $m | tr - _) ] ||
			{ st_why="insmod $m failed"; return 1; }
	done
	for n in 12 13; do
		nullb_timer $n $MD_NS hw_queue_depth=8 || { st_why="cannot create nullb$n"; return 1; }
	done
	vxtest md-create /dev/md0 65536 /dev/nullb12 /dev/nullb13 >/tmp/md-create.err 2>&1 ||
		{ st_why="md RAID-1 over nullb12 and nullb13: $(cat /tmp/md-create.err)"; return 1; }
	i=0
	while ! md_running; do
		i=$((i + 1))
		[ $i -gt 50 ] && { st_why="md0 not running: $(cat /sys/block/md0/md/array_state 2>&1)"; return 1; }
		sleep 0.1
	done
	# a new kernel scans a disk's partitions at its first open: let that
	# happen now, not when a tracer opens md0 with another already tracing
	dd if=/dev/md0 of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
	sleep 0.2
	return 0
}

# md_ev_pairs CSV MIRROR: "q2c N AVG d2c N AVG" over the events: the
# mirror's done at S paired with md0's queue at S and with its own start
md_ev_pairs() {
	awk -F, -v mr="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ t = $c["time_ns"]; p = $c["phase"]; s = $c["sector"]; o = $c["object"] }
	o == "md0" && p == "queue" { Q[s] = t }
	o == mr && p == "start" { D[s] = t }
	o == mr && p == "done" && (s in Q) { n1++; s1 += t - Q[s] }
	o == mr && p == "done" && (s in D) { n2++; s2 += t - D[s] }
	END { printf "q2c %d %d d2c %d %d\n", n1, n1 ? int(s1 / n1 + 0.5) : 0,
		n2, n2 ? int(s2 / n2 + 0.5) : 0 }' "$1"
}

# md_bp_pairs MDDEV MIRDEV: the mirror's completions paired with md0's
# queue through each remap's source ("A W 2048 + 8 <- (9,0) 2048"): "N"
md_bp_pairs() {
	awk -v md="$1" -v mr="$2" '$6 !~ /^[A-Z]+$/ { next }
	$1 == md && $6 == "Q" { Q[$8] = 1 }
	$1 == mr && $6 == "A" { src = $12; gsub(/[()]/, "", src); if (src == md && ($13 in Q)) QA[$8] = 1 }
	$1 == mr && $6 == "C" && ($8 in QA) { n++ }
	END { print n + 0 }' /tmp/md-bp.txt
}

# md_check LABEL VXT NAME: the checks NAME_capture and NAME_pairs of one file
md_check() {
	label=$1 f=$2 name=$3
	vxreplay $f --report events --format csv >/tmp/md-$label.csv 2>/tmp/md-$label.err
	vxreplay $f --report breakdown --format json >/tmp/md-$label.json 2>>/tmp/md-$label.err
	n=$((ST_IOS + ST_W))
	d= sum= remaps=0
	for o in md0 nullb12 nullb13; do
		acts=$(st_acts $(tr ':' ',' </sys/block/$o/dev) /tmp/md-bp.txt)
		ph=$(st_phases /tmp/md-$label.csv $o)
		got="A=$(st_n "$ph" remap) C=$(st_n "$ph" done) D=$(st_n "$ph" start)"
		got="$got G=$(st_n "$ph" getrq) Q=$(st_n "$ph" queue)"
		got=$(echo "$got" | sed 's/=\( \|$\)/=0\1/g')
		want="A=$(st_n "$acts" A) C=$(st_n "$acts" C) D=$(st_n "$acts" D)"
		want="$want G=$(st_n "$acts" G) Q=$(st_n "$acts" Q)"
		want=$(echo "$want" | sed 's/=\( \|$\)/=0\1/g')
		[ "$got" = "$want" ] || d="$d $o: $label $got, blkparse $want;"
		[ $o = md0 ] || remaps=$((remaps + $(st_n "$acts" A)))
		sum="$sum $o $got;"
	done
	mdq=$(st_n "$(st_phases /tmp/md-$label.csv md0)" queue)
	[ "$mdq" = $n ] || d="$d md0: $mdq queues of $n I/Os;"
	[ $remaps = $((ST_IOS + 2 * ST_W)) ] ||
		d="$d the mirrors' remaps $remaps, not $ST_IOS reads + 2 x $ST_W writes;"
	if [ -z "$d" ]; then
		res PASS ${name}_capture "md RAID-1 md0 over nullb12 and nullb13, $ST_IOS reads and $ST_W writes:$sum as blkparse's; the mirrors' remaps $remaps = reads + 2 x writes"
	else
		res FAIL ${name}_capture "$d $(head -c 300 /tmp/md-$label.err)"
		res SKIP ${name}_pairs "the capture differs"
		return 1
	fi
	d= sum= total=0
	for o in nullb12 nullb13; do
		set -- $(md_ev_pairs /tmp/md-$label.csv $o)
		aq="$2 $3" ad="$5 $6"
		vq=$(st_bd /tmp/md-$label.json $o q2c)
		vd=$(st_bd /tmp/md-$label.json $o d2c)
		bn=$(md_bp_pairs $mddev $(tr ':' ',' </sys/block/$o/dev))
		[ "$aq" = "$vq" ] && [ "$ad" = "$vd" ] && [ "${vq%% *}" = "$bn" ] ||
			d="$d $o: Q2C awk '$aq' vxreplay '$vq' blkparse N $bn, D2C awk '$ad' vxreplay '$vd';"
		total=$((total + bn))
		sum="$sum $o Q2C $vq D2C $vd;"
	done
	vm=$(st_bd /tmp/md-$label.json md0 q2c)
	[ "${vm%% *}" = $n ] || d="$d md0 Q2C '$vm', N not $n;"
	[ $total = $((ST_IOS + 2 * ST_W)) ] || d="$d $total mirror completions paired, not $((ST_IOS + 2 * ST_W));"
	u=$(st_unpaired /tmp/md-$label.json)
	if [ -z "$d" ] && [ -z "$u" ]; then
		res PASS ${name}_pairs "each copy on a mirror is paired with md0's queue:$sum (N avg_ns) awk's over the events, N blkparse's through the remaps ($total in all); md0 Q2C $vm; nothing unpaired"
	else
		res FAIL ${name}_pairs "$d unpaired: $u"
	fi
}

st_why=
if md_setup && st_trace md 1 md0 md0 nullb12 nullb13; then
	blkparse -D /tmp/md.d -i md0 -i nullb12 -i nullb13 >/tmp/md-bp.txt 2>/tmp/md-bp.err
	mddev=$(tr ':' ',' </sys/block/md0/dev)
	st_both md_check md md capture pairs
else
	for t in capture pairs tracefs_capture tracefs_pairs; do
		res $([ -n "$hung" ] && echo FAIL || echo SKIP) md_$t "$st_why"
	done
fi
