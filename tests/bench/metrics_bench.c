/* metrics_bench.c - the /metrics endpoint at 1000 objects: server time of a
 * scrape (render alone, and the whole HTTP exchange over loopback), and what
 * a scrape every second costs a collector feeding events as fast as it can,
 * against the goals (10 ms, 2%). Every scrape's answer must be a 200 naming
 * each object's completion counter, else it exits 1: a fast answer without
 * the series measures nothing.
 *
 *   usage: metrics-bench [OBJECTS] [SECONDS]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "vxtrace/metrics.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Does the response in @buf (@len bytes) answer 200 with a completion
 * counter for each of objects disk0 .. disk@nobj-1? */
static bool answer_ok(const char *buf, size_t len, unsigned nobj)
{
	static const char series[] = "\nvxtrace_io_completed_total{object=\"disk";
	unsigned char *seen = calloc(nobj ? nobj : 1, 1);
	const char *p = buf, *end = buf + len;
	unsigned found = 0;

	if (!seen || len < 12 || (strncmp(buf, "HTTP/1.0 200", 12) && strncmp(buf, "HTTP/1.1 200", 12))) {
		free(seen);
		return false;
	}
	while ((p = memmem(p, (size_t)(end - p), series, sizeof(series) - 1))) {
		unsigned long id;
		char *q;

		p += sizeof(series) - 1;
		id = strtoul(p, &q, 10);
		if (q > p && *q == '"' && id < nobj && !seen[id]) {
			seen[id] = 1;
			found++;
		}
	}
	free(seen);
	return found == nobj;
}

/* One GET /metrics over a new connection, its answer checked (answer_ok()).
 * @return the bytes read, or -1 (no answer, or not the one expected). */
static long scrape(unsigned port, unsigned nobj)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	static const char req[] = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
	size_t total = 0, cap = 1 << 20;
	char *buf = malloc(cap + 1);
	ssize_t n = 0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool good;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!buf || fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return -1;
	}
	for (;;) {
		if (total == cap) {
			char *b = realloc(buf, 2 * cap + 1);

			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
		if ((n = read(fd, buf + total, cap - total)) <= 0)
			break;
		total += (size_t)n;
	}
	close(fd);
	good = n == 0 && answer_ok(buf, total, nobj);
	free(buf);
	return good ? (long)total : -1;
}

struct scraper {
	unsigned port, nobj;
	atomic_int stop;
	atomic_int go;		/* scrape once now */
	atomic_int scrapes;	/* the good ones */
	atomic_int bad;
};

