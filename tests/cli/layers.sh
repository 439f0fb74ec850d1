#!/bin/sh
# layers.sh - the library's layers include only layers below them, and the
# programs include only public headers and their own.
#
#   common < format < source < script < select < analysis < sink, query
#
# A file in src/lib/L/ may include "M/x.h" (a private header of layer M) or
# "vxtrace/y.h" (a public header, which belongs to one layer, listed below)
# only when M is L or a layer below L. Layers of one rank (sink and query:
# where events go, and SQL over files) stand beside each other and include
# neither. A header named *_impl.h is its folder's alone: a file of another
# folder includes the header that folder made for other layers instead (the
# pairer's steps: common/pairer_steps.h), save those listed in shared_impl
# below. A program (src/vxrecord, src/vxreplay, src/vxtop), their shared
# command line (src/cli) or the TUI library (src/tui) includes no private
# header of the library at all.
. "${VXT_TOP:?}/tests/lib.sh"
[ -n "${VXT_SAN:-}" ] && skip "reads the sources, no program runs: run once, not again under the sanitizers"
top=$VXT_TOP
cd "$top" || { fail "cd $top"; finish; }

layer_rank() {
	case $1 in
	common) echo 1 ;; format) echo 2 ;; source) echo 3 ;;
	script) echo 4 ;; select) echo 5 ;; analysis) echo 6 ;; sink|query) echo 7 ;;
	*) echo 0 ;;
	esac
}

# the layer each public header belongs to
public_layer() {
	case $1 in
	event.h|objtab.h|strtab.h|util.h|outfile.h|escape.h|vxtrace.h|voltrace.h|vec.h|hash.h|heap.h) echo common ;;
	iopair.h|pairer.h|phasepair.h|latdist.h|recon.h|flight.h) echo common ;;
	vxt.h) echo format ;;
	source.h|chanrec.h|sysdev.h|blktrace.h) echo source ;;
	script.h) echo script ;;
	filter.h|profile.h|spec.h|view.h|pipeline.h) echo select ;;
	stats.h|timeline.h|heatmap.h|breakdown.h|pctl.h|procstats.h) echo analysis ;;
	metrics.h|sink.h|clickhouse.h) echo sink ;;
	sql.h) echo query ;;
	*) echo unknown ;;
	esac
}

# *_impl.h headers read from another folder: the script engine's state,
# which select/'s script front end builds, and the compiler's emitters, which
# select/'s filter front end compiles a filter with
shared_impl="script/script_impl.h script/bt_impl.h script/compile_impl.h"

for f in $(find src/lib -name '*.[ch]' | sort); do
	layer=$(echo "$f" | cut -d/ -f3)
	rank=$(layer_rank "$layer")
	if [ "$rank" = 0 ]; then
		fail "$f: not in a layer folder (common format source script select analysis sink query)"
		continue
	fi
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $inc in
		vxtrace/*) to=$(public_layer "${inc#vxtrace/}") ;;
		*/*) to=${inc%%/*} ;;
		*) continue ;;	# a header beside the file
		esac
		if [ "$to" = unknown ]; then
			fail "$f: includes $inc, a public header with no layer in tests/cli/layers.sh"
			continue
		fi
		case " $shared_impl " in
		*" $inc "*) ;;
		*) case $inc in
			*_impl.h) [ "$to" = "$layer" ] ||
				fail "$f: includes $inc, a header private to src/lib/$to" ;;
			esac ;;
		esac
		if [ "$(layer_rank "$to")" -gt "$rank" ]; then
			fail "$f: includes $inc: layer $layer must not include layer $to (above it)"
		elif [ "$to" != "$layer" ] && [ "$(layer_rank "$to")" = "$rank" ]; then
			fail "$f: includes $inc: layer $layer must not include layer $to (beside it)"
		fi
	done
done

# every public header has a layer
for h in include/vxtrace/*.h; do
	[ "$(public_layer "$(basename "$h")")" = unknown ] &&
		fail "$h: no layer in tests/cli/layers.sh"
done

# programs and the TUI library: public headers and their own only
for f in $(find src/vxrecord src/vxreplay src/vxtop src/cli src/tui -name '*.[ch]' | sort); do
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case ${inc%%/*} in
		common|format|source|script|select|analysis|sink|query)
			fail "$f: includes $inc, a private header of the library" ;;
		esac
	done
done

[ $fails = 0 ] && ok "layers: every include goes down; programs use public headers only"
finish
