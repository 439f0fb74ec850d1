/* marks.c - the browser's marks kept beside the trace, in TRACE.marks
 *
 * The marks the user sets are written to a sidecar file at each change and
 * read back when the trace is opened again (formats/marks.md). The file is
 * created under vxt_outfile_open()'s rule (0600, never through a symlink,
 * never the trace itself) and read without following a symlink. A mark whose
 * event is not in the trace, or not at the time the file says, is dropped
 * and counted: the sidecar may belong to an older file of the same name.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "browser/model.h"

#include "vxtrace/outfile.h"

#define MARKS_MAGIC "vxreplay-marks 1"
#define MARKS_LINE_MAX 128	/* longer lines are refused */

void vr_marks_path(const struct vr_model *m, char *buf, size_t size)
{
	snprintf(buf, size, "%s.marks", m->path);
}

/* The event @ord reads and is at @t, or it cannot be checked (damage). */
static bool mark_fits(struct vr_model *m, uint64_t ord, uint64_t t)
{
	const struct vxt_event *ev;

	if (ord >= vxt_reader_nevents(m->rd))
		return false;
	if (vxt_reader_seek_ordinal(m->rd, ord) < 0 || vxt_reader_next(m->rd, &ev) != 1)
		return true;
	return ev->time_ns == t;
}

static void add_mark(struct vr_model *m, uint64_t ord, uint64_t t)
{
	unsigned i;

	if (vr_model_is_marked(m, ord) || m->nmarks == VR_MAX_MARKS)
		return;
	for (i = m->nmarks; i > 0 && m->marks[i - 1].ord > ord; i--)
		m->marks[i] = m->marks[i - 1];
	m->marks[i] = (struct vr_mark){ .ord = ord, .time_ns = t };
	m->nmarks++;
}

/* "DIGITS DIGITS": two decimal numbers and one space, nothing else. */
static bool well_formed(const char *s)
{
	unsigned spaces = 0;
	size_t n = strlen(s);

	if (!n || s[0] == ' ' || s[n - 1] == ' ')
		return false;
	for (; *s; s++) {
		if (*s == ' ') {
			if (spaces++ || s[1] == ' ')
				return false;
		} else if (*s < '0' || *s > '9') {
			return false;
		}
	}
	return spaces == 1;
}

/* Parse the lines of @f into the marks. @return 0, or -1 with m->note set. */
static int parse(struct vr_model *m, FILE *f, const char *path, unsigned *dropped)
{
	char line[MARKS_LINE_MAX + 2];
	unsigned lno = 0;

	while (fgets(line, sizeof(line), f)) {
		uint64_t ord, t;
		char *end;
		size_t len = strlen(line);

		lno++;
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		else if (!feof(f)) {
			snprintf(m->note, sizeof(m->note), "%.400s:%u: line too long", path, lno);
			return -1;
		}
		if (lno == 1) {
			if (strcmp(line, MARKS_MAGIC)) {
				snprintf(m->note, sizeof(m->note), "%.400s:1: not a marks file (want \"%s\")",
					 path, MARKS_MAGIC);
				return -1;
			}
			continue;
		}
		if (!line[0] || line[0] == '#')
			continue;
		if (!well_formed(line))
			goto bad;
		errno = 0;
		ord = strtoull(line, &end, 10);
		t = strtoull(end + 1, &end, 10);
		if (errno)
			goto bad;
		if (m->nmarks == VR_MAX_MARKS) {
			snprintf(m->note, sizeof(m->note), "%.400s:%u: more than %d marks", path, lno,
				 VR_MAX_MARKS);
			return -1;
		}
		if (mark_fits(m, ord, t))
			add_mark(m, ord, t);
		else
			(*dropped)++;
		continue;
bad:
		snprintf(m->note, sizeof(m->note), "%.400s:%u: want \"ORDINAL TIME_NS\"", path, lno);
		return -1;
	}
	if (ferror(f)) {
		snprintf(m->note, sizeof(m->note), "%.400s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int vr_marks_load(struct vr_model *m)
{
	char path[4200];
	unsigned dropped = 0;
	struct stat st;
	FILE *f;
	int fd, rc;

	vr_marks_path(m, path, sizeof(path));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(m->note, sizeof(m->note), "%.400s: %s (marks not read)", path,
			 errno == ELOOP ? "is a symlink" : strerror(errno));
		m->note_error = true;
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(m->note, sizeof(m->note), "%.400s: not a regular file (marks not read)", path);
		m->note_error = true;
		close(fd);
		return -1;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -1;
	}
	rc = parse(m, f, path, &dropped);
	fclose(f);
	if (rc < 0) {
		m->note_error = true;
		return -1;
	}
	if (dropped) {
		snprintf(m->note, sizeof(m->note),
			 "%.400s: %u mark%s dropped (not in this trace: the file changed?)", path, dropped,
			 dropped == 1 ? "" : "s");
		m->note_error = true;
	} else if (m->nmarks) {
		snprintf(m->note, sizeof(m->note), "%u mark%s read from %.400s", m->nmarks,
			 m->nmarks == 1 ? "" : "s", path);
	}
	return 0;
}

int vr_marks_save(struct vr_model *m)
{
	char path[4200], err[VXT_ERRBUF_SIZE];
	struct stat st;
	bool created;
	FILE *f;
	int fd;

	vr_marks_path(m, path, sizeof(path));
	if (!m->nmarks && lstat(path, &st) < 0 && errno == ENOENT)
		return 0;	/* nothing to keep, no file to empty */
	fd = vxt_outfile_open(path, &(struct vxt_outfile_opts){ .force = true, .input = m->path },
			      &created, err, sizeof(err));
	if (fd < 0) {
		snprintf(m->note, sizeof(m->note), "%.400s (marks not saved)", err);
		m->note_error = true;
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -1;
	}
	fprintf(f, "%s\n# ordinal time_ns (monotonic ns), one mark a line\n", MARKS_MAGIC);
	for (unsigned i = 0; i < m->nmarks; i++)
		fprintf(f, "%" PRIu64 " %" PRIu64 "\n", m->marks[i].ord, m->marks[i].time_ns);
	if (fclose(f) != 0) {
		snprintf(m->note, sizeof(m->note), "%.400s: %s (marks not saved)", path, strerror(errno));
		m->note_error = true;
		return -1;
	}
	return 0;
}
