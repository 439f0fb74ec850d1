#!/bin/sh
# ebpf_ops.sh - tracefs_ops.sh's checks on the ebpf source: every op it
# records on a loop device equals the kernel's count, every completion is
# paired with its issue, and no flush-sequence end is recorded as a write.
VXT_OPS_SOURCE=ebpf
. "$VXT_TOP/tests/cli/tracefs_ops.sh"
