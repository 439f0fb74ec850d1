#!/bin/sh
# hostile_vxt.sh - hand-made corrupt and hostile .vxt files (tests/data/hostile/,
# made by make.py there): each is answered as the table below says, with one
# clear message, and none makes the reader allocate what the file claims
# rather than what it holds: the programs run with 30 MB of address space
# (under ASan, with single allocations capped at 24 MB instead), so a 60 MiB
# or 4 GiB claim believed would end in "out of memory".
. "$VXT_TOP/tests/lib.sh"
H=$VXT_TOP/tests/data/hostile

if (ulimit -v 30000 && "$B/vxreplay" --verify "$H/base-sound") >/dev/null 2>&1; then
	limited() { (ulimit -v 30000 && exec "$@"); }
else	# sanitizer builds reserve terabytes of address space
	limited() {
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=24:allocator_may_return_null=1 "$@"
	}
fi

# name | --verify exit | events read (- = refused; ! = a damaged chunk skipped, exit 3) | message of --verify
while IFS='|' read -r name want rows pat; do
	case $name in ''|\#*) continue ;; esac
	f=$H/$name
	limited "$B/vxreplay" --verify "$f" >"$T/out" 2>"$T/err"
	rc=$?
	msg=$(cat "$T/out" "$T/err")
	[ "$rc" = "$want" ] || { fail "$name: --verify exit $rc, want $want: $msg"; continue; }
	echo "$msg" | grep -q -- "$pat" || { fail "$name: '$msg' lacks '$pat'"; continue; }
	echo "$msg" | grep -q "out of memory" && { fail "$name: $msg"; continue; }
	limited "$B/vxreplay" "$f" --report events --format csv >"$T/csv" 2>"$T/err"
	rc=$?
	if [ "$rows" = - ]; then
		[ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] ||
			{ fail "$name: events report: exit $rc: $(cat "$T/err")"; continue; }
	else
		got=$(($(wc -l <"$T/csv") - 1))
		case $rows in
		*!) wrc=3 rows=${rows%!} ;;	# a damaged chunk skipped while reading: exit 3
		*) wrc=0 ;;
		esac
		[ $rc -eq $wrc ] && [ "$got" = "$rows" ] ||
			{ fail "$name: events report: exit $rc, $got events, want $rows: $(cat "$T/err")"; continue; }
	fi
	limited "$B/vxreplay" --info "$f" >/dev/null 2>"$T/err"
	rc=$?
	if [ "$rows" = - ]; then [ $rc -eq 1 ]; else [ $rc -eq 0 ]; fi ||
		{ fail "$name: --info exit $rc: $(cat "$T/err")"; continue; }
	ok "$name: $(echo "$msg" | head -n 1 | sed "s|$H/||g")"
done <<'TABLE'
base-sound|0|600|every CRC and frame sound
# not a trace at all
empty|1|-|not a .vxt file (no header at offset 0)
not-vxt|1|-|not a .vxt file (no header at offset 0)
zstd-only|1|-|not a .vxt file (no header at offset 0)
hdr-truncated|1|-|truncated header at offset 0
# the header
hdr-size-4g|1|-|corrupt header at offset 0 (bad size or CRC)
hdr-bad-crc|1|-|corrupt header at offset 0 (bad size or CRC)
hdr-incompat|1|-|made by a newer vxtrace (format version 1, incompatible features 0x80)
hdr-objects-4g|1|-|corrupt header tables at offset 0
hdr-objects-70000|1|-|corrupt header tables at offset 0
hdr-strings-4g|1|-|corrupt header tables at offset 0
hdr-name-too-long|1|-|corrupt header tables at offset 0
# chunk entries and data (files without a footer: the scan reads them)
chunk-data-4g|1|0|corrupt chunk entry at offset 601
chunk-data-60m|1|0|torn chunk data at offset 1449
chunk-raw-4g|1|0|corrupt chunk entry at offset 601
chunk-raw-60m|1|422!|chunk 0: bad zstd frame at offset 1449
chunk-nevents-4g|1|0|corrupt chunk entry at offset 601
chunk-nevents-1m|1|0|corrupt chunk entry at offset 601
chunk-first-event|1|0|corrupt chunk entry at offset 601
chunk-time-backwards|1|0|corrupt chunk entry at offset 601
chunk-objagg-4g|1|178|corrupt chunk entry at offset 3381
chunk-data-bad-crc|1|178|corrupt chunk data (CRC) at offset 4229
chunk-data-junk|1|376!|chunk 1: bad zstd frame at offset 4229
# one zstd frame per column
base-columns|0|600|every CRC and frame sound
cols-raw-short|1|376!|chunk 1: bad zstd frame at offset 4389
cols-raw-long|1|376!|chunk 1: bad zstd frame at offset 4389
cols-frame-cut|1|376!|chunk 1: bad zstd frame at offset 4389
cols-op-junk|1|376!|chunk 1: malformed columns at offset 4389
torn-entry|1|402|torn chunk entry at offset 6699
torn-data|1|402|torn chunk data at offset 7547
tail-garbage|1|600|unexpected data (not a vxt unit) at offset 10476
unknown-unit|0|600|every CRC and frame sound (no footer: recovered by scan)
# written by the library: one lost event, recorded before any object was known
lost-before-objects|0|1|every CRC and frame sound
# footer and trailer: not trusted, the scan reads the chunks instead
footer-nchunks-4g|0|600|recovered by scan
footer-nchunks-1000|0|600|recovered by scan
footer-size-4g|0|600|recovered by scan
footer-entry-wrap|0|600|recovered by scan
trailer-offset-huge|0|600|recovered by scan
trailer-length-4g|0|600|recovered by scan
TABLE

# Chunks that claim the format's maximum sizes with frames that hold them
# (chunk-claims-max, 14 KB): decode buffers stay within the 128 MiB budget
# (one slot), not one ~110 MB slot per thread. Measured as max RSS.
if [ -x /usr/bin/time ] && [ -z "${VXT_SAN:-}" ] && ! nm "$B/vxreplay" 2>/dev/null | grep -q __asan_init; then
	for rep in summary objects; do
		/usr/bin/time -f %M -o "$T/rss" "$B/vxreplay" "$H/chunk-claims-max" --report $rep >/dev/null 2>"$T/err" ||
			{ fail "chunk-claims-max: --report $rep failed: $(cat "$T/err")"; continue; }
		kb=$(tail -n 1 "$T/rss")
		[ "$kb" -lt 153600 ] && ok "chunk-claims-max: --report $rep in $kb KB" ||
			fail "chunk-claims-max: --report $rep used $kb KB (more than 150 MB)"
	done
else
	echo "skip: chunk-claims-max memory (no /usr/bin/time, or a sanitizer build)"
fi
finish
