/* clickhouse.c - the ClickHouse sink: URL, table check or creation, batches
 * of RowBinary rows posted over HTTP with libcurl, retries with backoff
 *
 * One curl handle per sink (the connection is kept alive between batches);
 * libcurl itself is loaded when the first sink opens (sink/curl_load.h).
 * Statements go in the POST body; an insert names its columns in the URL's
 * query parameter and carries the rows as the body, so the table's column
 * order does not matter. A table that exists must have vxtrace's columns
 * and fold duplicates (engine and sorting key). The batch is kept until the
 * server answers 200: after a failure it is sent again, whole, and the
 * table's ReplacingMergeTree key (which includes trace and seq) folds a copy
 * that did arrive.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sink/curl_load.h"
#include "vxtrace/clickhouse.h"
#include "vxtrace/util.h"

#define DEFAULT_BATCH 65536
#define DEFAULT_TIMEOUT_MS 10000
#define RESP_MAX 4096
#define BACKOFF_FIRST_NS 100000000ull
#define BACKOFF_MAX_NS 5000000000ull

static const struct { const char *name, *type; } cols[] = {
	{ "host", "String" }, { "object", "String" }, { "time", "UInt64" },
	{ "wall_ns", "UInt64" }, { "trace", "UInt64" }, { "seq", "UInt64" },
	{ "phase", "String" }, { "op", "String" }, { "flags", "UInt16" },
	{ "sector", "UInt64" }, { "bytes", "UInt32" }, { "latency_ns", "UInt64" },
	{ "error", "Int16" }, { "pid", "UInt32" }, { "comm", "String" }, { "cpu", "UInt16" },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

struct vxt_ch {
	const struct vxt_curl *lc;	/* libcurl */
	CURL *curl;
	struct curl_slist *headers;	/* "Expect:" (no 100-continue wait) */
	char url[200];			/* as given (cut), for messages */
	char base[512];			/* http://HOST:PORT/ */
	char db[128], table[128];
	struct vxt_ch_opts o;
	char *rows;			/* the batch, RowBinary */
	size_t len, cap, nrows;
	char resp[RESP_MAX];		/* the server's answer (truncated) */
	size_t resp_len;
	bool resp_cut;			/* the answer was longer than resp holds */
	long status;
	char host[64];
	uint64_t trace, anchor_mono, anchor_real;
	uint64_t sent, retries;
	char err[VXT_ERRBUF_SIZE];
};

static bool ident_ok(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
		strlen(s);
}

/* "clickhouse+http://HOST:PORT/DB.TABLE" -> base, db, table. @return 0 or -1. */
static int parse_url(struct vxt_ch *ch, const char *url)
{
	const char *scheme, *rest, *slash, *dot;
	size_t hlen;

	if (!strncmp(url, "clickhouse+http://", 18))
		scheme = "http://", rest = url + 18;
	else if (!strncmp(url, "clickhouse+https://", 19))
		scheme = "https://", rest = url + 19;
	else
		return -1;
	slash = strchr(rest, '/');
	if (!slash || slash == rest)
		return -1;
	hlen = (size_t)(slash - rest);
	dot = strchr(slash + 1, '.');
	if (!dot || (size_t)(dot - slash - 1) >= sizeof(ch->db) ||
	    strlen(dot + 1) >= sizeof(ch->table) || hlen + 10 >= sizeof(ch->base))
		return -1;
	snprintf(ch->base, sizeof(ch->base), "%s%.*s/", scheme, (int)hlen, rest);
	snprintf(ch->db, sizeof(ch->db), "%.*s", (int)(dot - slash - 1), slash + 1);
	snprintf(ch->table, sizeof(ch->table), "%s", dot + 1);
	return ident_ok(ch->db) && ident_ok(ch->table) ? 0 : -1;
}

bool vxt_ch_url_ok(const char *url)
{
	struct vxt_ch ch;

	return parse_url(&ch, url) == 0;
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct vxt_ch *ch = arg;
	size_t len = size * n, room = sizeof(ch->resp) - 1 - ch->resp_len;

	if (len < room)
		room = len;
	else if (len > room)
		ch->resp_cut = true;
	memcpy(ch->resp + ch->resp_len, p, room);
	ch->resp_len += room;
	ch->resp[ch->resp_len] = 0;
	return len;
}

