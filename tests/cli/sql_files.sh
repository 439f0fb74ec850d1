#!/bin/sh
# sql_files.sh - the files of vxreplay --sql are taken as every other mode
# takes them: a directory stands for its *.vxt files, and the checks of
# several files (vxt_reader_open_set()) refuse the same file twice (by ./,
# a hard link, a symlink, a glob), two overlapping files of one host and a
# file without a clock anchor, with one line and exit 1.
. "${VXT_TOP:-.}/tests/lib.sh"
case $B in /*) ;; *) B=$PWD/$B ;; esac
cd "$T" || exit 1
rec() { "$B/vxrecord" -q -s sim -d 2s --rate 3000 "$@"; }
rec --seed 3 --host alpha -o a.vxt || { echo "recording host alpha failed"; exit 1; }
rec --seed 5 --host beta --clock-offset 2.5s -o b.vxt || { echo "recording host beta failed"; exit 1; }
n() { "$B/vxreplay" "$@" --sql "SELECT count(*) FROM events" --format csv | tail -n 1; }
na=$(n a.vxt) nb=$(n b.vxt)

# --- a directory: its *.vxt files ----------------------------------------------
mkdir d empty
cp a.vxt b.vxt d/
expect_eq "DIR --sql events" "$(n d)" $((na + nb))
expect_eq "DIR --sql hosts" "$("$B/vxreplay" d --sql "SELECT group_concat(host, '+') FROM
	(SELECT DISTINCT host FROM events ORDER BY host)" --format csv | tail -n 1)" "alpha+beta"
expect_fail "an empty directory" 1 "empty: a directory without .vxt files" -- \
	"$B/vxreplay" empty --sql "SELECT 1"

# --- the same file twice, by any name ------------------------------------------
ln a.vxt hard.vxt
ln -s a.vxt sym.vxt
sq() { "$B/vxreplay" "$@" --sql "SELECT count(*) FROM events"; }
expect_fail "a.vxt and ./a.vxt" 1 "are the same file" -- sq a.vxt ./a.vxt
expect_fail "a.vxt and a hard link" 1 "are the same file" -- sq a.vxt hard.vxt
expect_fail "a.vxt and a symlink" 1 "are the same file" -- sq b.vxt sym.vxt a.vxt
expect_fail "a.vxt and a glob" 1 "are the same file" -- sq a.vxt 'a*.vxt'
expect_fail "b.vxt and d/ (a copy)" 1 "b.vxt and d/b.vxt: both from host 'beta'" -- sq b.vxt d
# --- one host twice ---------------------------------------------------------------
cp a.vxt again.vxt
expect_fail "one host's overlapping files" 1 "both from host 'alpha' and their times overlap" \
	-- sq a.vxt again.vxt
# --- a file without a clock anchor (its header's CRC made right again) ---------------
set_header b.vxt noclock.vxt 44 '<Q' 0 || fail "making a file without an anchor failed"	# anchor_real_ns
expect_eq "a file without an anchor alone" "$(n noclock.vxt)" "$nb"
expect_fail "a file without a clock anchor" 1 "noclock.vxt: no clock anchor" -- \
	sq a.vxt noclock.vxt
# the checks pass what makes one trace
expect_eq "two hosts" "$(n a.vxt b.vxt)" $((na + nb))
finish
