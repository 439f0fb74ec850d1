#!/bin/sh
# fleet_merge.sh - several hosts' traces on one timeline: two simulated hosts
# (different seeds, clock anchors 2.5 s apart) opened together give the
# time-ordered union of their events (the reference: each file's own events
# report, shifted by its anchor and sorted with sort(1)), counts that add up,
# an error of host B at the same wall-clock time as in B's own file, `host` in
# filters, scripts and exports; a rotated set (a directory, a glob) reads as
# the unrotated recording of the same seed; a host whose clock is 3 h off
# is merged with one warning naming the gap (computed from the events); and
# the same file twice, the same host twice, a file without a clock anchor, a
# glob or directory without files each give one line and exit 1.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
cd "$tmp" || { fail "cd $tmp"; finish; }
rec() { "$b/vxrecord" -q -s sim -d 4s --rate 3000 "$@"; }
rep() { "$b/vxreplay" "$@"; }

rec --seed 3 --host alpha -o a.vxt || fail "recording host alpha failed"
rec --seed 5 --host beta --clock-offset 2.5s --sim-errors 'sdb@1.5+6:EIO' -o b.vxt ||
	fail "recording host beta failed"

# --- each file's clock offset (realtime - monotonic of its anchor) ---------
offset() {
	line=$(rep --info "$1" | sed -n 's/.*clock: monotonic \([0-9]*\) = realtime \([0-9]*\)).*/\1 \2/p')
	[ -n "$line" ] || fail "--info $1 shows no clock anchor"
	set -- $line
	echo $(($2 - $1))
}
oa=$(offset a.vxt) ob=$(offset b.vxt)
[ $((ob - oa)) -eq 2500000000 ] || fail "--clock-offset 2.5s: anchors differ by $((ob - oa)) ns"
min=$oa
[ "$ob" -lt "$min" ] && min=$ob
sa=$((oa - min)) sb=$((ob - min))

# --- the merged events: the union of both, shifted, in time order ----------
rep a.vxt --report events --format csv > a.csv || fail "events of a.vxt failed"
rep b.vxt --report events --format csv > b.csv || fail "events of b.vxt failed"
rep a.vxt b.vxt --report events --format csv > m.csv || fail "merged events failed"
shift_rows() {	# FILE SHIFT HOST: rows with times moved and objects host:object,
		# without rel_ns (each file's own time base; checked below)
	tail -n +2 "$1" | awk -F, -v OFS=, -v s="$2" -v h="$3" \
		'{ $1 = sprintf("%.0f", $1 + s); if ($2 != "") $2 = h ":" $2; NF = NF - 1; print }'
}
{ shift_rows a.csv "$sa" alpha; shift_rows b.csv "$sb" beta; } | sort -s -t, -k1,1n > ref.csv
tail -n +2 m.csv | awk -F, -v OFS=, '{ NF = NF - 1; print }' > mrows.csv
awk -F, 'NR == 2 { t0 = $1 } NR > 1 && $NF != $1 - t0 { bad = 1 } END { exit bad }' m.csv ||
	fail "the merged CSV's rel_ns is not from its first event"
na=$(($(wc -l < a.csv) - 1)) nb=$(($(wc -l < b.csv) - 1)) nm=$(wc -l < mrows.csv)
[ "$na" -gt 1000 ] && [ "$nb" -gt 1000 ] || fail "too few events: $na and $nb"
[ "$nm" -eq $((na + nb)) ] || fail "merged has $nm events, the files $na + $nb"
cmp -s ref.csv mrows.csv ||
	fail "merged events differ from the sorted union: $(diff ref.csv mrows.csv | head -n 4)"
head -n 1 m.csv | grep -q ',cpu,host,rel_ns$' || fail "the events CSV has no host column"
awk -F, '$NF != "alpha" && $NF != "beta"' mrows.csv | grep -q . && fail "a row without its host"
grep -q ',alpha$' mrows.csv && grep -q ',beta$' mrows.csv || fail "hosts missing from rows"

