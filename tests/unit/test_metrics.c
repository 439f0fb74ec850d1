/* test_metrics.c - the metric set against brute force: counters, in-flight,
 * histogram buckets at their edges, the snapshot, and Accept negotiation
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vxtrace/metrics.h"

/* The value of the sample line that starts with @prefix followed by a space;
 * -1 when absent. */
static long long sample(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = text;

	while ((p = strstr(p, prefix))) {
		if ((p == text || p[-1] == '\n') && p[n] == ' ')
			return atoll(p + n + 1);
		p += n;
	}
	return -1;
}

static char *render(struct vxt_metrics *m, enum vxt_metrics_format fmt)
{
	char *out;
	size_t len;

	ck_assert_int_eq(vxt_metrics_render(m, fmt, &out, &len), 0);
	out = realloc(out, len + 1);
	out[len] = 0;
	return out;
}

START_TEST(counts_match_brute_force)
{
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_metrics *m = vxt_metrics_new();
	struct vxt_event ev[3000];
	long long done[2][2] = { { 0 } }, bytes[2][2] = { { 0 } }, start[2][2] = { { 0 } };
	long long eio = 0, le1024 = 0, lost = 0;
	char name[160], *t;
	unsigned seed = 7;

	vxt_objtab_add(objs, 1, "sda", VXT_OBJ_DISK, 0);
	vxt_objtab_add(objs, 2, "we\"ird", VXT_OBJ_DISK, 0);
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < 3000; i++) {
		unsigned r = (unsigned)rand_r(&seed);

		ev[i].time_ns = (uint64_t)i * 1000;
		ev[i].object = r % 2;
		ev[i].op = (r >> 1) % 2;
		ev[i].bytes = 512u * ((r >> 2) % 16 + 1);
		if ((r >> 6) % 50 == 0) {
			ev[i].phase = VXT_PH_LOST;
			ev[i].sector = 3;
			lost += 3;
			continue;
		}
		ev[i].phase = (r >> 7) % 2 ? VXT_PH_DONE : VXT_PH_START;
		/* latencies around the 1.024 ms bucket edge */
		ev[i].latency_ns = ev[i].phase == VXT_PH_DONE ? 1024000 - 2 + (r >> 8) % 5 : 0;
		if (ev[i].phase == VXT_PH_DONE && (r >> 12) % 10 == 0)
			ev[i].error = -5;
		if (ev[i].phase == VXT_PH_START) {
			start[ev[i].object][ev[i].op]++;
			continue;
		}
		done[ev[i].object][ev[i].op]++;
		bytes[ev[i].object][ev[i].op] += ev[i].bytes;
		if (ev[i].object == 0 && ev[i].op == 0) {
			eio += ev[i].error != 0;
			le1024 += ev[i].latency_ns <= 1024000;
		}
	}
	ck_assert_int_eq(vxt_metrics_feed(m, objs, ev, 1500), 0);
	ck_assert_int_eq(vxt_metrics_publish(m), 0);
	ck_assert_int_eq(vxt_metrics_feed(m, objs, ev + 1500, 1500), 0);
	/* not published yet: the scrape sees the first half only */
	t = render(m, VXT_METRICS_PROMETHEUS);
	ck_assert_int_eq(sample(t, "vxtrace_events_total"), 1500);
	free(t);
	ck_assert_int_eq(vxt_metrics_publish(m), 0);
	t = render(m, VXT_METRICS_PROMETHEUS);
	ck_assert_int_eq(sample(t, "vxtrace_events_total"), 3000);
	ck_assert_int_eq(sample(t, "vxtrace_events_lost_total"), lost);
	for (int o = 0; o < 2; o++)
		for (int op = 0; op < 2; op++) {
			const char *on = o ? "we\\\"ird" : "sda";

			snprintf(name, sizeof(name), "vxtrace_io_completed_total{object=\"%s\",op=\"%s\"}",
				 on, vxt_op_name((unsigned)op));
			ck_assert_int_eq(sample(t, name), done[o][op]);
			snprintf(name, sizeof(name), "vxtrace_io_bytes_total{object=\"%s\",op=\"%s\"}",
				 on, vxt_op_name((unsigned)op));
			ck_assert_int_eq(sample(t, name), bytes[o][op]);
			snprintf(name, sizeof(name), "vxtrace_io_in_flight{object=\"%s\",op=\"%s\"}",
				 on, vxt_op_name((unsigned)op));
			ck_assert_int_eq(sample(t, name),
					 start[o][op] > done[o][op] ? start[o][op] - done[o][op] : 0);
		}
	ck_assert_int_eq(sample(t, "vxtrace_io_errors_total{object=\"sda\",op=\"read\","
				"errno=\"EIO\"}"), eio);
	ck_assert_int_eq(sample(t, "vxtrace_io_d2c_seconds_bucket{object=\"sda\",op=\"read\","
				"le=\"0.001024\"}"), le1024);
	ck_assert_int_eq(sample(t, "vxtrace_io_d2c_seconds_bucket{object=\"sda\",op=\"read\","
				"le=\"0.000512\"}"), 0);
	ck_assert_int_eq(sample(t, "vxtrace_io_d2c_seconds_bucket{object=\"sda\",op=\"read\","
				"le=\"0.002048\"}"), done[0][0]);
	ck_assert_int_eq(sample(t, "vxtrace_io_d2c_seconds_bucket{object=\"sda\",op=\"read\","
				"le=\"+Inf\"}"), done[0][0]);
	ck_assert_ptr_null(strstr(t, "# EOF"));
	ck_assert_ptr_null(strstr(t, "speculations"));
	free(t);
	t = render(m, VXT_METRICS_OPENMETRICS);
	ck_assert_ptr_nonnull(strstr(t, "\n# TYPE vxtrace_io_completed counter\n"));
	ck_assert_ptr_nonnull(strstr(t, "\n# TYPE vxtrace_io_d2c_seconds histogram\n"));
	ck_assert_int_eq(strcmp(t + strlen(t) - 6, "# EOF\n"), 0);
	free(t);
	vxt_metrics_free(m);
	vxt_objtab_free(objs);
}
END_TEST

