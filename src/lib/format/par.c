/* par.c - a few jobs run side by side on helper threads and the caller
 *
 * Helpers are started for the call and joined before it returns, with small
 * stacks (the jobs are decoding and file reads; a process may run with a
 * tight address-space limit). Jobs are claimed from one atomic counter, so
 * a slow one does not hold the others back. See par.h.
 */
#include <pthread.h>
#include <unistd.h>

#include "format/par.h"

struct par {
	size_t njobs;
	size_t next;		/* the next job to claim (atomic) */
	void (*fn)(void *ctx, size_t job, unsigned worker);
	void *ctx;
};

struct helper {
	struct par *p;
	unsigned worker;
};

static void claim(struct par *p, unsigned worker)
{
	for (;;) {
		size_t j = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);

		if (j >= p->njobs)
			return;
		p->fn(p->ctx, j, worker);
	}
}

static void *helper_main(void *arg)
{
	struct helper *h = arg;

	claim(h->p, h->worker);
	return NULL;
}

unsigned vxt_par_workers(unsigned max)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (max > VXT_PAR_MAX)
		max = VXT_PAR_MAX;
	if (n < 1)
		n = 1;
	return (unsigned long)n < max ? (unsigned)n : max ? max : 1;
}

void vxt_par_run(size_t njobs, unsigned workers,
		 void (*fn)(void *ctx, size_t job, unsigned worker), void *ctx)
{
	struct par p = { njobs, 0, fn, ctx };
	struct helper hs[VXT_PAR_MAX];
	pthread_t th[VXT_PAR_MAX];
	pthread_attr_t attr;
	unsigned started = 0;

	if (workers > VXT_PAR_MAX)
		workers = VXT_PAR_MAX;
	if (workers > njobs)
		workers = (unsigned)njobs;
	if (workers > 1 && pthread_attr_init(&attr) == 0) {
		pthread_attr_setstacksize(&attr, 256 * 1024);
		for (unsigned w = 1; w < workers; w++) {
			hs[started] = (struct helper){ &p, w };
			if (pthread_create(&th[started], &attr, helper_main, &hs[started]) != 0)
				break;
			started++;
		}
		pthread_attr_destroy(&attr);
	}
	claim(&p, 0);
	for (unsigned h = 0; h < started; h++)
		pthread_join(th[h], NULL);
}
