#!/bin/sh
# profile_load.sh - profiles are found on the search path, every shipped one
# loads, broken ones are refused with file:line:column, and --filter and
# --profile combine in batch reports.
. "$VXT_TOP/tests/lib.sh"

cd "$T" || exit 1
"$B/vxrecord" --source sim --seed 3 -c 20000 -o t.vxt -q || fail "record"
"$B/vxreplay" t.vxt --report events --format csv >all.csv || fail "all events"
total=$(($(wc -l <all.csv) - 1))

for f in "$VXT_TOP"/formats/profiles/*.yaml; do
	name=$(basename "$f" .yaml)
	if "$B/vxreplay" t.vxt --profile "$name" --report summary >/dev/null 2>err; then
		ok "shipped profile $name loads by name"
	else
		fail "shipped profile $name: $(cat err)"
	fi
done

# writes-only keeps exactly the writes, write-zeroes and flushes
"$B/vxreplay" t.vxt --profile writes-only --report events --format csv >w.csv || fail "writes-only"
want=$(awk -F, 'NR > 1 && ($4 == "write" || $4 == "write-zeroes" || $4 == "flush")' all.csv | wc -l)
expect_eq "writes-only events" "$(($(wc -l <w.csv) - 1))" "$want"
# --filter and-ed with the profile
"$B/vxreplay" t.vxt --profile writes-only --filter 'object == sda' --report events --format csv >ws.csv
want=$(awk -F, 'NR > 1 && $2 == "sda" && ($4 == "write" || $4 == "write-zeroes" || $4 == "flush")' all.csv | wc -l)
expect_eq "writes-only && object == sda" "$(($(wc -l <ws.csv) - 1))" "$want"

# the search path: --profile-dir, then $XDG_CONFIG_HOME/vxtrace/profiles, then the shipped ones
mkdir -p dir xdg/vxtrace/profiles
printf 'filter: op == read\n' >dir/mine.yaml
printf 'filter: op == write\n' >xdg/vxtrace/profiles/mine.yaml
printf 'filter: op == flush\n' >xdg/vxtrace/profiles/writes-only.yaml
reads=$(awk -F, 'NR > 1 && $4 == "read"' all.csv | wc -l)
writes=$(awk -F, 'NR > 1 && $4 == "write"' all.csv | wc -l)
flushes=$(awk -F, 'NR > 1 && $4 == "flush"' all.csv | wc -l)
n=$(XDG_CONFIG_HOME=$T/xdg "$B/vxreplay" t.vxt --profile mine --profile-dir dir --report events --format csv | wc -l)
expect_eq "--profile-dir first" "$((n - 1))" "$reads"
n=$(XDG_CONFIG_HOME=$T/xdg "$B/vxreplay" t.vxt --profile mine --report events --format csv | wc -l)
expect_eq "then XDG_CONFIG_HOME" "$((n - 1))" "$writes"
n=$(XDG_CONFIG_HOME=$T/xdg "$B/vxreplay" t.vxt --profile writes-only --report events --format csv | wc -l)
expect_eq "the user's profile hides the shipped one" "$((n - 1))" "$flushes"
n=$("$B/vxreplay" t.vxt --profile "$T/dir/mine.yaml" --report events --format csv | wc -l)
expect_eq "a path is used as is" "$((n - 1))" "$reads"

expect_fail "unknown profile" 2 "no profile 'nope' in" -- "$B/vxreplay" t.vxt --profile nope --report summary
expect_fail "bad --filter" 2 "filter:1:8: expected a value after '>'" -- \
	"$B/vxreplay" t.vxt --profile writes-only --filter 'bytes >' --report summary
expect_fail "vxrecord unknown profile" 2 "no profile 'nope' in" -- \
	"$B/vxrecord" --source sim -c 10 -o x.vxt --profile nope

# every broken profile: its message, as file:line:column, on one line
grep -v '^#' "$VXT_TOP/tests/profiles-bad/EXPECTED" | while read -r file msg; do
	p=$VXT_TOP/tests/profiles-bad/$file
	"$B/vxreplay" t.vxt --profile "$p" --report summary >out 2>err
	rc=$?
	if [ $rc -eq 2 ] && [ "$(cat err)" = "vxreplay: $p:$msg" ]; then
		echo "ok: $file"
	else
		echo "FAIL: $file: exit $rc: $(cat err), want $p:$msg"
		echo x >>failed
	fi
done
[ -e failed ] && fail "$(wc -l <failed) broken profiles gave another message"
[ -e failed ] || ok "every broken profile gets its message"
finish