/* The first line of the server's answer, for messages. */
static const char *resp_line(struct vxt_ch *ch)
{
	ch->resp[strcspn(ch->resp, "\r\n")] = 0;
	return ch->resp;
}

/*
 * POST @body to the server; @query (may be NULL) goes in the URL. @return 0
 * on HTTP 200, -EAGAIN for a failure that may pass, -EIO for one that will
 * not; ch->err says why.
 */
static int post(struct vxt_ch *ch, const char *query, const char *body, size_t len)
{
	char url[2048], *esc = NULL;
	CURLcode rc;

	if (query) {
		esc = ch->lc->easy_escape(ch->curl, query, 0);
		if (!esc) {
			snprintf(ch->err, sizeof(ch->err), "out of memory");
			return -ENOMEM;
		}
	}
	snprintf(url, sizeof(url), "%s%s%s", ch->base, esc ? "?query=" : "", esc ? esc : "");
	ch->lc->free(esc);
	ch->resp_len = 0;
	ch->resp[0] = 0;
	ch->resp_cut = false;
	ch->lc->easy_setopt(ch->curl, CURLOPT_URL, url);
	ch->lc->easy_setopt(ch->curl, CURLOPT_POSTFIELDS, body);
	ch->lc->easy_setopt(ch->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	rc = ch->lc->easy_perform(ch->curl);
	if (rc != CURLE_OK) {
		snprintf(ch->err, sizeof(ch->err), "%s: %s", ch->url, ch->lc->easy_strerror(rc));
		return -EAGAIN;
	}
	ch->lc->easy_getinfo(ch->curl, CURLINFO_RESPONSE_CODE, &ch->status);
	if (ch->status == 200)
		return 0;
	snprintf(ch->err, sizeof(ch->err), "%s: HTTP %ld: %.200s", ch->url, ch->status,
		 resp_line(ch));
	return ch->status >= 500 ? -EAGAIN : -EIO;
}

static int post_text(struct vxt_ch *ch, const char *sql)
{
	return post(ch, NULL, sql, strlen(sql));
}

char *vxt_ch_schema(const char *db, const char *table, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "CREATE TABLE IF NOT EXISTS %s.%s (", db, table);

	for (size_t i = 0; i < NCOLS && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s %s", i ? ", " : "", cols[i].name,
				      cols[i].type);
	if (n < size)
		snprintf(buf + n, size - n, ") ENGINE = ReplacingMergeTree() "
			 "ORDER BY (host, object, time, trace, seq)");
	return buf;
}

/* The type of column @name in a "name\ttype\n" listing, or NULL. */
static const char *find_col(const char *list, const char *name, size_t *len)
{
	size_t nl = strlen(name);

	for (const char *p = list; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		if (!strncmp(p, name, nl) && p[nl] == '\t') {
			*len = strcspn(p + nl + 1, "\n");
			return p + nl + 1;
		}
	}
	return NULL;
}

/* The table has every column with its type (others may be there too: only
 * ours are asked for, so the answer fits in ch->resp however many there are). */
