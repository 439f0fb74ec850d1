#!/bin/sh
# demo.sh - record the built-in simulated workload (four objects, scheduled
# error bursts) and open it in vxreplay.
#   usage: contrib/demo.sh BUILD_DIR
set -e
build=${1:-build}
out=${VXT_DEMO_FILE:-$build/demo.vxt}
"$build/vxrecord" --source sim --seed 1 -d 10s --force -o "$out"
echo
if [ -t 0 ] && [ -t 1 ]; then
	exec "$build/vxreplay" "$out"
fi
"$build/vxreplay" "$out" --report summary
echo
"$build/vxreplay" "$out" --report objects
echo
"$build/vxreplay" "$out" --report errors | head -n 12
