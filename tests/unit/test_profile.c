/* test_profile.c - YAML profiles, the search path, and the view over them
 *
 * Every shipped profile loads; every broken one in tests/profiles-bad gets
 * the message listed in tests/profiles-bad/EXPECTED; sections parse into the
 * struct; limits hold; the search path is honoured in order; a view applies
 * a profile's filter and speculation.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vxtrace/vxtrace.h"

static const char *top(void)
{
	const char *t = getenv("VXT_TOP");

	return t && *t ? t : ".";
}

static struct vxt_profile *parse(const char *text, char *err)
{
	return vxt_profile_parse(text, strlen(text), "t.yaml", err);
}

START_TEST(test_shipped)
{
	static const char *const names[] = {
		"default", "errors-in-context", "slow-io", "per-process", "writes-only", "hot-lba",
	};
	char path[4096], err[VXT_ERRBUF_SIZE];
	struct vxt_profile *p;
	DIR *d;
	struct dirent *de;
	int n = 0;

	snprintf(path, sizeof(path), "%s/formats/profiles", top());
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char file[8192];

		if (!strstr(de->d_name, ".yaml"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		p = vxt_profile_load(file, err);
		ck_assert_msg(p != NULL, "%s", err);
		ck_assert_msg(!strncmp(de->d_name, p->name, strlen(p->name)) &&
			      !strcmp(de->d_name + strlen(p->name), ".yaml"),
			      "%s says name %s", de->d_name, p->name);
		ck_assert_ptr_nonnull(p->description);
		vxt_profile_free(p);
		n++;
	}
	closedir(d);
	ck_assert_int_ge(n, 6);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/formats/profiles/%s.yaml", top(), names[i]);
		p = vxt_profile_load(path, err);
		ck_assert_msg(p != NULL, "%s", err);
		vxt_profile_free(p);
	}
	snprintf(path, sizeof(path), "%s/formats/profiles/errors-in-context.yaml", top());
	p = vxt_profile_load(path, err);
	ck_assert(p->has_spec && p->is_context);
	ck_assert_uint_eq(p->context.key, VXT_SPEC_KEY_OBJECT);
	ck_assert_uint_eq(p->context.before_ns, 200000000);
	ck_assert_uint_eq(p->context.after_ns, 50000000);
	ck_assert_str_eq(p->context.on, "error");
	ck_assert_uint_eq(p->spec.nclauses, 3);
	ck_assert_uint_eq(p->spec.clauses[0].window_ns, 200000000);
	ck_assert_uint_eq(p->spec.clauses[2].follow_ns, 50000000);
	ck_assert_str_eq(p->path, path);
	vxt_profile_free(p);
}
END_TEST

START_TEST(test_broken)
{
	char dir[4096], list[4096 + 16], line[1024], err[VXT_ERRBUF_SIZE];
	FILE *f;
	int n = 0, files = 0;
	DIR *d;
	struct dirent *de;

	snprintf(dir, sizeof(dir), "%s/tests/profiles-bad", top());
	snprintf(list, sizeof(list), "%s/EXPECTED", dir);
	f = fopen(list, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' '), want[12288], file[8192];
		struct vxt_profile *p;

		if (line[0] == '#' || !sp)
			continue;
		*sp = '\0';
		line[strcspn(line, "\n")] = '\0';
		sp[1 + strcspn(sp + 1, "\n")] = '\0';
		snprintf(file, sizeof(file), "%s/%s", dir, line);
		snprintf(want, sizeof(want), "%s:%s", file, sp + 1);
		p = vxt_profile_load(file, err);
		ck_assert_msg(p == NULL, "%s loaded", line);
		ck_assert_str_eq(err, want);
		n++;
	}
	fclose(f);
	d = opendir(dir);
	while ((de = readdir(d)))
		files += strstr(de->d_name, ".yaml") != NULL;
	closedir(d);
	ck_assert_int_eq(n, files);
	ck_assert_int_ge(n, 20);
}
END_TEST

START_TEST(test_sections)
{
	static const char text[] =
		"name: full\n"
		"description: |\n"
		"  Two lines\n"
		"  of text.\n"
		"filter: 'op == write && bytes >= 4k'\n"
		"speculation:\n"
		"  key: object,pid\n"
		"  nspec: 12\n"
		"  specsize: 64k\n"
		"  clauses:\n"
		"    - probe: [start, requeue]\n"
		"      predicate: \"!spec\"\n"
		"      action: speculation\n"
		"      window: 1s\n"
		"    - action: speculate\n"
		"    - probe: done\n"
		"      predicate: error == EIO\n"
		"      action: commit\n"
		"      after: 5ms\n"
		"timeline: {bin: 250ms, mark: [errors, slow]}\n"
		"heatmap:\n"
		"  rows: lba\n"
		"  object: nvme0n1\n"
		"  buckets: 32\n"
		"  metric: latency-p99\n"
		"  scale: log\n"
		"  bins: 300\n"
		"columns: [time, spec, object, latency]\n"
		"thresholds:\n"
		"  latency:\n"
		"    warn: 2ms\n"
		"    crit: 20ms\n";
	char err[VXT_ERRBUF_SIZE], why[256], text_path[4096];
	struct vxt_kspec ks;
	struct vxt_profile *p = parse(text, err);

	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_str_eq(p->name, "full");
	ck_assert_str_eq(p->description, "Two lines\nof text.\n");
	ck_assert_str_eq(p->filter, "op == write && bytes >= 4k");
	ck_assert_uint_eq(p->filter_line, 5);
	ck_assert_uint_eq(p->filter_col, 10);
	ck_assert(p->has_spec && !p->is_context);
	ck_assert_uint_eq(p->spec.key, VXT_SPEC_KEY_OBJECT_PID);
	ck_assert_uint_eq(p->spec.nspec, 12);
	ck_assert_uint_eq(p->spec.specsize, 65536);
	ck_assert_uint_eq(p->spec.nclauses, 3);
	ck_assert_uint_eq(p->spec.clauses[0].probes, VXT_PROBE_START | VXT_PROBE_REQUEUE);
	ck_assert_str_eq(p->spec.clauses[0].predicate, "!spec");
	ck_assert(p->spec.clauses[0].windowed);
	ck_assert_uint_eq(p->spec.clauses[0].window_ns, 1000000000);
	ck_assert_uint_eq(p->spec.clauses[1].probes, VXT_PROBE_ANY);
	ck_assert_ptr_null(p->spec.clauses[1].predicate);
	ck_assert_uint_eq(p->spec.clauses[1].actions[0], VXT_ACT_SPECULATE);
	ck_assert_uint_eq(p->spec.clauses[2].follow_ns, 5000000);
	ck_assert_uint_eq(p->spec.clauses[2].line, 16);
	ck_assert_uint_eq(p->spec.clauses[2].col, 7);
	ck_assert(!p->timeline.bin_auto);
	ck_assert_uint_eq(p->timeline.bin_ns, 250000000);
	ck_assert_uint_eq(p->timeline.marks, VXT_MARK_ERRORS | VXT_MARK_SLOW);
	ck_assert_uint_eq(p->heatmap.rows, VXT_PROF_ROWS_LBA);
	ck_assert_str_eq(p->heatmap.object, "nvme0n1");
	ck_assert_uint_eq(p->heatmap.buckets, 32);
	ck_assert_uint_eq(p->heatmap.metric, VXT_PROF_LAT_P99);
	ck_assert_uint_eq(p->heatmap.scale, VXT_PROF_LOG);
	ck_assert_uint_eq(p->heatmap.bins, 300);
	ck_assert_uint_eq(p->ncolumns, 4);
	ck_assert_uint_eq(p->columns[1], VXT_COL_SPEC);
	ck_assert_uint_eq(p->columns[3], VXT_COL_LATENCY);
	ck_assert_uint_eq(p->thresholds.latency_warn_ns, 2000000);
	ck_assert_uint_eq(p->thresholds.latency_crit_ns, 20000000);
	vxt_profile_free(p);

	/* defaults; the name comes from the file */
	p = vxt_profile_parse("description: x\n", 15, "/a/b/my.prof.yaml", err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_str_eq(p->name, "my.prof");
	ck_assert(!p->has_spec);
	ck_assert_ptr_null(p->filter);
	ck_assert(p->timeline.bin_auto);
	ck_assert_uint_eq(p->timeline.marks, VXT_MARK_ERRORS | VXT_MARK_LOST);
	ck_assert_uint_eq(p->heatmap.rows, VXT_PROF_ROWS_OBJECTS);
	ck_assert_uint_eq(p->ncolumns, 0);
	vxt_profile_free(p);

	/* context defaults: key object, on error, no window */
	p = parse("context: {before: 1s}\n", err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_str_eq(p->context.on, "error");
	ck_assert_uint_eq(p->context.after_ns, 0);
	ck_assert_uint_eq(p->spec.key, VXT_SPEC_KEY_OBJECT);
	ck_assert_uint_eq(p->context.before_events, 0);
	vxt_profile_free(p);

	/* windows by count, alone or beside a time, reach the kernel program */
	p = parse("context: {before_events: 64, after: 1s, after_events: 32}\n", err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_uint_eq(p->context.before_events, 64);
	ck_assert_uint_eq(p->context.after_events, 32);
	ck_assert_uint_eq(p->spec.clauses[0].window_events, 65);	/* and the trigger */
	ck_assert_uint_eq(p->spec.clauses[2].follow_events, 32);
	ck_assert_int_eq(vxt_profile_kspec(p, &ks, why, sizeof(why)), 1);
	ck_assert_uint_eq(ks.before_events, 64);
	ck_assert_uint_eq(ks.after_events, 32);
	ck_assert_uint_eq(ks.before_ns, 0);
	ck_assert_uint_eq(ks.after_ns, 1000000000);
	/* no nspec or specsize: the engine's defaults go to the kernel */
	ck_assert_uint_eq(ks.nspec, 64);
	ck_assert_uint_eq(ks.specsize, 1u << 20);
	vxt_profile_free(p);

	/* the profile's buffers go to the kernel as written */
	p = parse("context: {before: 200ms, nspec: 3, specsize: 4M}\n", err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_int_eq(vxt_profile_kspec(p, &ks, why, sizeof(why)), 1);
	ck_assert_uint_eq(ks.nspec, 3);
	ck_assert_uint_eq(ks.specsize, 4u << 20);
	vxt_profile_free(p);

	/* key request without its discard clause stays in user space, saying why */
	p = parse("speculation:\n  key: request\n  clauses:\n"
		  "    - {probe: start, action: [speculation, speculate]}\n"
		  "    - {probe: done, predicate: spec && latency >= 20ms, action: commit}\n", err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_int_eq(vxt_profile_kspec(p, &ks, why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "not the request form") != NULL, "%s", why);
	vxt_profile_free(p);

	/* the request form (slow-io's clauses) goes into the kernel; one whose
	 * commit also fires without spec does not */
	for (int i = 0; i < 3; i++) {
		static const char *const on[] = { "spec && latency > 5ms", "spec && error",
						  "spec && error || latency >= 1ms" };
		char req_text[512];

		snprintf(req_text, sizeof(req_text), "speculation:\n  key: request\n  clauses:\n"
			 "    - {probe: start, action: [speculation, speculate]}\n"
			 "    - {probe: [done, requeue], predicate: spec, action: speculate}\n"
			 "    - {probe: done, predicate: '%s', action: commit}\n"
			 "    - {probe: done, predicate: spec, action: discard}\n", on[i]);
		p = parse(req_text, err);
		ck_assert_msg(p != NULL, "%s", err);
		ck_assert_int_eq(vxt_profile_kspec(p, &ks, why, sizeof(why)), i < 2);
		if (i == 0) {
			ck_assert_uint_eq(ks.key, VXT_SPEC_KEY_REQUEST);
			ck_assert_uint_eq(ks.on_latency_ns, 5000000);
			ck_assert(ks.latency_strict && !ks.on_error);
			ck_assert_uint_eq(ks.before_ns + ks.after_ns, 0);
		} else if (i == 1) {
			ck_assert(ks.on_error && !ks.on_latency_ns);
		} else {
			ck_assert_msg(strstr(why, "not the request form") != NULL, "%s", why);
		}
		vxt_profile_free(p);
	}
	/* what the kernel runs is decided from the compiled predicates, not their
	 * text: a trigger written otherwise, and a request form's commit with its
	 * tests the other way round, go in; a trigger on one errno does not */
	p = parse("context: {before: 1s, on: '(latency > 5ms) || (error != 0)'}\n", err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_int_eq(vxt_profile_kspec(p, &ks, why, sizeof(why)), 1);
	ck_assert(ks.on_error && ks.latency_strict);
	ck_assert_uint_eq(ks.on_latency_ns, 5000000);
	vxt_profile_free(p);
	p = parse("speculation:\n  key: request\n  clauses:\n"
		  "    - {probe: start, action: [speculation, speculate]}\n"
		  "    - {probe: [done, requeue], predicate: spec, action: speculate}\n"
		  "    - {probe: done, predicate: 'latency >= 2ms && spec', action: commit}\n"
		  "    - {probe: done, predicate: spec, action: discard}\n", err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_int_eq(vxt_profile_kspec(p, &ks, why, sizeof(why)), 1);
	ck_assert_uint_eq(ks.key, VXT_SPEC_KEY_REQUEST);
	ck_assert_uint_eq(ks.on_latency_ns, 2000000);
	ck_assert(!ks.latency_strict && !ks.on_error);
	vxt_profile_free(p);
	p = parse("context: {before: 1s, on: 'error == EIO'}\n", err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_int_eq(vxt_profile_kspec(p, &ks, why, sizeof(why)), 0);
	ck_assert_msg(strstr(why, "is not one the kernel program knows") != NULL, "%s", why);
	vxt_profile_free(p);

	/* the shipped slow-io is that form */
	snprintf(text_path, sizeof(text_path), "%s/formats/profiles/slow-io.yaml", top());
	p = vxt_profile_load(text_path, err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_int_eq(vxt_profile_kspec(p, &ks, why, sizeof(why)), 1);
	ck_assert_uint_eq(ks.key, VXT_SPEC_KEY_REQUEST);
	ck_assert_uint_eq(ks.on_latency_ns, 20000000);
	ck_assert(!ks.latency_strict && !ks.on_error);
	ck_assert_uint_eq(ks.nspec, 65536);
	ck_assert_uint_eq(ks.specsize, 4096);
	vxt_profile_free(p);
}
END_TEST

static const struct {
	const char *text;
	const char *msg;
} bad_text[] = {
	{ "filter: 'bytes > '\n", "t.yaml:1:18: expected a value after '>'" },
	{ "filter: \"op == rd\"\n", "t.yaml:1:16: unknown op 'rd' (read write flush discard "
				    "write-zeroes passthru other)" },
	{ "filter:\n", "t.yaml:1:8: 'filter' needs an expression" },
	{ "filter: [a, b]\n", "t.yaml:1:9: 'filter' takes an expression, not a list" },
	{ "timeline: 5\n", "t.yaml:1:11: timeline must be a mapping, not a value" },
	{ "timeline: {bin: 0}\n", "t.yaml:1:17: 'bin' must be above 0 (or auto)" },
	{ "timeline: {mark: [errors, dust]}\n", "t.yaml:1:27: unknown mark 'dust' (errors, lost, "
						"slow, none)" },
	{ "heatmap: {bins: -3}\n", "t.yaml:1:17: 'bins' takes a number, not '-3'" },
	{ "heatmap: {metric: p95}\n", "t.yaml:1:19: unknown metric 'p95' (iops, bytes, "
				      "latency-p50, latency-p99, errors)" },
	{ "context: {nspec: 0}\n", "t.yaml:1:18: 'nspec' must be between 1 and 65536" },
	{ "context: {before_events: 0}\n",
	  "t.yaml:1:26: 'before_events' must be between 1 and 1048576" },
	{ "context: {after_events: 1048577}\n",
	  "t.yaml:1:25: 'after_events' must be between 1 and 1048576" },
	{ "context: {before_events: 3ms}\n",
	  "t.yaml:1:26: 'before_events' takes a number, not '3ms'" },
	{ "speculation: {clauses: []}\n", "t.yaml:1:24: 'clauses' takes a list of clauses" },
	{ "speculation: {clauses: [{probe: entry, action: trace}]}\n",
	  "t.yaml:1:33: unknown probe 'entry' (start, done, requeue, any)" },
	{ "speculation: {clauses: [{probe: any}]}\n",
	  "t.yaml:1:25: a clause needs an action (speculation, speculate, commit, discard or "
	  "trace)" },
	{ "speculation: {clauses: [{action: trace, predicate: \"spec &&\"}]}\n",
	  "t.yaml:1:60: expected a field, '(' or '!', not the end" },
	{ "filter: spec\n", "t.yaml:1:9: 'spec' is only known in speculation predicates" },
	{ "name: [x]\n", "t.yaml:1:7: 'name' takes a name, not a list" },
	{ "? [a]\n: b\n", "t.yaml:1:3: a key must be a plain name" },
	{ "name: a\n---\nname: b\n", NULL },	/* only the first document counts */
	{ "x: *nope\n", "t.yaml:1:4: unknown alias '*nope'" },
};

START_TEST(test_bad_text)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_profile *p = parse(bad_text[_i].text, err);

	if (!bad_text[_i].msg) {
		ck_assert_msg(p != NULL, "%s", err);
		vxt_profile_free(p);
		return;
	}
	ck_assert_msg(p == NULL, "loaded: %s", bad_text[_i].text);
	ck_assert_str_eq(err, bad_text[_i].msg);
}
END_TEST

START_TEST(test_limits)
{
	char err[VXT_ERRBUF_SIZE];
	size_t big = 20 * 1024;
	char *text = malloc(VXT_PROFILE_MAX_BYTES + 64);
	struct vxt_profile *p;

	strcpy(text, "description: ");
	memset(text + 13, 'x', big);
	strcpy(text + 13 + big, "\n");
	p = parse(text, err);
	ck_assert_ptr_null(p);
	ck_assert_str_eq(err, "t.yaml:1:14: string too long (more than 16384 bytes)");

	memset(text, '#', VXT_PROFILE_MAX_BYTES + 1);
	text[VXT_PROFILE_MAX_BYTES + 1] = '\0';
	ck_assert_ptr_null(parse(text, err));
	ck_assert_str_eq(err, "t.yaml: profile too large (more than 1048576 bytes)");

	ck_assert_ptr_null(vxt_profile_parse("name: a\0b", 9, "t.yaml", err));
	ck_assert_str_eq(err, "t.yaml: not a text file (NUL byte)");

	/* aliases that stay under the count but expand far are stopped by the visit bound */
	strcpy(text, "columns: &c [time, object]\nheatmap: {object: *c}\n");
	ck_assert_ptr_null(parse(text, err));
	ck_assert_str_eq(err, "t.yaml:1:10: 'object' takes an object name, not a list");
	free(text);
}
END_TEST

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_search_path)
{
	char base[] = "/tmp/vxt-prof-XXXXXX", a[256], xdg[256], xdgp[300], env[256];
	char path[VXT_PROFILE_PATH_MAX], err[VXT_ERRBUF_SIZE];
	char names[64][VXT_PROFILE_NAME_MAX];
	char dirs[VXT_PROFILE_MAX_DIRS][VXT_PROFILE_PATH_MAX];
	struct vxt_profile *p;
	int n;

	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(a, sizeof(a), "%s/a", base);
	snprintf(xdg, sizeof(xdg), "%s/xdg", base);
	snprintf(xdgp, sizeof(xdgp), "%s/xdg/vxtrace", base);
	snprintf(env, sizeof(env), "%s/env", base);
	mkdir(a, 0700);
	mkdir(xdg, 0700);
	mkdir(xdgp, 0700);
	strcat(xdgp, "/profiles");
	mkdir(xdgp, 0700);
	mkdir(env, 0700);
	write_file(a, "one.yaml", "description: from a\n");
	write_file(xdgp, "one.yaml", "description: from xdg\n");
	write_file(xdgp, "two.yml", "description: from xdg\n");
	write_file(env, "two.yaml", "description: from env\n");
	write_file(env, "three.yaml", "description: from env\n");
	write_file(env, "default.yaml", "description: mine\n");
	setenv("XDG_CONFIG_HOME", xdg, 1);
	setenv("VXT_PROFILE_DIR", env, 1);

	n = vxt_profile_dirs(a, dirs, VXT_PROFILE_MAX_DIRS);
	ck_assert_int_ge(n, 4);
	ck_assert_str_eq(dirs[0], a);
	ck_assert_str_eq(dirs[1], xdgp);
	ck_assert_str_eq(dirs[2], env);
	ck_assert_str_eq(dirs[n - 1], VXT_PROFILE_DATADIR);

	p = vxt_profile_open("one", a, err);
	ck_assert_msg(p != NULL, "%s", err);
	ck_assert_str_eq(p->description, "from a");
	vxt_profile_free(p);
	p = vxt_profile_open("one", NULL, err);
	ck_assert_str_eq(p->description, "from xdg");
	vxt_profile_free(p);
	p = vxt_profile_open("two", a, err);	/* .yml in xdg comes before env */
	ck_assert_str_eq(p->description, "from xdg");
	vxt_profile_free(p);
	p = vxt_profile_open("three", a, err);
	ck_assert_str_eq(p->description, "from env");
	vxt_profile_free(p);
	p = vxt_profile_open("default", NULL, err);	/* the user's wins over the shipped */
	ck_assert_str_eq(p->description, "mine");
	vxt_profile_free(p);

	ck_assert_int_eq(vxt_profile_find("nope", a, path, err), -ENOENT);
	ck_assert(!strncmp(err, "no profile 'nope' in ", 21));
	ck_assert_int_eq(vxt_profile_find("../etc/passwd", a, path, err), -ENOENT);
	ck_assert_int_eq(vxt_profile_find("a b", a, path, err), -EINVAL);
	ck_assert_str_eq(err, "bad profile name 'a b'");
	snprintf(path, sizeof(path), "%s/one.yaml", a);
	p = vxt_profile_open(path, NULL, err);	/* a path is used as is */
	ck_assert_str_eq(p->description, "from a");
	vxt_profile_free(p);

	n = vxt_profile_list(a, names, 64);
	ck_assert_int_ge(n, 4);
	for (int i = 1; i < n; i++)
		ck_assert_int_lt(strcmp(names[i - 1], names[i]), 0);
	for (int i = 0, seen = 0; i < n; i++) {
		seen += !strcmp(names[i], "one") + !strcmp(names[i], "two") +
			!strcmp(names[i], "three");
		if (i == n - 1)
			ck_assert_int_eq(seen, 3);
	}
}
END_TEST

static struct vxt_event ev_at(uint64_t t, uint32_t obj, unsigned op, int err)
{
	struct vxt_event ev = { .time_ns = t, .object = obj, .op = (uint8_t)op,
				.phase = VXT_PH_DONE, .error = (int16_t)err, .bytes = 4096 };
	return ev;
}

START_TEST(test_view_filter)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_profile *p = parse("filter: op == write\n", err);
	struct vxt_event ev[] = {
		ev_at(1, 0, VXT_OP_READ, 0), ev_at(2, 0, VXT_OP_WRITE, 0),
		ev_at(3, 0, VXT_OP_READ, 0), ev_at(4, 1, VXT_OP_WRITE, -5),
		{ .time_ns = 5, .phase = VXT_PH_LOST, .sector = 7 },
	};
	struct vxt_view_stats st;
	struct vxt_spec_event out;
	struct vxt_view *v;
	uint64_t seqs[8];
	int n = 0;

	ck_assert_ptr_nonnull(p);
	v = vxt_view_new(p, "bytes == 4k || bytes == 0", NULL, NULL, err);
	ck_assert_msg(v != NULL, "%s", err);
	ck_assert_int_eq(vxt_view_push(v, ev, 5), 0);
	vxt_view_finish(v);
	while (vxt_view_next(v, &out) == 1) {
		seqs[n++] = out.seq;
		ck_assert_uint_eq(out.spec, 0);
	}
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(seqs[0], 1);
	ck_assert_uint_eq(seqs[1], 3);
	ck_assert_uint_eq(seqs[2], 4);	/* lost markers always pass */
	vxt_view_get_stats(v, &st);
	ck_assert_uint_eq(st.events_in, 5);
	ck_assert_uint_eq(st.filtered_out, 2);
	ck_assert_uint_eq(st.events_out, 3);
	ck_assert(!st.has_spec);
	vxt_view_free(v);

	ck_assert_ptr_null(vxt_view_new(p, "bytes >", NULL, NULL, err));
	ck_assert_str_eq(err, "filter:1:8: expected a value after '>'");
	vxt_profile_free(p);
}
END_TEST

START_TEST(test_view_context)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_profile *p = parse("filter: op != flush\n"
				      "context: {key: object, before: 10ns, after: 5ns, on: error}\n",
				      err);
	struct vxt_event ev[] = {
		ev_at(100, 0, VXT_OP_READ, 0),		/* too early */
		ev_at(112, 0, VXT_OP_READ, 0),		/* kept: before */
		ev_at(113, 1, VXT_OP_READ, 0),		/* other object */
		ev_at(115, 0, VXT_OP_FLUSH, 0),		/* filtered out */
		ev_at(120, 0, VXT_OP_WRITE, -5),	/* the error */
		ev_at(125, 0, VXT_OP_READ, 0),		/* kept: after */
		ev_at(126, 0, VXT_OP_READ, 0),		/* too late */
	};
	struct vxt_view_stats st;
	struct vxt_spec_event out;
	struct vxt_view *v;
	uint64_t seqs[8], specs[8];
	int n = 0;

	ck_assert_msg(p != NULL, "%s", err);
	v = vxt_view_new(p, NULL, NULL, NULL, err);
	ck_assert_msg(v != NULL, "%s", err);
	for (int i = 0; i < 7; i++) {
		ck_assert_int_eq(vxt_view_push(v, &ev[i], 1), 0);
		while (vxt_view_next(v, &out) == 1) {
			seqs[n] = out.seq;
			specs[n++] = out.spec;
		}
	}
	vxt_view_finish(v);
	while (vxt_view_next(v, &out) == 1) {
		seqs[n] = out.seq;
		specs[n++] = out.spec;
	}
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(seqs[0], 1);
	ck_assert_uint_eq(seqs[1], 4);
	ck_assert_uint_eq(seqs[2], 5);
	ck_assert_uint_ne(specs[0], 0);
	ck_assert_uint_eq(specs[0], specs[1]);
	ck_assert_uint_eq(specs[1], specs[2]);
	vxt_view_get_stats(v, &st);
	ck_assert(st.has_spec);
	ck_assert_uint_eq(st.filtered_out, 1);
	ck_assert_uint_eq(st.spec.committed, 1);
	ck_assert_uint_eq(st.spec.failed, 0);
	vxt_view_free(v);
	vxt_profile_free(p);
}
END_TEST

Suite *profile_suite(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("profile");

	tcase_add_test(tc, test_shipped);
	tcase_add_test(tc, test_broken);
	tcase_add_test(tc, test_sections);
	tcase_add_loop_test(tc, test_bad_text, 0, sizeof(bad_text) / sizeof(bad_text[0]));
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_search_path);
	tcase_add_test(tc, test_view_filter);
	tcase_add_test(tc, test_view_context);
	suite_add_tcase(s, tc);
	return s;
}