# --- counts add up ----------------------------------------------------------
sum() { rep "$@" --report summary --format csv | tail -n 1; }
IFS=, read -r _ _ _ ea _ _ _ _ ra _ <<EOF
$(sum a.vxt)
EOF
IFS=, read -r _ _ _ eb _ _ _ _ rb _ <<EOF
$(sum b.vxt)
EOF
IFS=, read -r _ _ _ em _ _ _ _ rm _ objs <<EOF
$(sum a.vxt b.vxt)
EOF
[ "$em" -eq $((ea + eb)) ] || fail "summary: $em events, the files $ea + $eb"
[ "$rm" -eq $((ra + rb)) ] && [ "$rb" -gt 0 ] || fail "summary: $rm errors, the files $ra + $rb"
[ "$objs" -eq 8 ] || fail "summary: $objs objects, expected 4 per host"
rep a.vxt b.vxt --report objects --format csv | cut -d, -f1 | grep -qx 'beta:sdb' ||
	fail "the objects report does not name beta:sdb"

# --- an error of host B at T is at T on the shared timeline ----------------
tb=$(awk -F, '$3 == "done" && $9 != 0 { print $1; exit }' b.csv)
[ -n "$tb" ] || fail "host beta has no error"
tm=$(awk -F, '$3 == "done" && $9 != 0 && $NF == "beta" { print $1; exit }' mrows.csv)
[ "$((tm + min))" -eq "$((tb + ob))" ] ||
	fail "beta's first error: wall clock $((tb + ob)) in b.vxt, $((tm + min)) merged"
wall() { rep "$@" --report errors | awk 'NR == 2 { print $2 }'; }
w1=$(wall b.vxt) w2=$(wall a.vxt b.vxt --filter 'host == beta')
[ -n "$w1" ] && [ "$w1" = "$w2" ] || fail "beta's first error at $w1 alone, $w2 merged"

# --- host in filters, scripts, JSON ----------------------------------------
IFS=, read -r _ _ _ ef _ _ _ _ rf _ <<EOF
$(sum a.vxt b.vxt --filter 'host == beta')
EOF
[ "$ef" -eq "$eb" ] && [ "$rf" -eq "$rb" ] || fail "host == beta kept $ef events $rf errors"
IFS=, read -r _ _ _ ef _ <<EOF
$(sum a.vxt b.vxt --filter 'host ~ "al*" && object == "alpha:sda"')
EOF
IFS=, read -r _ _ _ es _ <<EOF
$(sum a.vxt --objects sda)
EOF
[ "$ef" -eq "$es" ] || fail "host ~ al* on alpha:sda kept $ef events, a.vxt's sda has $es"
printf 'io:::error { @e[host] = count(); }\n' > h.d
rep a.vxt b.vxt --script ./h.d > h.out || fail "a script over the merged files failed"
hb=$(awk '$1 == "beta" { print $2 }' h.out)
[ "$hb" -eq "$rb" ] || fail "the script counts $hb errors on beta, b.vxt has $rb"
rep a.vxt b.vxt --export jsonl | head -n 1 | grep -q '"host": "alpha"' ||
	fail "the JSON export has no host"
rep a.vxt b.vxt --report html -o m.html || fail "the HTML report of merged files failed"
grep -q 'beta:sdb' m.html || fail "the HTML report does not name beta:sdb"

# --- a rotated set is the unrotated recording ------------------------------
mkdir rot
rec --seed 7 --host gamma -o one.vxt || fail "plain recording failed"
rec --seed 7 --host gamma --rotate 1s -o rot/t.vxt || fail "rotated recording failed"
[ -f rot/t.1.vxt ] && [ -f rot/t.3.vxt ] || fail "no rotated files: $(ls rot)"
rep one.vxt --report events --format csv > one.csv || fail "events of one.vxt failed"
rep rot --report events --format csv > rot.csv || fail "events of the directory failed"
cmp -s one.csv rot.csv || fail "the rotated set differs from one file: $(diff one.csv rot.csv | head -n 3)"
rep 'rot/t*.vxt' --report summary --format csv > g.csv || fail "a quoted glob failed"
rep one.vxt --report summary --format csv | cmp -s - g.csv || fail "the glob's summary differs"
rep rot/t.vxt rot/t.2.vxt rot/t.1.vxt rot/t.3.vxt --report events --format csv | cmp -s - one.csv ||
	fail "rotated files given in any order differ from one file"

