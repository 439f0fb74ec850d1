#!/bin/sh
# run-one.sh - run the tests called NAME, wherever they live, and print their
# "N passed, N failed" line (make check T=NAME).
#   usage: tests/run-one.sh NAME [BUILD_DIR]
# NAME is a Check suite (tests/unit/test_NAME.c), a script tests/cli/NAME.sh,
# tests/tui/NAME.sh, or a host script of the module's tests (tests/kmod/NAME.sh:
# run, newer, lockdown, checkpatch); every one of these that exists runs.
# KIND/NAME (unit/, cli/, tui/, kmod/) picks one kind.
name=${1:?usage: tests/run-one.sh NAME [BUILD_DIR]}
build=$(cd "${2:-build}" && pwd) || exit 2
top=$(cd "$(dirname "$0")/.." && pwd)
unset T	# make passes T=NAME down; lib.sh's T is the test's own directory
kinds="unit cli tui kmod"
case $name in */*) kinds=${name%%/*}; name=${name#*/} ;; esac
found=0 rc=0
for k in $kinds; do
	case $k in
	unit)
		[ -f "$top/tests/unit/test_$name.c" ] || continue
		found=1
		CK_RUN_SUITE=$name VXT_SHARED=$top/../shared "$build/unit-tests" || rc=1 ;;
	cli|tui)
		[ -f "$top/tests/$k/$name.sh" ] || continue
		found=1
		sh "$top/tests/run-scripts.sh" "$k" "$build" "$name" || rc=1 ;;
	kmod)
		case $name in guest*|lib) continue ;; esac
		[ -f "$top/tests/kmod/$name.sh" ] || continue
		found=1
		case $name in
		checkpatch) sh "$top/tests/kmod/checkpatch.sh" || rc=1 ;;	# reads kmod/, no build
		*) sh "$top/tests/kmod/$name.sh" "$build" || rc=1 ;;
		esac ;;
	*)
		echo "run-one: $k: not a kind of test (unit, cli, tui, kmod)" >&2; exit 2 ;;
	esac
done
if [ $found = 0 ]; then
	echo "run-one: no test called '$1' (a tests/unit/test_NAME.c suite, tests/cli|tui/NAME.sh, tests/kmod/NAME.sh)" >&2
	exit 2
fi
exit $rc
