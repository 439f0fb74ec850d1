/* spec_impl.h - shared between the speculation engine (spec.c), its life
 * cycle (spec_life.c) and its checker (spec_check.c) (internal to libvxtrace)
 */
#ifndef VXT_SPEC_IMPL_H
#define VXT_SPEC_IMPL_H

#include "vxtrace/filter.h"
#include "vxtrace/spec.h"

/* The engine's state (see spec.c for how it is used). */
struct srec {
	struct vxt_event ev;
	uint64_t seq;
};

struct sbuf {
	uint64_t id;		/* 0 = free */
	uint64_t ka, kb;	/* the key */
	struct srec *ring;	/* kept across reuse of the slot */
	uint32_t cap, head, n;
	uint32_t active_pos;	/* index in ->active */
	uint64_t added, gone;	/* events ever added / removed from the front */
	bool windowed;
	uint64_t window;	/* 0 with window_events: no time bound */
	uint32_t window_events;
};

struct lent {			/* an entry of the buffered log */
	uint64_t seq, id;
	uint64_t expire;	/* windowed: past this time the event can never be
				 * committed; UINT64_MAX otherwise */
	uint64_t nth;		/* the event was its buffer's nth added */
	uint32_t slot;
};

struct kstate {
	uint64_t a, b;
	uint64_t follow_until, follow_id;	/* follow_id 0 = not following */
	uint32_t follow_left;			/* ... for this many events more */
	uint32_t slot;		/* 1-based index in ->bufs; 0 = no speculation */
	bool used;
};

struct cclause {
	unsigned probes;
	struct vxt_filter *pred;
	int pred_spec;		/* pred is `spec` (1), `!spec` (0), or other (-1) */
	unsigned nact;
	enum vxt_spec_action act[VXT_SPEC_MAX_ACTIONS];
	bool windowed;
	uint64_t window, follow;
	uint32_t window_events, follow_events;
};

struct vxt_spec {
	enum vxt_spec_key key;
	unsigned ncl;
	struct cclause cl[VXT_SPEC_MAX_CLAUSES];
	unsigned nspec;
	uint32_t maxrec;	/* events per buffer */
	struct sbuf *bufs;
	uint32_t *freel, nfree;
	uint32_t *active, nactive;
	struct kstate *tab;
	size_t tabcap, tabn;
	struct vxt_spec_event *heap;
	size_t heapn, heapcap;
	uint64_t seq;		/* ordinal of the next input event */
	uint64_t next_id;
	uint64_t now;		/* newest event time */
	struct lent *log;	/* ring of buffered events in input order */
	size_t loghead, logn, logcap;
	uint64_t nbuffered;	/* events in all buffers */
	uint64_t last_sweep, last_prune;
	uint64_t max_pending;
	uint64_t gen;		/* bumped when a buffer loses its oldest event or closes */
	uint64_t prune_gen, prune_seq;	/* the front prune_seq was live at gen prune_gen */
	struct vxt_spec_stats st;
};

/* Compile clause @i's predicate of @c into *@out (NULL when it has none),
 * with `spec` allowed and positions from the clause.
 * @return 0, or -EINVAL with the message in @err. */
int vxt_spec_compile_pred(const struct vxt_spec_config *c, unsigned i,
			  const struct vxt_objtab *objs, const struct vxt_strtab *strs,
			  struct vxt_filter **out, char *err);

#endif
