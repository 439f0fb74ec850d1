/* tracefs_inst.h - tracefs mounting and instance housekeeping (internal)
 *
 * Used by the tracefs capture source: find or mount tracefs, and remove the
 * instances ("<prefix>-<pid>") that recorders killed without cleanup left.
 */
#ifndef VXT_TRACEFS_INST_H
#define VXT_TRACEFS_INST_H

#include <stdbool.h>
#include <stddef.h>

#define VXT_TRACEFS_MOUNT "/sys/kernel/tracing"

/* Is tracefs mounted? If @path, store where. Can't fail. */
bool vxt_tracefs_mounted(char *path, size_t size);
/* Mount tracefs on VXT_TRACEFS_MOUNT unless it is mounted somewhere.
 * @return 0, or a negative errno with the reason in @err. */
int vxt_tracefs_mount(char *err, size_t size);
/* Could an instance be made here (mounted and writable, or mountable)?
 * @return 0, or a negative errno. */
int vxt_tracefs_usable(void);
/* Remove every instance "<prefix>-<pid>" whose process is gone (a zombie
 * counts as gone). Can't fail; what cannot be removed stays. */
void vxt_tracefs_remove_stale(const char *prefix);

#endif
