#!/bin/sh
# marks.sh - marks are kept beside the trace in TRACE.marks (formats/marks.md):
# written 0600 at each change, read back when the browser opens the trace
# again; a symlink in the sidecar's place is neither followed to write nor
# read; a malformed sidecar is named with its line; a mark whose event is not
# at the time the sidecar says (another file of the same name) is dropped.
. "$VXT_TOP/tests/tui/tmux.inc"

make_trace "$T/s.vxt" 300000
S=$T/s.vxt.marks
"$B/vxreplay" "$T/s.vxt" --report events --format csv > "$T/ev.csv"
# time_ns of event ORD (0-based) from the batch report
t_of() { sed -n "$(($1 + 2))p" "$T/ev.csv" | cut -d, -f1; }

start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'events 300000/300000'
keys g m Down Down Down m
wait_for 'marked event #3'
[ -f "$S" ] || fail "no sidecar $S"
[ "$(stat -c %a "$S")" = 600 ] || fail "sidecar mode $(stat -c %a "$S"), want 600"
printf '0 %s\n3 %s\n' "$(t_of 0)" "$(t_of 3)" > "$T/want"
grep -v '^#' "$S" | sed 1d | diff - "$T/want" || fail "sidecar content"
keys q
wait_for '^\[exit 0\]'
ok "m: the sidecar holds the marks (0600), ordinal and time"

start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for '2 marks read from'
keys "'"
wait_for '^ Marks'
screen | grep -Eq '^ +1 +#0 ' || fail "mark #0 not reloaded"
screen | grep -Eq '^ +2 +#3 ' || fail "mark #3 not reloaded"
keys Down d Escape
wait_for '^\?Help'
keys q
wait_for '^\[exit 0\]'
printf '0 %s\n' "$(t_of 0)" > "$T/want"
grep -v '^#' "$S" | sed 1d | diff - "$T/want" || fail "sidecar after d"
ok "the marks come back when the trace is opened again; d deletes from the sidecar"

# a mark at the wrong time (the sidecar of another file) is dropped
printf 'vxreplay-marks 1\n0 %s\n5 12345\n' "$(t_of 0)" > "$S"
start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for '1 mark dropped'
keys q
ok "a mark not in this trace is dropped and counted"

# malformed: named with its line
printf 'vxreplay-marks 1\n7 %s\n8 x9\n' "$(t_of 7)" > "$S"
start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for "s.vxt.marks:3: want \"ORDINAL TIME_NS\""
keys "'"
wait_for '^ Marks'
screen | grep -Eq '^ +1 +#7 ' || fail "the marks before the bad line are lost"
keys Escape q
ok "a malformed sidecar: file and line named"

# a symlink in the sidecar's place: not read, not written through
echo secret > "$T/victim"
rm -f "$S"
ln -s "$T/victim" "$S"
start 120 40 "$B/vxreplay" "$T/s.vxt"
wait_for 'is a symlink \(marks not read\)'
keys g m
wait_for 'marks not saved'
[ "$(cat "$T/victim")" = secret ] || fail "the symlink's target was written"
[ -L "$S" ] || fail "the symlink was replaced"
keys q
ok "a symlinked sidecar is neither read nor written through"
