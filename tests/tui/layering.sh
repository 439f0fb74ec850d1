#!/bin/sh
# layering.sh - the models include no curses header (directly or through the
# UI headers): the browser's model (src/vxreplay/browser/), the batch reports,
# the analysis layer, and vxtop's collector, interval model, what-is-shown
# state and batch output, and every vxtop file outside its screens
# (src/vxtop/screens/) and tui.[ch]. Both browsers run on the one screen
# manager: only src/tui/tui_screen.c handles KEY_RESIZE, reads keys and
# installs signal handlers for the screens.
top=${VXT_TOP:?VXT_TOP unset}
cd "$top" || exit 1
bad=0
models="$(ls src/lib/analysis/*.[ch] src/vxreplay/browser/*.[ch] src/vxreplay/report/*.[ch]) include/vxtrace/timeline.h include/vxtrace/heatmap.h"
models="$models src/vxtop/model.c src/vxtop/model.h src/vxtop/shown.c src/vxtop/shown.h src/vxtop/collect.c src/vxtop/collect.h src/vxtop/batch.c src/vxtop/vxtop.h src/vxtop/script.c src/vxtop/script.h"
for f in $models; do
	[ -f "$f" ] || { echo "missing model file $f"; bad=1; continue; }
	if grep -Eq '#include *[<"](n?curses|ncursesw/[a-z]*)\.h[>"]' "$f" ||
	   grep -Eq '#include *"(tui/|tui_|tui\.h)[a-z]*\.?h?"' "$f"; then
		echo "$f includes a curses or UI header"
		bad=1
	fi
done
resize=$(grep -rl --include='*.c' 'KEY_RESIZE' src/tui src/vxreplay src/vxtop 2>/dev/null)
[ "$resize" = "src/tui/tui_screen.c" ] || { echo "KEY_RESIZE handled in: $resize"; bad=1; }
# one loop: nobody else reads keys or sets the input timeout
loops=$(grep -rlE --include='*.c' '\b(w?getch|wtimeout|nodelay|halfdelay)\(|[^_a-z]timeout\(' src/tui src/vxreplay/tui src/vxtop 2>/dev/null)
[ "$loops" = "src/tui/tui_screen.c" ] || { echo "keys read in: $loops"; bad=1; }
# vxtop's curses code is its screens (src/vxtop/screens/) and tui.[ch] that runs them
for f in src/vxtop/*.[ch]; do
	case $f in src/vxtop/tui.[ch]) continue ;; esac
	if grep -Eq '#include *[<"](n?curses|ncursesw/[a-z]*)\.h[>"]' "$f" ||
	   grep -Eq '#include *"(tui/|tui_|tui\.h)[a-z]*\.?h?"' "$f"; then
		echo "$f draws: a screen belongs in src/vxtop/screens/"
		bad=1
	fi
done
# the screens' signal handling is the screen manager's
sigs=$(grep -lE 'sigaction|signal\(' src/vxtop/tui.c src/vxtop/screens/*.c src/vxreplay/tui/*.c 2>/dev/null)
[ -z "$sigs" ] || { echo "signal handlers in screen code: $sigs"; bad=1; }
# both browsers' screens are built on the shared action table and key bar
for f in src/vxtop/tui.c src/vxreplay/tui/keys.c; do
	grep -q 'struct tui_action' "$f" || { echo "$f has no action table"; bad=1; }
done
grep -q 'tui_screen_run' src/vxtop/tui.c || { echo "vxtop does not run the shared loop"; bad=1; }
[ $bad = 0 ] && echo "models are curses-free; one loop and one resize handler for both browsers"
exit $bad