static int check_columns(struct vxt_ch *ch)
{
	char sql[1024];
	size_t n;
	int rc;

	n = (size_t)snprintf(sql, sizeof(sql), "SELECT name, type FROM system.columns WHERE "
			     "database = '%s' AND table = '%s' AND name IN (", ch->db, ch->table);
	for (size_t i = 0; i < NCOLS && n < sizeof(sql); i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s'%s'", i ? ", " : "",
				      cols[i].name);
	if (n < sizeof(sql))
		snprintf(sql + n, sizeof(sql) - n, ") FORMAT TabSeparated");
	rc = post_text(ch, sql);
	if (rc < 0)
		return rc;
	if (ch->resp_cut) {
		snprintf(ch->err, sizeof(ch->err), "%s: the server's list of the table's columns "
			 "is longer than %d bytes", ch->url, RESP_MAX - 1);
		return -EIO;
	}
	for (size_t i = 0; i < NCOLS; i++) {
		size_t len = 0;
		const char *t = find_col(ch->resp, cols[i].name, &len);

		if (t && len == strlen(cols[i].type) && !strncmp(t, cols[i].type, len))
			continue;
		if (t)
			snprintf(ch->err, sizeof(ch->err), "%s: wrong schema: column %s is %.*s, "
				 "vxtrace writes %s (formats/clickhouse.md)", ch->url, cols[i].name,
				 (int)len, t, cols[i].type);
		else
			snprintf(ch->err, sizeof(ch->err), "%s: wrong schema: no column %s %s "
				 "(formats/clickhouse.md)", ch->url, cols[i].name, cols[i].type);
		return -EINVAL;
	}
	return 0;
}

/* Is @name one of the comma-separated names of @key ("host, object, time")? */
static bool in_key(const char *key, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = key; *p; p += strcspn(p, ","), p += *p == ',') {
		p += strspn(p, " ");
		if (!strncmp(p, name, nl) && (p[nl] == ',' || p[nl] == ' ' || !p[nl]))
			return true;
	}
	return false;
}

/* The table folds a row sent twice: a ReplacingMergeTree (or its replicated
 * form) whose sorting key holds trace and seq, which tell events apart, so
 * re-exports and retried batches leave one row and FINAL counts exactly. */
static int check_engine(struct vxt_ch *ch)
{
	char sql[512];
	const char *why = NULL;
	char *engine, *key;
	size_t elen;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT engine, sorting_key FROM system.tables WHERE "
		 "database = '%s' AND name = '%s' FORMAT TabSeparated", ch->db, ch->table);
	rc = post_text(ch, sql);
	if (rc < 0)
		return rc;
	engine = ch->resp;
	key = engine + strcspn(engine, "\t\n");
	if (*key == '\t')
		*key++ = 0;
	else
		*key = 0;
	key[strcspn(key, "\n")] = 0;
	elen = strlen(engine);
	if (elen < 18 || strcmp(engine + elen - 18, "ReplacingMergeTree"))
		why = "its engine is not a ReplacingMergeTree";
	else if (!in_key(key, "trace") || !in_key(key, "seq"))
		why = "its sorting key lacks trace or seq";
	if (!why)
		return 0;
	snprintf(ch->err, sizeof(ch->err), "%s: the table cannot fold rows sent twice: %s "
		 "(engine %.30s, ORDER BY (%.60s)); create it as formats/clickhouse.md says",
		 ch->url, why, *engine ? engine : "unknown", key);
	return -EINVAL;
}

static int setup_table(struct vxt_ch *ch)
{
	char sql[1024];
	int rc;

	snprintf(sql, sizeof(sql), "CREATE DATABASE IF NOT EXISTS %s", ch->db);
	rc = post_text(ch, sql);
	if (rc < 0)
		return rc;
	rc = post_text(ch, vxt_ch_schema(ch->db, ch->table, sql, sizeof(sql)));
	if (rc == 0)
		rc = check_columns(ch);
	return rc < 0 ? rc : check_engine(ch);
}

