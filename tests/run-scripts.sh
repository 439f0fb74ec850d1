#!/bin/sh
# run-scripts.sh - run every tests/KIND/*.sh, print one line per script and
# a closing "N passed, N failed, N skipped" line.
#   usage: tests/run-scripts.sh cli|tui BUILD_DIR [NAME...]
# With NAMEs, only tests/KIND/NAME.sh for each (tests/run-one.sh).
# A script exits 0 (pass), 77 (skip; its last line says why) or anything else (fail).
# Each runs with stdin from /dev/null, under a time limit (VXT_TEST_TIMEOUT
# seconds, default 900) after which its whole process group is killed: a
# hung test fails, it never holds the suite.
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
for t do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	log=$(mktemp)
	t0=$(date +%s)
	VXT_BUILD=$build VXT_TOP=$top VXT_SHARED=$top/../shared \
		timeout -k 10 "${VXT_TEST_TIMEOUT:-900}" sh "$t" >"$log" 2>&1 </dev/null
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	[ $rc -eq 124 ] && echo "(killed after ${VXT_TEST_TIMEOUT:-900} s)" >>"$log"
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "PASS: $kind/$name (${secs} s)"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); echo "SKIP: $kind/$name (${secs} s): $(tail -n 1 "$log")"
	else
		fail=$((fail + 1)); failed="$failed $name"
		echo "FAIL: $kind/$name (exit $rc, ${secs} s)"; sed 's/^/    /' "$log" | tail -n 30
	fi
	rm -f "$log"
done
echo "$kind: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