static void *scrape_when_asked(void *arg)
{
	struct scraper *s = arg;

	while (!atomic_load(&s->stop)) {
		if (!atomic_load(&s->go)) {
			usleep(2000);
			continue;
		}
		if (scrape(s->port, s->nobj) > 0)
			atomic_fetch_add(&s->scrapes, 1);
		else
			atomic_fetch_add(&s->bad, 1);
		atomic_store(&s->go, 0);
	}
	return NULL;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct rate {
	double events, wall, cpu;	/* events fed, wall and thread CPU seconds */
};

/* Feed events over @nobj objects for @secs seconds, publishing as a
 * collector does; add what it did to @r. */
static void feed(struct vxt_metrics *m, const struct vxt_objtab *objs, unsigned nobj,
		 double secs, struct rate *r)
{
	struct vxt_event ev[4096];
	double t0 = now(), c0 = cpu_now(), t;
	uint64_t n = 0;
	static uint64_t seed = 1;

	memset(ev, 0, sizeof(ev));
	do {
		for (size_t i = 0; i < 4096; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			ev[i].object = (uint32_t)((seed >> 33) % nobj);
			ev[i].op = (uint8_t)((seed >> 20) % 3);
			ev[i].phase = (seed >> 10) & 1 ? VXT_PH_DONE : VXT_PH_START;
			ev[i].bytes = 4096;
			ev[i].latency_ns = (seed >> 40) % 20000000;
			ev[i].error = (seed >> 5) % 1000 == 0 ? -5 : 0;
		}
		vxt_metrics_feed(m, objs, ev, 4096);
		vxt_metrics_tick(m);
		n += 4096;
		t = now();
	} while (t - t0 < secs);
	r->events += (double)n;
	r->wall += t - t0;
	r->cpu += cpu_now() - c0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned nobj = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
	double secs = argc > 2 ? atof(argv[2]) : 5;
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_metrics *m = vxt_metrics_new();
	struct vxt_metrics_server *srv;
	struct scraper sc = { 0 };
	pthread_t th;
	char err[VXT_ERRBUF_SIZE], name[32], *text;
	double rt[50], ht[50], quiet, busy;
	struct rate q = { 0 }, b = { 0 };
	size_t len = 0;
	long got = 0;

	for (unsigned i = 0; i < nobj; i++) {
		snprintf(name, sizeof(name), "disk%u", i);
		vxt_objtab_add(objs, i + 1, name, VXT_OBJ_DISK, 0);
	}
	srv = vxt_metrics_serve(m, "127.0.0.1:0", false, err);
	if (!srv) {
		fprintf(stderr, "metrics-bench: %s\n", err);
		return 1;
	}
	feed(m, objs, nobj, 0.5, &(struct rate){ 0 });	/* every series exists */
	vxt_metrics_publish(m);
	for (int i = 0; i < 50; i++) {
		double t = now();

		vxt_metrics_render(m, VXT_METRICS_PROMETHEUS, &text, &len);
		rt[i] = now() - t;
		free(text);
		t = now();
		got = scrape(vxt_metrics_server_port(srv), nobj);
		ht[i] = now() - t;
		if (got < 0) {	/* a time of no answer would measure nothing */
			fprintf(stderr, "metrics-bench: scrape %d: no answer 200 with every "
				"object's series\n", i + 1);
			return 1;
		}
	}
	qsort(rt, 50, sizeof(double), cmp);
	qsort(ht, 50, sizeof(double), cmp);
	printf("metrics: %u objects, %zu bytes (%ld on the wire): render median %.2f ms "
	       "(max %.2f), HTTP scrape median %.2f ms (max %.2f)\n", nobj, len, got,
	       rt[25] * 1e3, rt[49] * 1e3, ht[25] * 1e3, ht[49] * 1e3);

	/* the collector's rate without scrapes and with one a second, in
	 * alternating one-second windows (so the load of the machine weighs on
	 * both alike): per second of wall clock, and per second of the
	 * collector thread's own CPU time (what a scrape costs it, whatever
	 * else runs) */
	sc.port = vxt_metrics_server_port(srv);
	sc.nobj = nobj;
	pthread_create(&th, NULL, scrape_when_asked, &sc);
	for (int i = 0; i < (int)(secs + 0.5); i++) {
		feed(m, objs, nobj, 1.0, &q);
		atomic_store(&sc.go, 1);
		feed(m, objs, nobj, 1.0, &b);
		while (atomic_load(&sc.go))
			usleep(1000);
	}
	atomic_store(&sc.stop, 1);
	pthread_join(th, NULL);
	if (atomic_load(&sc.bad)) {
		fprintf(stderr, "metrics-bench: %d of %d scrapes during the feed got no answer 200 "
			"with every object's series\n", atomic_load(&sc.bad),
			atomic_load(&sc.bad) + atomic_load(&sc.scrapes));
		return 1;
	}
	quiet = q.events / q.wall;
	busy = b.events / b.wall;
	printf("metrics: collector %.2fM events/s alone, %.2fM events/s with %d scrapes "
	       "(one a second): %.2f%% slower by the wall clock\n", quiet / 1e6, busy / 1e6,
	       atomic_load(&sc.scrapes), 100 * (quiet - busy) / quiet);
	quiet = q.events / q.cpu;
	busy = b.events / b.cpu;
	printf("metrics: collector %.2fM events per CPU second alone, %.2fM with the scrapes: "
	       "%.2f%% slower\n", quiet / 1e6, busy / 1e6, 100 * (quiet - busy) / quiet);
	printf("metrics: the goals: a scrape at most 10 ms of server time (render median): %s; "
	       "a scrape a second at most 2%% of the collector's events per CPU second: %s\n",
	       rt[25] <= 0.010 ? "met" : "NOT met",
	       100 * (quiet - busy) / quiet <= 2 ? "met" : "NOT met");
	vxt_metrics_server_stop(srv);
	vxt_metrics_free(m);
	vxt_objtab_free(objs);
	return 0;
}
