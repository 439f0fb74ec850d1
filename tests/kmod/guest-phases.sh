# guest-phases.sh - every block-layer phase from the module, sourced by
# guest.sh with the module loaded when vxrecord, vxreplay, blktrace, blkparse
# and btt are in the guest.
#
# nullb6 completes each I/O after PH_NS on a timer and has one hardware tag
# behind mq-deadline: PH_DEPTH dd read at once, each its own region, so all
# but one read wait in the scheduler (I2D >> 0) and each takes PH_NS on the
# device (D2C); no two reads in flight are adjacent, so none merges. The
# same run is seen by blktrace, by a kmod channel at --phases all and by one
# at --phases issue. Independent references: btt on blktrace's records, and
# blkparse's count of each action.
#   phases_capture    the phases-all file counts Q, G, I, D, C as blkparse does;
#                     its header says phases: all
#   phases_level      the phases-issue file of the same run has start and done
#                     only, as many as blkparse's D and C
#   phases_breakdown  vxreplay --report breakdown of the module's file: every
#                     interval's N is btt's on blktrace's records (Q2Q: btt's
#                     N is vxreplay's plus its q2q_out_of_order); its averages
#                     and out-of-order count are those awk computes over the
#                     file's events (per I/O by sector); I2D >> 0; no D2C is
#                     under PH_NS and the shortest is PH_NS within the timer's
#                     reach (PH_SLACK_NS)
#   phases_export     btt on vxreplay --export blktrace of the module's file
#                     gives the same table (N exactly, averages within btt's
#                     1 ns rounding; Q2Q as awk computes btt's rule: from the
#                     queue before, an earlier one as 1 ns);
#                     tests/cli/export_blktrace.sh checks that a file of
#                     issues and completions exports D and C only
# expect: phases_capture phases_level phases_breakdown phases_export

PH_NS=2000000		# null_blk completion_nsec
PH_IOS=96		# reads: PH_DEPTH dd of PH_IOS / PH_DEPTH reads each
PH_DEPTH=8
# D2C above PH_NS: the hrtimer's expiry, its softirq and the completion path
# under TCG (a loaded host delays many more, hence the shortest only).
PH_SLACK_NS=500000

ph_why=
ph_run() {
	for t in blktrace blkparse btt vxrecord vxreplay; do
		command -v $t >/dev/null 2>&1 || { ph_why="$t not in the guest"; return 1; }
	done
	[ -d /sys/kernel/debug/block ] ||
		{ ph_why="no debugfs block directory (CONFIG_BLK_DEV_IO_TRACE?)"; return 1; }
	nullb_timer 6 $PH_NS submit_queues=1 hw_queue_depth=1 ||
		{ ph_why="cannot create nullb6"; return 1; }
	echo mq-deadline >/sys/block/nullb6/queue/scheduler &&
		echo 64 >/sys/block/nullb6/queue/nr_requests ||
		{ ph_why="nullb6: no mq-deadline with 64 requests"; return 1; }
	rm -f /tmp/ph.blktrace.*
	blktrace -d /dev/nullb6 -D /tmp -o ph >/tmp/ph-bt.out 2>&1 &
	ph_bt=$!
	vxrecord -q -f --source kmod --objects nullb6 --phases all -o /tmp/ph-all.vxt \
		2>/tmp/ph-all.err &
	ph_all=$!
	vxrecord -q -f --source kmod --objects nullb6 -o /tmp/ph-issue.vxt \
		2>/tmp/ph-issue.err &
	ph_issue=$!
	i=0
	while [ ! -e /tmp/ph.blktrace.0 ] ||
	      [ "$(cat /sys/module/vxtrace/parameters/tracing_channels)" != 2 ]; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			ph_why="recorders did not start: $(cat /tmp/ph-bt.out /tmp/ph-all.err /tmp/ph-issue.err | head -n 3 | tr '\n' ' ')"
			kill -INT $ph_bt $ph_all $ph_issue 2>/dev/null
			wait_for 60 $ph_bt $ph_all $ph_issue
			return 1
		fi
		sleep 0.1
	done
	sleep 0.3
	k=0
	ph_dd=
	while [ $k -lt $PH_DEPTH ]; do
		dd if=/dev/nullb6 of=/dev/null bs=4k count=$((PH_IOS / PH_DEPTH)) \
			skip=$((k * 1024)) iflag=direct 2>/dev/null &
		ph_dd="$ph_dd $!"
		k=$((k + 1))
	done
	wait_for 120 $ph_dd
	sleep 0.3
	kill -INT $ph_all $ph_issue $ph_bt
	wait_for 60 $ph_all $ph_issue $ph_bt
	[ -z "$ph_why" ]
}

# ph_btt FILE IV: "N AVG_NS" of interval IV (Q2C, D2C...) in the All
# Devices table of btt's output FILE (Q2Qdm, Q2Cdm: btt's names when no
# remap was seen)
ph_btt() {
	awk -v iv="$2" '/^=+ All Devices =+/ { on = 1; next } /^=+ / { on = 0 }
		on && ($1 == iv || $1 == iv "dm") { printf "%d %.0f\n", $5, $3 * 1e9; exit }' "$1"
}

