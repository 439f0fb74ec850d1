/* event_int.h - the event's integer fields read in place: by the event_int
 * op (vm.c), chosen by the compiler (compile.c), and by vxt_sfield()
 * (select/script_eval.c), so one function says what each field reads as
 * (internal to libvxtrace)
 */
#ifndef VXT_SCRIPT_EVENT_INT_H
#define VXT_SCRIPT_EVENT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "script/script_impl.h"

/* Whether field @f is an integer the event holds, read in place by the
 * event_int op (vxt_vm_event_int()). */
static inline bool vxt_vm_event_int_field(int f)
{
	return f == SF_FLAGS || f == SF_SECTOR || f == SF_BYTES || f == SF_LATENCY ||
	       f == SF_ERROR || f == SF_PID || f == SF_CPU || f == SF_TIMESTAMP;
}

/* Integer field @f of @ev, one vxt_vm_event_int_field() names, as
 * vxt_sfield() reads it. */
static inline int64_t vxt_vm_event_int(const struct vxt_event *ev, unsigned f)
{
	switch (f) {
	case SF_FLAGS: return ev->flags;
	case SF_SECTOR: return (int64_t)ev->sector;
	case SF_BYTES: return ev->bytes;
	case SF_LATENCY: return (int64_t)vxt_event_latency(ev);
	case SF_ERROR: return -(int64_t)ev->error;
	case SF_PID: return ev->pid;
	case SF_CPU: return ev->cpu;
	default: return (int64_t)ev->time_ns;	/* SF_TIMESTAMP */
	}
}

#endif
