/* metrics_http.c - serving the metrics on GET /metrics with libmicrohttpd
 *
 * The listening socket is made here (so "address already in use" and a bad
 * address are reported with the errno, before any thread starts) and handed
 * to libmicrohttpd, which answers from its own polling thread. Each request
 * renders the published snapshot; nothing here touches the collector's state.
 * Only loopback addresses unless the caller allows others; clients slow to
 * send their request are shut down by metrics_guard.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sink/metrics_guard.h"
#include "vxtrace/metrics.h"

struct vxt_metrics_server {
	struct vxt_metrics *m;
	struct MHD_Daemon *d;
	unsigned port;
	struct metrics_guard guard;
};

static void quiet_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	(void)fmt;
	(void)ap;	/* the library prints nothing */
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *type,
			     char *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result rc;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_size, void **state)
{
	static char not_found[] = "not found: the metrics are on /metrics\n";
	static char bad_method[] = "only GET and HEAD\n";
	static char oom[] = "out of memory\n";
	struct vxt_metrics_server *s = cls;
	enum vxt_metrics_format fmt;
	char *body;
	size_t len;

	(void)version;
	(void)upload_data;
	(void)upload_size;
	(void)state;
	metrics_guard_asked(&s->guard, conn);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", bad_method,
			     sizeof(bad_method) - 1, MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(conn, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
			     sizeof(not_found) - 1, MHD_RESPMEM_PERSISTENT);
	fmt = vxt_metrics_negotiate(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								 MHD_HTTP_HEADER_ACCEPT));
	if (vxt_metrics_render(s->m, fmt, &body, &len) < 0)
		return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", oom,
			     sizeof(oom) - 1, MHD_RESPMEM_PERSISTENT);
	return reply(conn, MHD_HTTP_OK, vxt_metrics_content_type(fmt), body, len,
		     MHD_RESPMEM_MUST_FREE);
}

/* Split "HOST:PORT", "[V6]:PORT" or "PORT" into @host and @port. @return 0 or -1. */
static int split_addr(const char *addr, char *host, size_t hsize, char *port, size_t psize)
{
	const char *colon = strrchr(addr, ':');
	size_t hlen;

	if (!colon) {
		snprintf(host, hsize, "127.0.0.1");
		snprintf(port, psize, "%s", addr);
	} else {
		hlen = (size_t)(colon - addr);
		if (hlen >= 2 && addr[0] == '[' && addr[hlen - 1] == ']') {
			addr++;
			hlen -= 2;
		}
		if (hlen >= hsize || strlen(colon + 1) >= psize)
			return -1;
		memcpy(host, addr, hlen);
		host[hlen] = 0;
		if (!hlen)
			snprintf(host, hsize, "127.0.0.1");
		snprintf(port, psize, "%s", colon + 1);
	}
	if (!port[0] || strspn(port, "0123456789") != strlen(port) || atol(port) > 65535)
		return -1;
	return 0;
}

static bool is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

/* Who holds TCP port @port: the owner of a socket bound to it (listening
 * first) in /proc/net/tcp or tcp6, as "user NAME, uid N" into @buf, or ""
 * when none is found. Can't fail. */
static void port_holder(unsigned port, char *buf, size_t size)
{
	static const char *const tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	char line[512], name[256];
	unsigned lport, st;
	long uid = -1, u;
	struct passwd pw, *pwp = NULL;

	buf[0] = '\0';
	for (size_t i = 0; i < 2 && uid < 0; i++) {
		FILE *f = fopen(tables[i], "re");

		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			/* "0: 0100007F:23AB 00000000:0000 0A ... uid timeout inode" */
			if (sscanf(line, " %*s %*[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %ld", &lport,
				   &st, &u) == 3 && lport == port && (uid < 0 || st == 0x0A))
				uid = u;
		fclose(f);
	}
	if (uid < 0)
		return;
	if (getpwuid_r((uid_t)uid, &pw, name, sizeof(name), &pwp) == 0 && pwp)
		snprintf(buf, size, "user %s, uid %ld", pwp->pw_name, uid);
	else
		snprintf(buf, size, "uid %ld", uid);
}

/* bind(2) or listen(2) found @port taken: say so, naming the port and whose
 * socket holds it. */
static void in_use(const char *addr, unsigned port, char err[VXT_ERRBUF_SIZE])
{
	char who[300];

	port_holder(port, who, sizeof(who));
	snprintf(err, VXT_ERRBUF_SIZE, "metrics on %s: port %u is in use by another program%s%s%s",
		 addr, port, who[0] ? " (" : "", who, who[0] ? ")" : "");
}

/* @return a listening socket on @addr, or -1 with a message in @err. */
static int listen_on(const char *addr, bool allow_remote, unsigned *port_out,
		     char err[VXT_ERRBUF_SIZE])
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[256], port[16];
	int fd, one = 1, rc;

	if (split_addr(addr, host, sizeof(host), port, sizeof(port)) < 0) {
		snprintf(err, VXT_ERRBUF_SIZE, "metrics on %s: expected HOST:PORT, [IPV6]:PORT or PORT",
			 addr);
		errno = EINVAL;
		return -1;
	}
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		snprintf(err, VXT_ERRBUF_SIZE, "metrics on %s: %s", addr, gai_strerror(rc));
		errno = EINVAL;
		return -1;
	}
	if (!allow_remote && !is_loopback(ai->ai_addr)) {
		snprintf(err, VXT_ERRBUF_SIZE, "metrics on %s: not a loopback address; serving other "
			 "hosts needs --listen-remote", addr);
		freeaddrinfo(ai);
		errno = EINVAL;
		return -1;
	}
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		int e = errno;

		if (e == EADDRINUSE)
			in_use(addr, (unsigned)atoi(port), err);
		else
			snprintf(err, VXT_ERRBUF_SIZE, "metrics on %s: %s", addr, strerror(e));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		errno = e;
		return -1;
	}
	freeaddrinfo(ai);
	*port_out = ntohs(ss.ss_family == AF_INET6 ?
			  ((struct sockaddr_in6 *)&ss)->sin6_port :
			  ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

struct vxt_metrics_server *vxt_metrics_serve(struct vxt_metrics *m, const char *addr,
					     bool allow_remote, char err[VXT_ERRBUF_SIZE])
{
	struct vxt_metrics_server *s = calloc(1, sizeof(*s));
	int fd;

	if (!s) {
		snprintf(err, VXT_ERRBUF_SIZE, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	s->m = m;
	fd = listen_on(addr, allow_remote, &s->port, err);
	if (fd < 0) {
		free(s);
		return NULL;
	}
	s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0,
				NULL, NULL, on_request, s,
				MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
				MHD_OPTION_EXTERNAL_LOGGER, quiet_log, NULL,
				MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)METRICS_GUARD_SLOTS,
				MHD_OPTION_NOTIFY_CONNECTION, metrics_guard_notify, &s->guard,
				MHD_OPTION_NOTIFY_COMPLETED, metrics_guard_completed, &s->guard,
				MHD_OPTION_END);
	if (!s->d) {
		snprintf(err, VXT_ERRBUF_SIZE, "metrics on %s: the HTTP server did not start", addr);
		close(fd);
		errno = EIO;
		free(s);
		return NULL;
	}
	return s;
}

unsigned vxt_metrics_server_port(const struct vxt_metrics_server *s)
{
	return s->port;
}

void vxt_metrics_server_stop(struct vxt_metrics_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d);	/* closes the listening socket it was given */
	free(s);
}
