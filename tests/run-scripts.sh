#!/bin/sh
# run-scripts.sh - run every tests/KIND/*.sh, print one line per script and
# a closing "N passed, N failed, N skipped" line.
#   usage: tests/run-scripts.sh cli|tui BUILD_DIR [NAME...]
# With NAMEs, only tests/KIND/NAME.sh for each (tests/run-one.sh).
# A script exits 0 (pass), 77 (skip; its last line says why) or anything else (fail).
# Each runs with stdin from /dev/null, under a time limit (VXT_TEST_TIMEOUT
# seconds, default 900) after which its whole process group is killed: a
# hung test fails, it never holds the suite. Each line gives the script's wall
# clock and CPU time (user + system of what it waited for): a test whose CPU
# is far below its wall clock mostly waits.
kind=$1
build=$(cd "${2:-build}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
shift; [ $# -gt 0 ] && shift
if [ $# -eq 0 ]; then
	set -- "$top"/tests/"$kind"/*.sh
else
	for n do shift; set -- "$@" "$top/tests/$kind/$n.sh"; done
fi
pass=0 fail=0 skip=0 failed=""
cpu_file=$(mktemp)
# the CPU seconds (user + system) of the children waited for so far, from
# what `times >"$cpu_file"` wrote just before: times runs in this shell
# itself, since in $(...) it would report a subshell's children
cpu_secs() {
	awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%.2f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$cpu_file"
}
for t do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	log=$(mktemp)
	t0=$(date +%s)
	times >"$cpu_file"; c0=$(cpu_secs)
	VXT_BUILD=$build VXT_TOP=$top VXT_SHARED=$top/../shared \
		timeout -k 10 "${VXT_TEST_TIMEOUT:-900}" sh "$t" >"$log" 2>&1 </dev/null
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	times >"$cpu_file"; c1=$(cpu_secs)
	secs="$secs s, CPU $(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.1f", b - a }') s"
	[ $rc -eq 124 ] && echo "(killed after ${VXT_TEST_TIMEOUT:-900} s)" >>"$log"
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "PASS: $kind/$name (${secs})"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); echo "SKIP: $kind/$name (${secs}): $(tail -n 1 "$log")"
	else
		fail=$((fail + 1)); failed="$failed $name"
		echo "FAIL: $kind/$name (exit $rc, ${secs})"; sed 's/^/    /' "$log" | tail -n 30
	fi
	rm -f "$log"
done
rm -f "$cpu_file"
echo "$kind: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
