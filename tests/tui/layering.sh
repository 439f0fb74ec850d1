#!/bin/sh
# layering.sh - the browser's models include no curses header (directly or
# through the UI headers), and only the screen manager handles KEY_RESIZE
# among the shared widgets and the browser.
top=${VXT_TOP:?VXT_TOP unset}
cd "$top" || exit 1
bad=0
models="src/lib/timeline.c src/lib/heatmap.c include/vxtrace/timeline.h include/vxtrace/heatmap.h
	src/vxreplay/tui_model.h src/vxreplay/tui_model.c src/vxreplay/tui_view.c
	src/vxreplay/tui_jobs.c src/vxreplay/tui_spec.c src/vxreplay/tui_filter.c"
for f in $models; do
	[ -f "$f" ] || { echo "missing model file $f"; bad=1; continue; }
	if grep -Eq '#include *[<"](n?curses|ncursesw/[a-z]*)\.h[>"]' "$f" ||
	   grep -Eq '#include *"tui_(app|screen|draw|color|help|table|prompt|timeline|heatmap)\.h"' "$f"; then
		echo "$f includes a curses or UI header"
		bad=1
	fi
done
resize=$(grep -l 'KEY_RESIZE' src/tui/*.c src/vxreplay/*.c 2>/dev/null)
[ "$resize" = "src/tui/tui_screen.c" ] || { echo "KEY_RESIZE handled in: $resize"; bad=1; }
[ $bad = 0 ] && echo "models are curses-free; one resize handler"
exit $bad
