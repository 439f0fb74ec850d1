/* ship.c - vxrecord --sink: the trace being written, shipped to ClickHouse
 *
 * The local file is the spool. A thread reads it as vxtop -F does (the chunks
 * the writer has closed), adds each event with its ordinal in the file and
 * sends full batches. While the sink is away, the thread waits (100 ms,
 * doubling to 5 s) and the file keeps growing; when it is back, the thread
 * goes on from the first event not acknowledged. At the end it ships the
 * rest for at most --sink-retry. The recorder itself never waits for the
 * sink. What the file holds (with --profile, only what the profile keeps) is
 * what is shipped, and rows are the ones `vxreplay FILE --export` would send,
 * so exporting the file afterwards fills any gap without duplicates.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ship.h"

#define POLL_NS 200000000ull
#define BACKOFF_FIRST_NS 100000000ull
#define BACKOFF_MAX_NS 5000000000ull

static void nap(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	nanosleep(&ts, NULL);
}

int ship_open(struct ship *s, char err[VXT_ERRBUF_SIZE])
{
	if (!s->url)
		return 0;
	if (vxt_ch_password(s->password_file, s->password, sizeof(s->password), err) < 0)
		return -1;
	s->co.password = s->password[0] ? s->password : NULL;
	s->ch = vxt_ch_open(s->url, &s->co, err);
	return s->ch ? 0 : -1;
}

/* Send the batch; while recording, a failure that may pass is waited out.
 * @return 0, or a negative errno (s->err set) when shipping must stop. */
static int send_batch(struct ship *s, uint64_t *backoff)
{
	for (;;) {
		bool last = s->done;
		uint64_t give_up = last ? vxt_now_mono() + s->retry_ns : 0;
		int rc = vxt_ch_send(s->ch, give_up, NULL);

		if (rc == 0) {
			*backoff = BACKOFF_FIRST_NS;
			return 0;
		}
		if (rc != -EAGAIN || last) {
			snprintf(s->err, sizeof(s->err), "%s", vxt_ch_error(s->ch));
			return rc;
		}
		nap(*backoff);
		s->retries++;
		*backoff = *backoff * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : *backoff * 2;
	}
}

static void *run(void *arg)
{
	struct ship *s = arg;
	struct vxt_reader *r = vxt_reader_open(s->path, s->err);
	const struct vxt_event *ev;
	uint64_t backoff = BACKOFF_FIRST_NS;
	bool last = false;
	int rc;

	if (!r) {
		s->rc = -EIO;
		return NULL;
	}
	vxt_ch_set_trace(s->ch, vxt_reader_info(r));
	for (;;) {
		last = s->done;		/* read once more after the writer closed */
		rc = vxt_reader_refresh(r);
		while (rc >= 0 && (rc = vxt_reader_next(r, &ev)) == 1) {
			rc = vxt_ch_add(s->ch, vxt_reader_objects(r), vxt_reader_strings(r), ev,
					vxt_reader_tell(r) - 1);
			if (rc < 0)
				break;
			s->events++;
			if (vxt_ch_full(s->ch) && (rc = send_batch(s, &backoff)) < 0)
				goto out;
		}
		if (rc < 0) {
			if (!s->err[0])
				snprintf(s->err, sizeof(s->err), "%s: %s", s->path,
					 vxt_reader_error(r));
			goto out;
		}
		if (last)
			break;
		if (vxt_ch_pending(s->ch) && (rc = send_batch(s, &backoff)) < 0)
			goto out;
		nap(POLL_NS);
	}
	rc = send_batch(s, &backoff);
out:
	s->rc = rc;
	vxt_reader_close(r);
	return NULL;
}

int ship_start(struct ship *s, const char *path, char err[VXT_ERRBUF_SIZE])
{
	int rc;

	if (!s->ch)
		return 0;
	s->path = path;
	rc = pthread_create(&s->th, NULL, run, s);
	if (rc) {
		snprintf(err, VXT_ERRBUF_SIZE, "--sink: cannot start a thread: %s", strerror(rc));
		return -1;
	}
	s->started = true;
	return 0;
}

/* The events to ship: all the file's, now that the writer has closed it
 * (the thread may have stopped reading long before); what the thread read
 * when the file cannot be opened. */
static uint64_t file_events(const struct ship *s)
{
	char err[VXT_ERRBUF_SIZE];
	struct vxt_reader *r = vxt_reader_open(s->path, err);
	uint64_t n = r ? vxt_reader_nevents(r) : s->events;

	vxt_reader_close(r);
	return n > s->events ? n : s->events;
}

int ship_finish(struct ship *s)
{
	if (!s->started)
		return 0;
	s->done = 1;
	pthread_join(s->th, NULL);
	s->started = false;
	if (s->rc < 0) {
		fprintf(stderr, "vxrecord: %s; %" PRIu64 " of %" PRIu64 " events shipped, the "
			"rest is in %s: vxreplay %s --export %s sends it\n", s->err,
			vxt_ch_rows_sent(s->ch), file_events(s), s->path, s->path, s->url);
		return -1;
	}
	return 0;
}

void ship_close(struct ship *s)
{
	if (s->started) {
		s->done = 1;
		pthread_join(s->th, NULL);
		s->started = false;
	}
	vxt_ch_close(s->ch);
	s->ch = NULL;
}
