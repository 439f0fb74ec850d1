#!/bin/sh
# layering.sh - the browser's model (src/vxreplay/browser/), the batch reports
# and the analysis layer include no curses header (directly or through the UI
# headers), and only the screen manager handles KEY_RESIZE among the shared
# widgets and the browsers.
top=${VXT_TOP:?VXT_TOP unset}
cd "$top" || exit 1
bad=0
models="$(ls src/lib/analysis/*.[ch] src/vxreplay/browser/*.[ch] src/vxreplay/report/*.[ch]) include/vxtrace/timeline.h include/vxtrace/heatmap.h"
for f in $models; do
	[ -f "$f" ] || { echo "missing model file $f"; bad=1; continue; }
	if grep -Eq '#include *[<"](n?curses|ncursesw/[a-z]*)\.h[>"]' "$f" ||
	   grep -Eq '#include *"(tui/|tui_)[a-z]*\.h"' "$f"; then
		echo "$f includes a curses or UI header"
		bad=1
	fi
done
resize=$(grep -rl --include='*.c' 'KEY_RESIZE' src/tui src/vxreplay 2>/dev/null)
[ "$resize" = "src/tui/tui_screen.c" ] || { echo "KEY_RESIZE handled in: $resize"; bad=1; }
[ $bad = 0 ] && echo "models are curses-free; one resize handler"
exit $bad