struct vxt_ch *vxt_ch_open(const char *url, const struct vxt_ch_opts *o,
			   char err[VXT_ERRBUF_SIZE])
{
	struct vxt_ch *ch = calloc(1, sizeof(*ch));
	char why[256];

	if (!ch) {
		snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
		return NULL;
	}
	snprintf(ch->url, sizeof(ch->url), "%s", url);
	if (parse_url(ch, url) < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: expected clickhouse+http://HOST:PORT/DB.TABLE "
			 "(DB and TABLE of letters, digits and _)", url);
		free(ch);
		return NULL;
	}
	if (o)
		ch->o = *o;
	if (!ch->o.batch)
		ch->o.batch = DEFAULT_BATCH;
	if (!ch->o.timeout_ms)
		ch->o.timeout_ms = DEFAULT_TIMEOUT_MS;
	ch->lc = vxt_curl_load(why, sizeof(why));
	if (!ch->lc) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", ch->url, why);
		free(ch);
		return NULL;
	}
	ch->curl = ch->lc->easy_init();
	if (!ch->curl) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: cannot start libcurl", url);
		free(ch);
		return NULL;
	}
	/* curl waits up to a second for "100 Continue" before a large body;
	 * ClickHouse reads the body anyway */
	ch->headers = ch->lc->slist_append(NULL, "Expect:");
	ch->lc->easy_setopt(ch->curl, CURLOPT_HTTPHEADER, ch->headers);
	ch->lc->easy_setopt(ch->curl, CURLOPT_WRITEFUNCTION, on_body);
	ch->lc->easy_setopt(ch->curl, CURLOPT_WRITEDATA, ch);
	ch->lc->easy_setopt(ch->curl, CURLOPT_TIMEOUT_MS, (long)ch->o.timeout_ms);
	ch->lc->easy_setopt(ch->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)ch->o.timeout_ms);
	ch->lc->easy_setopt(ch->curl, CURLOPT_NOSIGNAL, 1L);
	ch->lc->easy_setopt(ch->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	if (ch->o.user)
		ch->lc->easy_setopt(ch->curl, CURLOPT_USERNAME, ch->o.user);
	if (ch->o.password)
		ch->lc->easy_setopt(ch->curl, CURLOPT_PASSWORD, ch->o.password);
	if (setup_table(ch) < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s", ch->err);
		vxt_ch_close(ch);
		return NULL;
	}
	return ch;
}

void vxt_ch_close(struct vxt_ch *ch)
{
	if (!ch)
		return;
	if (ch->curl)
		ch->lc->easy_cleanup(ch->curl);
	ch->lc->slist_free_all(ch->headers);
	free(ch->rows);
	free(ch);
}

/* FNV-1a over the header fields that tell traces apart. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

void vxt_ch_set_trace(struct vxt_ch *ch, const struct vxt_file_info *info)
{
	uint64_t h = 14695981039346656037ull;

	snprintf(ch->host, sizeof(ch->host), "%s", info->host);
	ch->anchor_mono = info->anchor_mono_ns;
	ch->anchor_real = info->anchor_real_ns;
	h = fnv(h, info->host, strlen(info->host));
	h = fnv(h, &info->created_real_ns, sizeof(info->created_real_ns));
	h = fnv(h, &info->anchor_mono_ns, sizeof(info->anchor_mono_ns));
	h = fnv(h, &info->anchor_real_ns, sizeof(info->anchor_real_ns));
	h = fnv(h, info->command, strlen(info->command));
	ch->trace = h;
}

static bool room(struct vxt_ch *ch, size_t more)
{
	return ch->len + more <= ch->cap || vxt_grow(&ch->rows, &ch->cap, ch->len + more, 1) == 0;
}

static void put(struct vxt_ch *ch, const void *p, size_t n)
{
	memcpy(ch->rows + ch->len, p, n);
	ch->len += n;
}

/* Little-endian integers of @n bytes (the machine is little-endian: x86, arm64). */
static void put_int(struct vxt_ch *ch, uint64_t v, size_t n)
{
	unsigned char b[8];

	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put(ch, b, n);
}

/* A String: LEB128 length, then the bytes. */
static void put_str(struct vxt_ch *ch, const char *s)
{
	size_t n = strlen(s), v = n;
	unsigned char b;

	do {
		b = v & 0x7f;
		v >>= 7;
		if (v)
			b |= 0x80;
		put(ch, &b, 1);
	} while (v);
	put(ch, s, n);
}

