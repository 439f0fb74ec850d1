#!/bin/sh
# script_explain.sh - vxreplay --explain --script NAME prints the ops each
# probe's program runs, without a trace file: the listings of the scripts in
# tests/data/explain/, of two shipped profiles (--explain --profile) and of
# three filters (--explain --filter, with what the kernel tests of them) are
# compared with the golden ones beside them (a change of the compiler that
# changes a listing changes its golden file in the same commit). Usage
# errors: --explain without --script, --profile or --filter, with a file, a
# bad filter.
. "$VXT_TOP/tests/lib.sh"

dir=$VXT_TOP/tests/data/explain
for d in "$dir"/*.d; do
	name=$(basename "$d" .d)
	if "$B/vxreplay" --explain --script "$d" >"$T/$name.txt" 2>"$T/err"; then
		if diff -u "$dir/$name.txt" "$T/$name.txt" >"$T/diff"; then
			ok "$name: the listing is the golden one"
		else
			fail "$name: the listing differs: $(head -c 2000 "$T/diff")"
		fi
	else
		fail "$name: --explain failed: $(cat "$T/err")"
	fi
done
# a profile's speculation compiles onto the same engine, its predicates as
# D's (no keyed_pred op left), and what the kernel runs is said after it
for name in errors-in-context slow-io; do
	if "$B/vxreplay" --explain --profile "$VXT_TOP/formats/profiles/$name.yaml" \
		>"$T/p-$name.txt" 2>"$T/err"; then
		if diff -u "$dir/profile-$name.txt" "$T/p-$name.txt" >"$T/diff"; then
			ok "profile $name: the listing is the golden one"
		else
			fail "profile $name: the listing differs: $(head -c 2000 "$T/diff")"
		fi
	else
		fail "profile $name: --explain failed: $(cat "$T/err")"
	fi
	grep -q '^kernel: a kernel source runs it$' "$T/p-$name.txt" &&
		ok "profile $name: in the kernel's subset" || fail "profile $name: not in the kernel"
done
"$B/vxreplay" --explain --profile "$VXT_TOP/formats/profiles/per-process.yaml" >"$T/pp.txt" &&
	grep -q '^io:::start: ' "$T/pp.txt" &&
	grep -q '^kernel: user space: it has a program' "$T/pp.txt" &&
	ok "profile per-process: its program's ops, in user space" ||
	fail "profile per-process: $(head -c 300 "$T/pp.txt")"
expect_fail "--explain of a profile without speculation" 2 "no speculation" -- \
	"$B/vxreplay" --explain --profile "$VXT_TOP/formats/profiles/default.yaml"
# the fast paths are ops the compiler chose
grep -q 'unless_req *req->spec' "$dir/errspec.txt" && grep -q 'speculate_req' "$dir/errspec.txt" &&
	grep -q 'open_req' "$dir/errspec.txt" && ok "errspec: req-> predicates and speculate as ops" ||
	fail "errspec: the req-> ops are missing"
grep -q 'agg_raw .*@lat quantize' "$dir/latency.txt" && ok "latency: quantize keyed by raw fields" ||
	fail "latency: no raw-key aggregation"
# a filter's program, and what of it the kernel tests, decided from its ops
for f in "kernel:op == write && bytes >= 64k:tests 2 of its 2 tests (op, bytes)" \
	"part:comm == fio && latency > 1ms:tests 1 of its 2 tests (latency)" \
	"user:d2c > 1ms:user space: it reads intervals"; do
	name=${f%%:*}; rest=${f#*:}; expr=${rest%%:*}; want=${rest#*:}
	if "$B/vxreplay" --explain --filter "$expr" >"$T/f-$name.txt" 2>"$T/err"; then
		diff -u "$dir/filter-$name.txt" "$T/f-$name.txt" >"$T/diff" &&
			ok "filter $name: the listing is the golden one" ||
			fail "filter $name: the listing differs: $(head -c 2000 "$T/diff")"
		grep -qF "kernel: $want" "$T/f-$name.txt" && ok "filter $name: $want" ||
			fail "filter $name: not '$want': $(tail -1 "$T/f-$name.txt")"
	else
		fail "filter $name: --explain failed: $(cat "$T/err")"
	fi
done
expect_fail "--explain of a bad filter" 2 "filter:1:" -- "$B/vxreplay" --explain --filter "op =="
expect_fail "--explain without --script" 2 "explains a --script, a --profile or a --filter" -- \
	"$B/vxreplay" --explain
expect_fail "--explain with a file" 2 "reads no trace file" -- \
	"$B/vxreplay" --explain --script "$dir/vars.d" t.vxt
printf 'io:::done { x = 1 +; }\n' >"$T/bad.d"
expect_fail "--explain of a bad script" 2 "bad.d:1:" -- "$B/vxreplay" --explain --script "$T/bad.d"
finish
