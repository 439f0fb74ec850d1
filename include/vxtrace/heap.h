/* heap.h - one binary min-heap, as a template of inline functions
 *
 * The heap is an array the caller owns (and grows, e.g. with vxt_grow()):
 * h[0] is its least element. VXT_HEAP_DEFINE(name, T, C, before) writes
 *
 *   void name_push(T *h, size_t *n, const T *x, C ctx)  add *x (room for *n + 1)
 *   void name_pop(T *h, size_t *n, C ctx)         drop h[0] (*n > 0)
 *   void name_fix_top(T *h, size_t n, C ctx)      h[0] changed: restore order
 *   void name_make(T *h, size_t n, C ctx)         order any n elements
 *   void name_up(T *h, size_t i, C ctx)           h[i] became less: move it up
 *   void name_down(T *h, size_t n, size_t i, C ctx)  h[i] became greater
 *
 * where before(ctx, a, b), a and b of type const T *, says a comes first,
 * and is a function or macro the compiler sees, so it is inlined into the
 * loops: the heap costs what a heap written for T costs. Elements that are
 * equal in before() come out in no particular order: a stable order needs a
 * tie-break in before() (e.g. an insertion counter).
 *
 *   static bool ev_before(const void *ctx, const struct ev *a, const struct ev *b)
 *   { (void)ctx; return a->t < b->t; }
 *   VXT_HEAP_DEFINE(evheap, struct ev, const void *, ev_before)
 */
#ifndef VXTRACE_HEAP_H
#define VXTRACE_HEAP_H

#include <stddef.h>

/* a file uses the few functions it needs of the ones the template writes */
#define VXT_HEAP_FN static inline __attribute__((unused))

#define VXT_HEAP_DEFINE(name, T, C, before)                                              \
	/* put *x in the hole at i, moving lesser children up; x may point to  \
	 * an element past n, which the moves do not touch */                         \
	VXT_HEAP_FN void name##_place_down(T *h, size_t n, size_t i, const T *x, C ctx) \
	{                                                                               \
		size_t c;                                                               \
                                                                                        \
		while ((c = 2 * i + 1) < n) {                                           \
			if (c + 1 < n && before(ctx, &h[c + 1], &h[c]))                 \
				c++;                                                    \
			if (!before(ctx, &h[c], x))                                     \
				break;                                                  \
			h[i] = h[c];                                                    \
			i = c;                                                          \
		}                                                                       \
		h[i] = *x;                                                              \
	}                                                                               \
	/* put *x in the hole at i, moving greater parents down */                     \
	VXT_HEAP_FN void name##_place_up(T *h, size_t i, const T *x, C ctx)            \
	{                                                                               \
		while (i && before(ctx, x, &h[(i - 1) / 2])) {                          \
			h[i] = h[(i - 1) / 2];                                          \
			i = (i - 1) / 2;                                                \
		}                                                                       \
		h[i] = *x;                                                              \
	}                                                                               \
	VXT_HEAP_FN void name##_up(T *h, size_t i, C ctx)                              \
	{                                                                               \
		T x = h[i];                                                             \
                                                                                        \
		name##_place_up(h, i, &x, ctx);                                         \
	}                                                                               \
	VXT_HEAP_FN void name##_down(T *h, size_t n, size_t i, C ctx)                  \
	{                                                                               \
		T x = h[i];                                                             \
                                                                                        \
		name##_place_down(h, n, i, &x, ctx);                                    \
	}                                                                               \
	VXT_HEAP_FN void name##_push(T *h, size_t *n, const T *x, C ctx)               \
	{                                                                               \
		name##_place_up(h, (*n)++, x, ctx);                                     \
	}                                                                               \
	VXT_HEAP_FN void name##_pop(T *h, size_t *n, C ctx)                            \
	{                                                                               \
		if (--*n)                                                               \
			name##_place_down(h, *n, 0, &h[*n], ctx);                       \
	}                                                                               \
	VXT_HEAP_FN void name##_fix_top(T *h, size_t n, C ctx)                         \
	{                                                                               \
		if (n)                                                                  \
			name##_down(h, n, 0, ctx);                                      \
	}                                                                               \
	VXT_HEAP_FN void name##_make(T *h, size_t n, C ctx)                            \
	{                                                                               \
		for (size_t i = n / 2; i-- > 0;)                                        \
			name##_down(h, n, i, ctx);                                      \
	}

#endif
