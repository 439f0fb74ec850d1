/* script_eval.c - what the ops of a script read besides registers, and
 * their run-time errors
 *
 * Fields of the event (and of a firing without one: BEGIN, END, tick) and
 * run-time errors (a division by zero: the clause is abandoned and the
 * error counted, as in DTrace).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script/script_impl.h"
#include "script/bt_impl.h"
#include "script/event_int.h"

/* ---- fields ---- */

const char *vxt_sprobe_name(unsigned bit)
{
	switch (bit) {
	case SP_QUEUE: return "queue";
	case SP_START: return "start";
	case SP_DONE: return "done";
	case SP_REQUEUE: return "requeue";
	case SP_ERROR: return "error";
	case SP_LOST: return "lost";
	case SP_BEGIN: return "BEGIN";
	case SP_END: return "END";
	case SP_OTHER: return "other";
	default: return "tick";
	}
}

/* probeprov, probemod, probefunc of the probe @bit as illumos names them
 * (io:genunix:bdev_strategy:start, io:genunix:biodone:done,
 * dtrace:::BEGIN, profile:::tick-1sec). */
static const char *probe_part(unsigned bit, int f)
{
	if (bit & (SP_BEGIN | SP_END))
		return f == SF_PROBEPROV ? "dtrace" : "";
	if (bit & SP_TICK)
		return f == SF_PROBEPROV ? "profile" : "";
	if (f == SF_PROBEPROV)
		return "io";
	if (f == SF_PROBEMOD)
		return "genunix";
	return vxt_sprobe_func(bit);
}

const char *vxt_sobj_name(const struct vxt_script *s, uint32_t id)
{
	const struct vxt_object *o = s->objs ? vxt_objtab_get(s->objs, id) : NULL;

	return o ? o->name : "";
}

struct script_value vxt_sfield(const struct firing *x, int f)
{
	const struct vxt_event *ev = x->ev;
	struct script_value v = { .type = SV_INT };
	const struct vxt_object *o;

	if (f == SF_PROBEPROV || f == SF_PROBEMOD || f == SF_PROBEFUNC) {
		v.type = SV_STR;
		v.s = probe_part(x->probe, f);
		return v;
	}
	if (!ev) {
		if (f == SF_OBJECT || f == SF_PHASE || f == SF_OP || f == SF_COMM ||
		    f == SF_EXECNAME || f == SF_PROBENAME || f == SF_HOST) {
			v.type = SV_STR;
			v.s = f == SF_PROBENAME ? vxt_sprobe_name(x->probe) : "";
		} else if (f == SF_WALLTIMESTAMP) {
			v.i = (int64_t)x->s->now + x->s->wall_off;
		} else if (f == SF_TIMESTAMP || f == SF_TIME) {
			v.i = (int64_t)(f == SF_TIME && x->s->now > x->s->time_base ?
					x->s->now - x->s->time_base : f == SF_TIME ? 0 : x->s->now);
		}
		return v;
	}
	switch (f) {
	case SF_TIME:
		v.i = ev->time_ns > x->s->time_base ? (int64_t)(ev->time_ns - x->s->time_base) : 0;
		break;
	case SF_TIMESTAMP: v.i = (int64_t)ev->time_ns; break;
	case SF_OBJECT:
		v.type = SV_STR;
		v.s = vxt_sobj_name(x->s, ev->object);
		break;
	case SF_HOST:
		o = x->s->objs ? vxt_objtab_get(x->s->objs, ev->object) : NULL;
		v.type = SV_STR;
		v.s = o ? o->host : "";
		break;
	case SF_DEV:
		o = x->s->objs ? vxt_objtab_get(x->s->objs, ev->object) : NULL;
		v.i = o ? o->dev : 0;
		break;
	case SF_PHASE:
		v.type = SV_STR;
		v.s = vxt_phase_name(ev->phase);
		break;
	case SF_OP:
		v.type = SV_STR;
		v.s = vxt_op_name(ev->op);
		break;
	case SF_FLAGS: case SF_SECTOR: case SF_BYTES: case SF_LATENCY: case SF_ERROR:
	case SF_PID: case SF_CPU:
		v.i = vxt_vm_event_int(ev, (unsigned)f);
		break;
	case SF_COMM: case SF_EXECNAME:
		v.type = SV_STR;
		v.s = x->s->strs ? vxt_strtab_get(x->s->strs, ev->comm) : "";
		break;
	case SF_Q2D: case SF_D2C: case SF_Q2C: case SF_Q2G: case SF_G2I: case SF_I2D:
		/* the completion's own interval; 0 where not known */
		v.i = x->s->pp && x->s->iv.v[f - SF_Q2D] != VXT_IV_UNSET ?
		      (int64_t)x->s->iv.v[f - SF_Q2D] : 0;
		break;
	case SF_PROBENAME:
		v.type = SV_STR;
		v.s = vxt_sprobe_name(x->probe);
		break;
	case SF_ARG0:
		v.i = x->req ? (int64_t)x->req->id : 0;
		break;
	case SF_WALLTIMESTAMP:
		v.i = (int64_t)ev->time_ns + x->s->wall_off;
		break;
	}
	return v;
}

/* ---- run-time errors ---- */

void vxt_sruntime_error(struct firing *x, const struct script_node *at, const char *what)
{
	struct vxt_script *s = x->s;

	if (!x->error) {
		s->st.errors++;
		if (!strcmp(what, "division by zero"))
			s->st.div_zero++;
		if (!s->errs_seen) {
			s->errs_seen = malloc(160);
			if (s->errs_seen)
				snprintf(s->errs_seen, 160, "%s at %s:%u:%u, probe %s", what,
					 s->name, at->line, at->col, x->cl ? x->cl->probe_text : "?");
		}
	}
	x->error = true;
}
