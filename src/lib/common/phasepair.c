/* phasepair.c - each completion's own intervals for the interval fields of
 * filters and scripts (phasepair.h), read from the pairer (pairer.h)
 */
#include <errno.h>
#include <stdlib.h>

#include "vxtrace/pairer.h"
#include "vxtrace/phasepair.h"

struct vxt_phasepair {
	struct vxt_pairer *pr;
	uint64_t ord;
};

static const char *const names[VXT_IV_COUNT] = { "q2d", "d2c", "q2c", "q2g", "g2i", "i2d" };

const char *vxt_iv_name(unsigned iv)
{
	return iv < VXT_IV_COUNT ? names[iv] : NULL;
}

void vxt_ivals_unset(struct vxt_ivals *iv)
{
	for (unsigned i = 0; i < VXT_IV_COUNT; i++)
		iv->v[i] = VXT_IV_UNSET;
}

struct vxt_phasepair *vxt_phasepair_new(void)
{
	struct vxt_phasepair *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pr = vxt_pairer_new(VXT_PAIRER_UNQUEUED);
	if (!p->pr) {
		free(p);
		return NULL;
	}
	return p;
}

void vxt_phasepair_free(struct vxt_phasepair *p)
{
	if (!p)
		return;
	vxt_pairer_free(p->pr);
	free(p);
}

void vxt_phasepair_reset(struct vxt_phasepair *p)
{
	vxt_pairer_reset(p->pr);
	p->ord = 0;
}

uint32_t vxt_phasepair_open(const struct vxt_phasepair *p)
{
	return vxt_pairer_pending(p->pr);
}

static uint64_t span(uint64_t from, uint64_t to)
{
	return from == VXT_PT_UNSET || to == VXT_PT_UNSET || to < from ? VXT_IV_UNSET : to - from;
}

int vxt_phasepair_add(struct vxt_phasepair *p, const struct vxt_event *ev,
		      struct vxt_ivals *out)
{
	struct vxt_pstep st;
	uint64_t t[VXT_PT_COUNT];

	vxt_ivals_unset(out);
	if (vxt_pairer_add(p->pr, ev, p->ord++, &st) < 0)
		return -ENOMEM;
	if (ev->phase != VXT_PH_DONE)
		return 0;
	if (st.what != VXT_PS_CLOSED) {
		if (ev->latency_ns)
			out->v[VXT_IV_D2C] = ev->latency_ns;
		return 0;
	}
	vxt_pairer_request(&st, t);
	out->v[VXT_IV_Q2D] = span(t[VXT_PT_Q], t[VXT_PT_D]);
	out->v[VXT_IV_D2C] = span(t[VXT_PT_D], t[VXT_PT_C]);
	out->v[VXT_IV_Q2C] = span(t[VXT_PT_Q], t[VXT_PT_C]);
	out->v[VXT_IV_Q2G] = span(t[VXT_PT_Q], t[VXT_PT_G]);
	out->v[VXT_IV_G2I] = span(t[VXT_PT_G], t[VXT_PT_I]);
	out->v[VXT_IV_I2D] = span(t[VXT_PT_I], t[VXT_PT_D]);
	if (out->v[VXT_IV_D2C] == VXT_IV_UNSET && t[VXT_PT_D] == VXT_PT_UNSET && ev->latency_ns)
		out->v[VXT_IV_D2C] = ev->latency_ns;
	return 0;
}
