#!/bin/sh
# cycles.sh - files that must not call each other both ways: the browser's
# key table and its overlays (both call tui/apply.c instead), the batch
# reports and --profile's first pass (both read the events through
# report/scope.c). Judged from the objects' symbols (nm): A calls B when an
# undefined symbol of A.o is defined in B.o.
build=${VXT_BUILD:?VXT_BUILD unset}
command -v nm >/dev/null 2>&1 || { echo "nm not installed"; exit 77; }
bad=0
calls() {	# calls A.o B.o: the symbols A takes from B
	nm -u "$1" | awk '{print $2}' | sort -u > "$tmp/u"
	nm -g --defined-only "$2" | awk '{print $3}' | sort -u > "$tmp/d"
	comm -12 "$tmp/u" "$tmp/d" | tr '\n' ' '
}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for pair in vxreplay/tui/keys:vxreplay/tui/overlays \
	    vxreplay/report/report:vxreplay/report/batch_profile; do
	a=$build/src/${pair%%:*}.o b=$build/src/${pair#*:}.o
	for o in "$a" "$b"; do [ -f "$o" ] || { echo "missing $o"; exit 1; }; done
	ab=$(calls "$a" "$b") ba=$(calls "$b" "$a")
	if [ -n "$ab" ] && [ -n "$ba" ]; then
		echo "call cycle: ${pair%%:*}.c uses $ab; ${pair#*:}.c uses $ba"
		bad=1
	fi
done
[ $bad = 0 ] && echo "cycles: none between the key table and overlays, reports and --profile"
exit $bad
