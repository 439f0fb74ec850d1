#!/bin/sh
# crash_kill.sh - SIGKILL vxrecord at 30 random moments of a simulated capture,
# with and without --sync, and check what it leaves behind:
#  - the file opens (vxreplay --info) and reads by a recovery scan;
#  - vxreplay --verify passes, or fails naming the torn tail;
#  - the events are exactly a prefix of what the same seed produces (compared
#    as `--report events --format csv`, times taken from the first event);
#  - at most the unclosed chunk is missing: no more than one chunk period
#    (1 s) of events short of what the simulator had produced by the kill;
#  - the same file cut inside its last chunk (a machine crash with a partly
#    written tail) is named torn by --verify and keeps the chunks before it.
# VXT_CRASH_SEED=N replays one set of kill moments; VXT_CRASH_KILLS=N changes
# the number of kills (10 under the sanitizers, which look for memory errors
# on these paths, not for more torn files).
. "${VXT_TOP:?}/tests/lib.sh"
rate=5000
kills=${VXT_CRASH_KILLS:-$([ -n "${VXT_SAN:-}" ] && echo 10 || echo 30)}
seed=${VXT_CRASH_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
tmp=$T

# csv -> csv with the time column made relative to the first event, and
# without the host column (the simulator names a paced capture after the
# machine, an unpaced one "simulator")
norm() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "host") h = i; next }
		{ t = substr($1, length($1) - 12) + 0; if (NR == 2) b = t
		  $1 = sprintf("%.0f", (t - b + 1e13) % 1e13); if (h) $h = ""; print }' OFS=, "$1"
}
uptime_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

echo "kill moments from VXT_CRASH_SEED=$seed"
"$B/vxrecord" -q --source sim --seed 9 --rate $rate -c 16000 -o "$tmp/ref.vxt" ||
	{ fail "reference capture"; finish; }
"$B/vxreplay" "$tmp/ref.vxt" --report events --format csv > "$tmp/ref.csv" || { fail "ref csv"; finish; }
norm "$tmp/ref.csv" > "$tmp/ref.norm"

delays=$(awk -v s="$seed" -v n="$kills" \
	'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%.2f\n", 0.15 + rand() * 1.65 }')
# The kills go in rounds of three: each round starts three pairs of captures
# at once and kills each pair at its own moment, earliest first, so a
# round waits for its latest moment only, not for the sum of the three.
set -- $delays
i=0 torn=0
while [ $# -gt 0 ]; do
	rm -f "$tmp"/k-*.vxt
	round=
	for j in 1 2 3; do
		[ $# -gt 0 ] || break
		i=$((i + 1))
		round="$round $i"
		eval "d_$i=$1 t0_$i=$(uptime_cs)"
		shift
		"$B/vxrecord" -q --source sim --realtime --seed 9 --rate $rate -c 1000000 \
			-o "$tmp/k-$i-plain.vxt" & eval "p1_$i=$!"
		"$B/vxrecord" -q --source sim --realtime --seed 9 --rate $rate -c 1000000 --sync \
			-o "$tmp/k-$i-sync.vxt" & eval "p2_$i=$!"
	done
	for k in $(for k in $round; do eval "echo \$d_$k $k"; done | sort -n | cut -d' ' -f2); do
		eval "d=\$d_$k t0=\$t0_$k"
		# until this pair's moment, counted from its own start
		left=$(awk -v a="$t0" -v b="$(uptime_cs)" -v d="$d" \
			'BEGIN { l = d - (b - a) / 100; printf "%.2f", (l > 0 ? l : 0) }')
		sleep "$left"
		eval "kill -9 \$p1_$k \$p2_$k"
		eval "t1_$k=$(uptime_cs)"
	done
	wait 2>/dev/null
	for k in $round; do
		eval "d=\$d_$k t0=\$t0_$k t1=\$t1_$k"
		for mode in plain sync; do
			f=$tmp/k-$k-$mode.vxt
			what="kill $k at ${d}s ($mode)"
			[ -s "$f" ] || { fail "$what: no file"; continue; }
			"$B/vxreplay" --info "$f" > "$tmp/info" 2>&1 || { cat "$tmp/info"; fail "$what: --info"; continue; }
			grep -q "recovered by a forward scan" "$tmp/info" || fail "$what: not recovered by scan"
			if ! "$B/vxreplay" --verify "$f" > "$tmp/verify" 2>&1; then
				grep -q "torn" "$tmp/verify" || { cat "$tmp/verify"; fail "$what: --verify"; }
				torn=$((torn + 1))
			fi
			"$B/vxreplay" "$f" --report events --format csv > "$tmp/got.csv" 2>"$tmp/err" ||
				{ cat "$tmp/err"; fail "$what: events report"; continue; }
			norm "$tmp/got.csv" > "$tmp/got.norm"
			n=$(wc -l < "$tmp/got.norm")
			head -n "$n" "$tmp/ref.norm" | cmp -s - "$tmp/got.norm" ||
				fail "$what: the $n recovered events are not a prefix of the seed's events"
			# produced by the kill <= rate * elapsed; one chunk spans at most 1 s
			min=$(awk -v r=$rate -v a="$t0" -v b="$t1" -v n="$n" \
				'BEGIN { m = r * ((b - a) / 100 - 1.3) - 200; print (n >= m) ? 0 : int(m) }')
			[ "$min" = 0 ] || fail "$what: only $n events recovered, expected at least $min"
			echo "$what: $n events, a prefix"
			# a crash with a partly written tail: cut the file inside its last chunk
			off=$(awk '$1 ~ /^[0-9]+$/ && NF >= 9 { o = $2 } END { print o }' "$tmp/info")
			size=$(wc -c < "$f")
			if [ -n "$off" ] && [ "$off" -gt 0 ] && [ "$n" -gt 0 ]; then
				cut=$((off + 1 + (size - off - 2) * k / (kills + 1)))
				head -c "$cut" "$f" > "$tmp/cut.vxt"
				"$B/vxreplay" --verify "$tmp/cut.vxt" > "$tmp/verify" 2>&1 &&
					fail "$what: cut at $cut of $size: --verify passed"
				grep -q "torn" "$tmp/verify" || { cat "$tmp/verify"; fail "$what: cut: no torn"; }
				"$B/vxreplay" "$tmp/cut.vxt" --report events --format csv > "$tmp/cut.csv" ||
					{ fail "$what: cut: events report"; continue; }
				m=$(($(wc -l < "$tmp/cut.csv") - 1))
				last=$(awk '$1 ~ /^[0-9]+$/ && NF >= 9 { e = $5 } END { print e }' "$tmp/info")
				[ "$m" -eq $((n - last)) ] ||
					fail "$what: cut: $m events, expected $((n - last)) (all but the last chunk)"
			fi
		done
	done
done
if [ $fails = 0 ]; then
	ok "$kills kills x 2 modes: every file opened and held a prefix; $torn torn by the kill itself"
else
	echo "(kill moments from VXT_CRASH_SEED=$seed)"
fi
finish
