#!/bin/sh
# interval_fields.sh - the filter fields q2d, d2c, q2c, q2g, g2i, i2d on the
# imported real blktrace capture (../shared/data/blktrace/centos7-sda):
# `vxreplay --filter 'IV OP X' --report summary` counts the completions that
# awk finds from `--report events --format csv` alone, pairing each
# completion with its own I/O by object and first sector (a queue opens it;
# getrq, insert, issue mark the oldest open one lacking that phase, or open
# one; a merge folds the bio away, or moves a request that starts where the
# bio ends; the completion closes the oldest issued one). An interval not
# known (a phase missing) matches no comparison.
. "${VXT_TOP:?}/tests/lib.sh"
tmp=$T
b=${VXT_BUILD:?}
top=${VXT_TOP:?}
command -v python3 >/dev/null || skip "interval_fields: python3 not installed"
data=${VXT_SHARED:-$top/../shared}/data/blktrace/centos7-sda
[ -d "$data" ] || skip "interval_fields: $data absent: skipped"

"$b/vxrecord" -q --import blktrace "$data/sda" -o "$tmp/c.vxt" || { fail "import failed"; finish; }
"$b/vxreplay" "$tmp/c.vxt" --report events --format csv >"$tmp/ev.csv" || { fail "events failed"; finish; }

# one line per completion: q2d d2c q2c q2g g2i i2d ("-" = unknown), paired
# by brute force in ivpair.awk (its first three columns are time, object, sector)
awk -F, -f "$top/tests/cli/ivpair.awk" "$tmp/ev.csv" | cut -d' ' -f4- >"$tmp/iv"
[ "$(wc -l <"$tmp/iv")" -gt 50 ] || fail "awk found too few completions: $(wc -l <"$tmp/iv")"

col=0 checked=0
for name in q2d d2c q2c q2g g2i i2d; do
	col=$((col + 1))
	# the threshold: the median of the known values
	med=$(awk -v c=$col '$c != "-" { print $c }' "$tmp/iv" | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }')
	ops='>'
	case $name in q2c) ops='> <=' ;; d2c) ops='> !=' ;; esac
	for x in "$med"; do
		for op in $ops; do
			want=$(awk -v c=$col -v x="$x" -v op="$op" '$c != "-" &&
				((op == ">" && $c > x) || (op == "<=" && $c <= x) || (op == "!=" && $c != x))' \
				"$tmp/iv" | wc -l)
			got=$("$b/vxreplay" "$tmp/c.vxt" --filter "$name $op ${x}ns" --report summary \
				--format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["ios"])') ||
				fail "--filter '$name $op ${x}ns' failed"
			[ "$got" = "$want" ] || fail "$name $op ${x}ns: $got completions, awk finds $want"
			checked=$((checked + 1))
		done
	done
	# bare: known
	want=$(awk -v c=$col '$c != "-"' "$tmp/iv" | wc -l)
	got=$("$b/vxreplay" "$tmp/c.vxt" --filter "$name" --report summary --format json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["ios"])')
	[ "$got" = "$want" ] || fail "bare $name: $got completions, awk finds $want"
done
[ $fails = 0 ] && ok "interval_fields: $checked comparisons equal to awk's counts"
finish
