/* vxtgen.c - write a .vxt file of exactly the events given, for tests that
 * need times, names or counts no capture makes (times near 2^64, times
 * running backwards, thousands of command names).
 *
 *   usage: vxtgen [-c CHUNK_EVENTS] [-a MONO,REAL] [-H HOST] OUT.vxt < EVENTS
 *   (-a: the clock anchor, default 1,1700000000000000000; -H: the host)
 *   EVENTS: one event a line, "TIME OBJECT PHASE OP SECTOR BYTES LATENCY ERROR COMM"
 *   (TIME, LATENCY in ns; PHASE and OP as numbers of enum vxt_phase and
 *   vxt_op; ERROR a negative errno or 0; OBJECT and COMM names, "-" for none).
 *   Objects get ids in order of first use. A line "sleep MS" closes the chunk
 *   (the events so far reach the file) and waits MS milliseconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vxtrace/vxtrace.h"

static int die(const char *msg, const char *arg)
{
	fprintf(stderr, "vxtgen: %s%s\n", msg, arg ? arg : "");
	return 1;
}

int main(int argc, char **argv)
{
	struct vxt_writer_opts o = { .force = true, .host = "vxtgen", .source = "sim",
				     .anchor_mono_ns = 1, .anchor_real_ns = 1700000000ull * 1000000000ull };
	struct vxt_objtab *objs = vxt_objtab_new();
	struct vxt_strtab *strs = vxt_strtab_new();
	char err[VXT_ERRBUF_SIZE], line[1024], obj[64], comm[256];
	struct vxt_writer *w;
	unsigned long lineno = 0;
	int a = 1;

	for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
		if (!strcmp(argv[a], "-c"))
			o.chunk_bytes = strtoul(argv[a + 1], NULL, 10) * sizeof(struct vxt_event);
		else if (!strcmp(argv[a], "-H"))
			o.host = argv[a + 1];
		else if (strcmp(argv[a], "-a") || sscanf(argv[a + 1], "%" SCNu64 ",%" SCNu64,
							     &o.anchor_mono_ns, &o.anchor_real_ns) != 2)
			break;
	}
	if (argc != a + 1)
		return die("usage: vxtgen [-c CHUNK_EVENTS] [-a MONO,REAL] [-H HOST] OUT.vxt "
			   "< EVENTS", NULL);
	if (!objs || !strs)
		return die("out of memory", NULL);
	o.chunk_ns = UINT64_MAX;	/* chunks by count only: any times are fine */
	w = vxt_writer_open(argv[a], &o, objs, strs, err);
	if (!w)
		return die(err, NULL);
	while (fgets(line, sizeof(line), stdin)) {
		struct vxt_event e = { 0 };
		unsigned phase, op;
		int error;
		int64_t id;

		lineno++;
		if (!strncmp(line, "sleep ", 6)) {
			long ms = strtol(line + 6, NULL, 10);
			struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

			if (vxt_writer_flush(w) < 0)
				return die(vxt_writer_error(w), NULL);
			nanosleep(&ts, NULL);
			continue;
		}
		if (sscanf(line, "%" SCNu64 " %63s %u %u %" SCNu64 " %" SCNu32 " %" SCNu64 " %d %255s",
			   &e.time_ns, obj, &phase, &op, &e.sector, &e.bytes, &e.latency_ns, &error,
			   comm) != 9) {
			fprintf(stderr, "vxtgen: stdin:%lu: expected 9 fields\n", lineno);
			return 1;
		}
		e.phase = (uint8_t)phase;
		e.op = (uint8_t)op;
		e.error = (int16_t)error;
		id = strcmp(obj, "-") ? vxt_objtab_find_name(objs, obj) : 0;
		if (id < 0)
			id = vxt_objtab_add(objs, (uint32_t)(vxt_objtab_count(objs) + 1) << 8, obj,
					    VXT_OBJ_DISK, 1ull << 30);
		e.object = (uint32_t)id;
		e.comm = strcmp(comm, "-") ? (uint32_t)vxt_strtab_intern(strs, comm, strlen(comm)) : 0;
		if (vxt_writer_write(w, &e, 1) < 0)
			return die(vxt_writer_error(w), NULL);
	}
	if (vxt_writer_close(w, err) < 0)
		return die(err, NULL);
	vxt_objtab_free(objs);
	vxt_strtab_free(strs);
	return 0;
}