# --- clocks hours apart: merged as the anchors say, with one warning --------
rec --seed 9 --host far --clock-offset 3h -o far.vxt || fail "recording host far failed"
of=$(offset far.vxt)
rep far.vxt --report events --format csv > far.csv || fail "events of far.vxt failed"
# the gap: far's first event against the last of alpha and beta, wall clock
gap=$(awk -F, -v oa="$oa" -v ob="$ob" -v of="$of" 'FNR == 1 { next }
	FILENAME == "far.csv" { t = $1 + of; if (lo == "" || t < lo) lo = t; next }
	{ t = $1 + (FILENAME == "a.csv" ? oa : ob); if (t > hi) hi = t }
	END { printf "%.2fs", (lo - hi) / 1e9 }' a.csv b.csv far.csv)
rep a.vxt far.vxt b.vxt --report summary --format csv > far.sum 2> far.err ||
	fail "files hours apart: exit $?: $(cat far.err)"
[ "$(wc -l < far.err)" -eq 1 ] || fail "files hours apart: $(wc -l < far.err) lines: $(cat far.err)"
grep -qF "vxreplay: warning: host 'far' (far.vxt) begins $gap after host 'beta' (b.vxt) ends" far.err ||
	fail "files hours apart (a gap of $gap): $(cat far.err)"
IFS=, read -r _ _ _ ef _ <<EOF
$(sum far.vxt)
EOF
IFS=, read -r _ _ _ e3 _ <<EOF
$(tail -n 1 far.sum)
EOF
[ "$e3" -eq $((ea + eb + ef)) ] || fail "files hours apart: $e3 events, the files $ea + $eb + $ef"
rep a.vxt b.vxt --report summary > /dev/null 2> near.err
[ -s near.err ] && fail "files 2.5 s apart warned: $(cat near.err)"

# --- bad input: one line, exit 1 --------------------------------------------
bad() {	# WHAT PATTERN ARGS...
	what=$1 pat=$2
	shift 2
	rep "$@" --report summary > out 2> err
	rc=$?
	[ "$rc" -eq 1 ] || fail "$what: exit $rc, expected 1"
	[ "$(wc -l < err)" -eq 1 ] || fail "$what: $(wc -l < err) lines on stderr: $(cat err)"
	grep -q "$pat" err || fail "$what: $(cat err)"
	[ -s out ] && fail "$what: printed a report"
	return 0
}
bad "the same file twice" "a.vxt and a.vxt are the same file" a.vxt b.vxt a.vxt
cp a.vxt again.vxt
bad "the same host twice" "both from host 'alpha' and their times overlap" a.vxt again.vxt
bad "a glob matching nothing" "nope\*.vxt: no file matches" 'nope*.vxt'
mkdir empty
bad "a directory without files" "empty: a directory without .vxt files" empty
# a file whose header has no realtime anchor (its CRC made right again)
set_header b.vxt noclock.vxt 44 '<Q' 0 || fail "making a file without an anchor failed"	# anchor_real_ns
rep noclock.vxt --report summary > /dev/null || fail "a file without an anchor alone should open"
bad "a file without a clock anchor" "noclock.vxt: no clock anchor" a.vxt noclock.vxt
# --- the browser's first screen of the merged trace (--bench=first) --------
rep a.vxt b.vxt --bench=first > bench.out 2>&1 || fail "--bench=first failed: $(head -n 2 bench.out)"
grep -q "^events: $((na + nb)) " bench.out || fail "--bench=first: $(grep '^events' bench.out), the files $na + $nb"
grep -q '^first full screen: [0-9.]* ms ([0-9.]* ms CPU' bench.out ||
	fail "--bench=first printed no first screen: $(head -n 3 bench.out)"
grep -q '^navigation keys' bench.out && fail "--bench=first went on past the first screen"
rep a.vxt --bench=all > bench.out 2>&1
[ $? -eq 2 ] || fail "--bench=all should exit 2"
grep -q 'bench=all' bench.out || fail "--bench=all: $(cat bench.out)"
[ $fails = 0 ] && ok "fleet_merge: ok"
finish