# ph_awk CSV: "iv N AVG_NS" lines of the intervals from the events CSV,
# each I/O known by its sector (the workload never reads a sector twice);
# q2q from the latest queue in the file's order to the next, a queue
# earlier than the latest counted in "ooo N" and not timed (vxreplay's
# rule); "btt N AVG_NS" is Q2Q as btt(1) takes it: from the queue before
# in the file, an earlier one timed as 1 ns
ph_awk() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ t = $c["time_ns"]; p = $c["phase"]; s = $c["sector"] }
	p == "queue" {
		if (lq == "") lq = t
		else if (t < lq) ooo++
		else { q2q += t - lq; nq2q++; lq = t }
		if (pq != "") { bq2q += t > pq ? t - pq : 1; nb++ }
		pq = t
	}
	p == "queue" || p == "getrq" || p == "insert" || p == "start" || p == "done" {
		T[p, s] = t; S[s] = 1 }
	END {
		printf "q2q %d %d\n", nq2q, nq2q ? int(q2q / nq2q + 0.5) : 0
		printf "ooo %d\n", ooo
		printf "btt %d %d\n", nb, (nb ? int(bq2q / nb + 0.5) : 0)
		split("q2g queue getrq g2i getrq insert i2d insert start d2c start done q2c queue done", w, " ")
		for (k = 1; k <= 15; k += 3) {
			n = sum = 0
			for (s in S)
				if ((w[k + 1], s) in T && (w[k + 2], s) in T) {
					n++
					sum += T[w[k + 2], s] - T[w[k + 1], s]
				}
			printf "%s %d %d\n", w[k], n, n ? int(sum / n + 0.5) : 0
		}
	}' "$1"
}

# ph_bd FILE IV: "N AVG_NS" of interval iv (q2c, d2c...) over all objects
# in vxreplay's breakdown JSON
ph_bd() {
	grep -o "\"$2\": {\"n\": [0-9]*, \"min_ns\": [0-9]*, \"avg_ns\": [0-9]*" "$1" |
		head -n 1 | sed 's/.*"n": \([0-9]*\),.*"avg_ns": \([0-9]*\)/\1 \2/'
}

# ph_ooo BD_JSON: q2q_out_of_order over all objects in the breakdown JSON
ph_ooo() {
	grep -o '"q2q_out_of_order": {"all": [0-9]*' "$1" | sed 's/.*: //'
}

# ph_same BTT_OUT BD_JSON AWK_OUT [N]: empty when every interval agrees,
# else what differs; with N only the counts. Q2Q follows the queues' order
# in the file, and a guest CPU stalled between its stamp and its record can
# leave one out of order: vxreplay leaves it untimed and counts it, btt
# times it from the queue before as 1 ns, so btt's N is vxreplay's plus that
# count and btt's average is AWK_OUT's "btt" line
ph_same() {
	diff_=
	only_n=${4:-}
	ooo=$(ph_ooo "$2")
	bttq=$(sed -n 's/^btt [0-9]* //p' "$3")
	for iv in Q2Q Q2G G2I Q2M I2D M2D D2C Q2C; do
		lc=$(echo $iv | tr 'QGIMDC' 'qgimdc')
		b=$(ph_btt "$1" $iv)
		v=$(ph_bd "$2" $lc)
		set -- "$1" "$2" "$3" "$only_n" $b
		bn=${5:-0} ba=${6:-0}
		set -- "$1" "$2" "$3" "$only_n" $v
		vn=${5:-0} va=${6:-0}
		if [ $iv = Q2Q ]; then
			vn=$((vn + ${ooo:-0}))
			va=${bttq:-0}
		fi
		d=$((va - ba))
		[ $d -lt 0 ] && d=$((-d))
		if [ "$bn" != "$vn" ] || { [ -z "$only_n" ] && [ $d -gt 1 ]; }; then
			diff_="$diff_ $lc: btt N=$bn avg=$ba ns, vxreplay N=$vn avg=$va ns (Q2Q: N + $ooo out of order, avg as btt takes it);"
		fi
	done
	echo "$diff_"
}

# ph_acts FILE: "A=N ..." for blkparse's action letters of text output FILE
ph_acts() {
	awk '$1 ~ /^[0-9]+,[0-9]+$/ && $6 ~ /^[A-Z]+$/ { n[$6]++ }
		END { for (a in n) printf "%s=%d\n", a, n[a] }' "$1" | sort | tr '\n' ' '
}

# ph_act ACTS LETTER: the count of one action
ph_act() {
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# ph_phases FILE CSV: "phase=N ..." of vxreplay's events CSV, written to CSV
ph_phases() {
	vxreplay "$1" --report events --format csv >"$2" 2>/dev/null || return 1
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "phase") c = i; next }
		c { n[$c]++ } END { for (p in n) printf "%s=%d\n", p, n[p] }' "$2" |
		sort | tr '\n' ' '
}

if ! ph_run; then
	for t in capture level breakdown export; do
		res SKIP phases_$t "$ph_why"
	done
