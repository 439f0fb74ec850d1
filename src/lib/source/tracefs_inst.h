/* tracefs_inst.h - tracefs mounting and instance housekeeping (internal)
 *
 * Used by the tracefs capture source: find or mount tracefs, make the
 * recorder's own instance, and remove the instances that recorders killed
 * without cleanup left. Instances are global to the machine, whatever the
 * PID namespace, so a name is "<prefix>-<pid>" in the initial PID namespace
 * and "<prefix>-<pid>-ns<inode of the namespace>" in any other.
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
/* Remove every instance of @prefix named for a process of our PID namespace
 * that is gone (a zombie counts as gone); another namespace's are not ours
 * to judge. Can't fail; what cannot be removed stays. */
void vxt_tracefs_remove_stale(const char *prefix);

struct tracefs_instance;
/* Create this process's instance of @prefix, exclusively: never one that
 * another process uses. Its name goes to @name (@size bytes).
 * @return the instance (caller frees with tracefs_instance_destroy() and
 * tracefs_instance_free()), or NULL with errno set. */
struct tracefs_instance *vxt_tracefs_instance_new(const char *prefix, char *name, size_t size);

#endif