START_TEST(view_counters)
{
	struct vxt_metrics *m = vxt_metrics_new();
	struct vxt_view_stats st = { .events_in = 10, .events_out = 4, .has_spec = true };
	char *t;

	st.spec.committed = 2;
	st.spec.discarded = 5;
	st.spec.failed = 1;
	vxt_metrics_set_view(m, &st);
	vxt_metrics_set_lost(m, 9);
	vxt_metrics_publish(m);
	t = render(m, VXT_METRICS_PROMETHEUS);
	ck_assert_int_eq(sample(t, "vxtrace_view_events_in_total"), 10);
	ck_assert_int_eq(sample(t, "vxtrace_view_events_kept_total"), 4);
	ck_assert_int_eq(sample(t, "vxtrace_speculations_committed_total"), 2);
	ck_assert_int_eq(sample(t, "vxtrace_speculations_discarded_total"), 5);
	ck_assert_int_eq(sample(t, "vxtrace_speculations_failed_total"), 1);
	ck_assert_int_eq(sample(t, "vxtrace_events_lost_total"), 9);
	free(t);
	vxt_metrics_free(m);
}
END_TEST

START_TEST(negotiation)
{
	ck_assert_int_eq(vxt_metrics_negotiate(NULL), VXT_METRICS_PROMETHEUS);
	ck_assert_int_eq(vxt_metrics_negotiate("*/*"), VXT_METRICS_PROMETHEUS);
	ck_assert_int_eq(vxt_metrics_negotiate("application/openmetrics-text"),
			 VXT_METRICS_OPENMETRICS);
	/* what Prometheus 2.x sends */
	ck_assert_int_eq(vxt_metrics_negotiate(
		"application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
		"version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
		VXT_METRICS_OPENMETRICS);
	ck_assert_int_eq(vxt_metrics_negotiate(
		"text/plain;q=0.9, application/openmetrics-text; q=0.2"), VXT_METRICS_PROMETHEUS);
	ck_assert_int_eq(vxt_metrics_negotiate("application/openmetrics-text;q=0"),
			 VXT_METRICS_PROMETHEUS);
}
END_TEST

Suite *metrics_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, counts_match_brute_force);
	tcase_add_test(tc, view_counters);
	tcase_add_test(tc, negotiation);
	suite_add_tcase(s, tc);
	return s;
}