else
	blkparse -i /tmp/ph -d /tmp/ph.bin >/tmp/ph-bp.txt 2>/tmp/ph-bp.err
	(cd /tmp && btt -i ph.bin >/tmp/ph-btt.txt 2>&1)
	acts=$(ph_acts /tmp/ph-bp.txt)
	all=$(ph_phases /tmp/ph-all.vxt /tmp/ph-all.csv)
	issue=$(ph_phases /tmp/ph-issue.vxt /tmp/ph-issue.csv)
	vxreplay /tmp/ph-all.vxt --report breakdown --format json >/tmp/ph-bd.json 2>&1

	# capture: the module's phases are blkparse's actions, one for one
	want="done=$(ph_act "$acts" C) getrq=$(ph_act "$acts" G) insert=$(ph_act "$acts" I)"
	want="$want queue=$(ph_act "$acts" Q) start=$(ph_act "$acts" D)"
	got=$(echo "$all" | tr ' ' '\n' | grep -E '^(done|getrq|insert|queue|start)=' | tr '\n' ' ')
	if [ "$(ph_act "$acts" Q)" = $PH_IOS ] && [ "${got% }" = "$want" ] &&
	   grep -q '^{"capture": "all", "breakdown": true' /tmp/ph-bd.json; then
		res PASS phases_capture "nullb6, $PH_IOS reads $PH_DEPTH at once: the --phases all file has $got as blkparse's Q G I D C ($acts), header phases: all"
	else
		res FAIL phases_capture "module phases '$got', blkparse '$acts' (want $want, Q=$PH_IOS); $(head -c 50 /tmp/ph-bd.json); $(cat /tmp/ph-all.err)"
	fi

	want="done=$(ph_act "$acts" C) start=$(ph_act "$acts" D)"
	if [ "${issue% }" = "$want" ]; then
		res PASS phases_level "the --phases issue channel of the same run: $issue only"
	else
		res FAIL phases_level "issue-level file has '$issue' (want '$want'); $(cat /tmp/ph-issue.err)"
	fi

	ph_awk /tmp/ph-all.csv >/tmp/ph-awk.txt
	d=$(ph_same /tmp/ph-btt.txt /tmp/ph-bd.json /tmp/ph-awk.txt n)
	while read -r iv a; do
		case $iv in
		btt) continue ;;
		ooo) v=$(ph_ooo /tmp/ph-bd.json) ;;
		*) v=$(ph_bd /tmp/ph-bd.json $iv) ;;
		esac
		[ "$a" = "$v" ] || d="$d $iv: awk over the events 'N avg' $a, vxreplay $v;"
	done </tmp/ph-awk.txt
	set -- $(ph_bd /tmp/ph-bd.json i2d)
	i2d=${2:-0}
	set -- $(ph_bd /tmp/ph-bd.json d2c)
	d2c=${2:-0}
	d2c_min=$(grep -o '"d2c": {"n": [0-9]*, "min_ns": [0-9]*' /tmp/ph-bd.json | head -n 1 |
		sed 's/.*"min_ns": //')
	if [ -z "$d" ] && [ "$i2d" -gt $((2 * PH_NS)) ] && [ "${d2c_min:-0}" -ge $PH_NS ] &&
	   [ "${d2c_min:-0}" -lt $((PH_NS + PH_SLACK_NS)) ]; then
		res PASS phases_breakdown "the module's breakdown has btt's N and awk's averages ($(ph_ooo /tmp/ph-bd.json) queues out of order): I2D avg $i2d ns, D2C avg $d2c ns (min $d2c_min, null_blk $PH_NS); btt on blktrace's records: $(ph_btt /tmp/ph-btt.txt I2D | cut -d' ' -f2) and $(ph_btt /tmp/ph-btt.txt D2C | cut -d' ' -f2) ns"
	else
		res FAIL phases_breakdown "I2D avg $i2d ns (want > $((2 * PH_NS))), D2C min $d2c_min ns (want $PH_NS..$((PH_NS + PH_SLACK_NS)));$d"
		sed -n '/All Devices/,/Device Overhead/p' /tmp/ph-btt.txt
		cat /tmp/ph-bd.json
	fi

	vxreplay /tmp/ph-all.vxt --export blktrace -o /tmp/ph-exp.bin 2>/tmp/ph-exp.err &&
		(cd /tmp && btt -i ph-exp.bin >/tmp/ph-exp-btt.txt 2>&1)
	d=$(ph_same /tmp/ph-exp-btt.txt /tmp/ph-bd.json /tmp/ph-awk.txt)
	if [ -s /tmp/ph-exp-btt.txt ] && [ -z "$d" ]; then
		res PASS phases_export "btt on --export blktrace of the module's file gives the breakdown's table (N exact, Q2Q's with $(ph_ooo /tmp/ph-bd.json) out of order; averages within 1 ns)"
	else
		res FAIL phases_export "btt on the export differs:$d $(cat /tmp/ph-exp.err)"
		sed -n '/All Devices/,/Device Overhead/p' /tmp/ph-exp-btt.txt
	fi
fi
