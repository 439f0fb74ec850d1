#!/bin/sh
# interval_filters.sh - the interval fields (q2c, q2d, d2c, ...) in every
# filter that sees events one at a time, on the imported real blktrace
# capture (../shared/data/blktrace/centos7-sda): vxrecord --filter, vxtop
# --filter, a profile's filter:, a speculation predicate and vxreplay
# --script under --filter. The reference
# is awk alone over `vxreplay --report events --format csv` of the whole
# capture, pairing each completion with its own I/O by object and first
# sector (tests/cli/ivpair.awk). An interval is known on its
# completion only: on every other phase a comparison on it is false, so
# `!(q2d <= X)` keeps them all.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
top=${VXT_TOP:?}
data=${VXT_SHARED:-$top/../shared}/data/blktrace/centos7-sda
[ -d "$data" ] || skip "interval_filters: $data absent: skipped"

"$b/vxrecord" -q --import blktrace "$data/sda" -o "$tmp/c.vxt" || { fail "import failed"; finish; }
"$b/vxreplay" "$tmp/c.vxt" --report events --format csv >"$tmp/ev.csv" || { fail "events failed"; finish; }

awk -F, -f "$top/tests/cli/ivpair.awk" "$tmp/ev.csv" >"$tmp/iv"
nall=$(($(wc -l <"$tmp/ev.csv") - 1))
[ "$(wc -l <"$tmp/iv")" -gt 50 ] || fail "awk found too few completions: $(wc -l <"$tmp/iv")"
# the median of the known values of column $1
median() {
	awk -v c="$1" '$c != "-" { print $c }' "$tmp/iv" | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}
q2c=$(median 6) q2d=$(median 4)
# awk's completions with q2c > median, as "time,object,sector"
awk -v x="$q2c" '$6 != "-" && $6 > x { print $1 "," $2 "," $3 }' "$tmp/iv" >"$tmp/want"
nwant=$(wc -l <"$tmp/want")
[ "$nwant" -gt 10 ] || fail "awk: only $nwant completions with q2c > $q2c"
# completions awk knows a q2d <= median of
nsmall=$(awk -v x="$q2d" '$4 != "-" && $4 <= x' "$tmp/iv" | wc -l)

# vxrecord --filter: the file holds exactly the completions awk finds
"$b/vxrecord" -q --import blktrace "$data/sda" --filter "q2c > ${q2c}ns" -o "$tmp/r.vxt" ||
	{ fail "vxrecord --filter q2c failed"; finish; }
"$b/vxreplay" "$tmp/r.vxt" --report events --format csv |
	awk -F, 'NR > 1 { print $1 "," $2 "," $6 "," $3 }' >"$tmp/got"
grep -v ',done$' "$tmp/got" | head -n 3 | grep -q . && fail "vxrecord --filter q2c kept a phase other than done"
sed 's/,done$//' "$tmp/got" | cmp -s - "$tmp/want" ||
	fail "vxrecord --filter 'q2c > ${q2c}ns': $(wc -l <"$tmp/got") events, awk finds $nwant"
echo "vxrecord --filter q2c: the $nwant completions awk finds"

# an earlier phase: every comparison false, so its negation keeps it
"$b/vxrecord" -q --import blktrace "$data/sda" --filter "!(q2d <= ${q2d}ns)" -o "$tmp/n.vxt" ||
	{ fail "vxrecord --filter !q2d failed"; finish; }
got=$("$b/vxreplay" "$tmp/n.vxt" --report events --format csv | tail -n +2 | wc -l)
[ "$got" -eq $((nall - nsmall)) ] ||
	fail "vxrecord --filter '!(q2d <= ${q2d}ns)': $got events, awk finds $((nall - nsmall)) of $nall"
echo "vxrecord --filter !(q2d <= X): $got of $nall events"

# vxtop --filter, over the whole capture: events of every interval
got=$("$b/vxtop" -b -F jsonl -i 1s --follow "$tmp/c.vxt" --filter "q2c > ${q2c}ns" |
	sed -n 's/.*"events":\([0-9]*\),.*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
[ "$got" -eq "$nwant" ] || fail "vxtop --filter 'q2c > ${q2c}ns': $got events, awk finds $nwant"
echo "vxtop --filter q2c: $got events"

# a profile's filter:, in vxreplay --profile and vxrecord --profile
cat >"$tmp/slowq.yaml" <<EOT
name: slowq
filter: q2c > ${q2c}ns
EOT
got=$("$b/vxreplay" "$tmp/c.vxt" --profile "$tmp/slowq.yaml" --report events --format csv |
	awk -F, 'NR > 1 { print $1 "," $2 "," $6 }')
[ "$got" = "$(cat "$tmp/want")" ] ||
	fail "vxreplay --profile (filter: q2c): $(printf '%s\n' "$got" | wc -l) events, awk finds $nwant"
"$b/vxrecord" -q --import blktrace "$data/sda" --profile "$tmp/slowq.yaml" -o "$tmp/p.vxt" ||
	{ fail "vxrecord --profile failed"; finish; }
"$b/vxreplay" "$tmp/p.vxt" --report events --format csv |
	awk -F, 'NR > 1 { print $1 "," $2 "," $6 }' | cmp -s - "$tmp/want" ||
	fail "vxrecord --profile (filter: q2c) differs from awk"
echo "profile filter: q2c: the $nwant completions awk finds"

# a speculation predicate: each completion with q2c > X is traced, nothing else
cat >"$tmp/specq.yaml" <<EOT
name: specq
speculation:
  key: object
  clauses:
    - probe: done
      predicate: q2c > ${q2c}ns
      action: trace
EOT
got=$("$b/vxreplay" "$tmp/c.vxt" --profile "$tmp/specq.yaml" --report events --format csv |
	awk -F, 'NR > 1 { print $1 "," $2 "," $6 }')
[ "$got" = "$(cat "$tmp/want")" ] ||
	fail "speculation predicate q2c: $(printf '%s\n' "$got" | wc -l) events, awk finds $nwant"
echo "speculation predicate q2c: the $nwant completions awk finds"

# vxreplay --script under --filter: the script sees what the filter keeps
printf 'io:::done { @n = count(); }\n' >"$tmp/count.d"
got=$("$b/vxreplay" "$tmp/c.vxt" --script "$tmp/count.d" --filter "q2c > ${q2c}ns" | tr -d ' \n')
[ "$got" = "$nwant" ] || fail "vxreplay --script under --filter q2c: $got completions, awk finds $nwant"
[ $fails = 0 ] && ok "vxreplay --script under --filter q2c: $got completions"
finish