int vxt_ch_add(struct vxt_ch *ch, const struct vxt_objtab *objs,
	       const struct vxt_strtab *strs, const struct vxt_event *ev, uint64_t seq)
{
	const struct vxt_object *o = vxt_objtab_get(objs, ev->object);
	const char *comm = ev->comm ? vxt_strtab_get(strs, ev->comm) : "";
	int64_t wall = (int64_t)ch->anchor_real + ((int64_t)ev->time_ns - (int64_t)ch->anchor_mono);

	if (!comm)
		comm = "";
	if (!room(ch, 2 * 64 + sizeof(((struct vxt_object *)0)->name) + 80 + strlen(comm))) {
		snprintf(ch->err, sizeof(ch->err), "out of memory");
		return -ENOMEM;
	}
	put_str(ch, ch->host);
	put_str(ch, o ? o->name : "");
	put_int(ch, ev->time_ns, 8);
	put_int(ch, wall > 0 ? (uint64_t)wall : 0, 8);
	put_int(ch, ch->trace, 8);
	put_int(ch, seq, 8);
	put_str(ch, vxt_phase_name(ev->phase));
	put_str(ch, vxt_op_name(ev->op));
	put_int(ch, ev->flags, 2);
	put_int(ch, ev->sector, 8);
	put_int(ch, ev->bytes, 4);
	put_int(ch, vxt_event_latency(ev), 8);
	put_int(ch, (uint16_t)-ev->error, 2);	/* the errno, positive */
	put_int(ch, ev->pid, 4);
	put_str(ch, comm);
	put_int(ch, ev->cpu, 2);
	ch->nrows++;
	return 0;
}

bool vxt_ch_full(const struct vxt_ch *ch)
{
	return ch->nrows >= ch->o.batch;
}

size_t vxt_ch_pending(const struct vxt_ch *ch)
{
	return ch->nrows;
}

static void nap(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	nanosleep(&ts, NULL);
}

int vxt_ch_send(struct vxt_ch *ch, uint64_t give_up_ns, volatile sig_atomic_t *stop)
{
	char query[1024];
	size_t n;
	uint64_t wait = BACKOFF_FIRST_NS, tries = 0;
	int rc;

	if (!ch->nrows)
		return 0;
	n = (size_t)snprintf(query, sizeof(query), "INSERT INTO %s.%s (", ch->db, ch->table);
	for (size_t i = 0; i < NCOLS; i++)
		n += (size_t)snprintf(query + n, sizeof(query) - n, "%s%s", i ? ", " : "",
				      cols[i].name);
	snprintf(query + n, sizeof(query) - n, ") FORMAT RowBinary");
	for (;;) {
		rc = post(ch, query, ch->rows, ch->len);
		if (rc == 0)
			break;
		if (rc != -EAGAIN)
			return rc;
		if (!give_up_ns || vxt_now_mono() + wait > give_up_ns || (stop && *stop)) {
			if (tries) {
				size_t l = strlen(ch->err);

				snprintf(ch->err + l, sizeof(ch->err) - l, " (tried %llu times)",
					 (unsigned long long)tries + 1);
			}
			return -EAGAIN;
		}
		nap(wait);
		tries++;
		ch->retries++;
		wait = wait * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : wait * 2;
	}
	ch->sent += ch->nrows;
	ch->nrows = 0;
	ch->len = 0;
	return 0;
}

uint64_t vxt_ch_rows_sent(const struct vxt_ch *ch)
{
	return ch->sent;
}

uint64_t vxt_ch_retries(const struct vxt_ch *ch)
{
	return ch->retries;
}

const char *vxt_ch_error(const struct vxt_ch *ch)
{
	return ch->err;
}

int vxt_ch_password(const char *file, char *buf, size_t size, char err[VXT_ERRBUF_SIZE])
{
	const char *env = getenv("VXT_CLICKHOUSE_PASSWORD");
	struct stat st = { 0 };
	FILE *f = NULL;
	int fd;

	buf[0] = 0;
	if (!file) {
		if (env)
			snprintf(buf, size, "%s", env);
		return 0;
	}
	/* O_NONBLOCK: a fifo must not hang the open; only a regular file is read */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		snprintf(err, VXT_ERRBUF_SIZE, "%s: %s", file, fd >= 0 && !S_ISREG(st.st_mode) ?
			 "not a regular file" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!fgets(buf, (int)size, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\r\n")] = 0;
	return 0;
}
