#!/bin/sh
# cycles.sh - files that must not call each other both ways: the browser's
# key table and its overlays (both call tui/apply.c instead), the batch
# reports and --profile's first pass (both read the events through
# report/scope.c). Judged from the objects' symbols (nm): A calls B when an
# undefined symbol of A.o is defined in B.o.
. "${VXT_TOP:?}/tests/lib.sh"
build=$B tmp=$T
command -v nm >/dev/null 2>&1 || skip "nm not installed"
calls() {	# calls A.o B.o: the symbols A takes from B
	nm -u "$1" | awk '{print $2}' | sort -u > "$tmp/u"
	nm -g --defined-only "$2" | awk '{print $3}' | sort -u > "$tmp/d"
	comm -12 "$tmp/u" "$tmp/d" | tr '\n' ' '
}
for pair in vxreplay/tui/keys:vxreplay/tui/overlays \
	    vxreplay/report/report:vxreplay/report/batch_profile; do
	a=$build/src/${pair%%:*}.o b=$build/src/${pair#*:}.o
	for o in "$a" "$b"; do [ -f "$o" ] || { fail "missing $o"; finish; }; done
	ab=$(calls "$a" "$b") ba=$(calls "$b" "$a")
	if [ -n "$ab" ] && [ -n "$ba" ]; then
		fail "call cycle: ${pair%%:*}.c uses $ab; ${pair#*:}.c uses $ba"
	fi
done
[ $fails = 0 ] && ok "cycles: none between the key table and overlays, reports and --profile"
finish
