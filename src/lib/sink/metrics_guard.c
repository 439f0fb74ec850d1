/* metrics_guard.c - shutting down metrics clients too slow to ask
 *
 * libmicrohttpd answers once a request's headers are in, and its timeout is
 * an idle one: a client sending a header line now and then holds its
 * connection for ever, and enough of them hold every one. So each connection
 * is followed from its start to its request being in, and as a new one
 * starts, a connection still sending its request after
 * METRICS_HEADER_DEADLINE_NS is shut down, and so are the oldest of one
 * address's beyond METRICS_PENDING_PER_CLIENT still asking (every local
 * client shares 127.0.0.1). MHD reads the end of the stream and closes it. A
 * scrape sends its request at once, so it always finds a place.
 */
#include <string.h>
#include <netinet/in.h>

#include "sink/metrics_guard.h"
#include "vxtrace/util.h"

static struct metrics_guard_conn *find(struct metrics_guard *g, const struct MHD_Connection *conn)
{
	for (size_t i = 0; i < METRICS_GUARD_SLOTS; i++)
		if (g->c[i].conn == conn)
			return &g->c[i];
	return NULL;
}

static bool same_client(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
	return true;
}

static void shut(struct metrics_guard_conn *c)
{
	shutdown(c->fd, SHUT_RDWR);
	c->shut = true;
}

static bool asking(const struct metrics_guard_conn *c)
{
	return c->conn && !c->shut && c->asking_since_ns;
}

/* Past the deadline, or beyond the per-client count (the oldest first). */
static void sweep(struct metrics_guard *g, const struct metrics_guard_conn *fresh)
{
	uint64_t now = vxt_now_mono();
	size_t i, n = 0;

	for (i = 0; i < METRICS_GUARD_SLOTS; i++) {
		struct metrics_guard_conn *c = &g->c[i];

		if (asking(c) && now - c->asking_since_ns > METRICS_HEADER_DEADLINE_NS)
			shut(c);
		else if (asking(c) && same_client(&c->addr, &fresh->addr))
			n++;
	}
	while (n-- > METRICS_PENDING_PER_CLIENT) {
		struct metrics_guard_conn *oldest = NULL;

		for (i = 0; i < METRICS_GUARD_SLOTS; i++) {
			struct metrics_guard_conn *c = &g->c[i];

			if (asking(c) && same_client(&c->addr, &fresh->addr) &&
			    (!oldest || c->asking_since_ns < oldest->asking_since_ns))
				oldest = c;
		}
		if (oldest)
			shut(oldest);
	}
}

void metrics_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct metrics_guard *g = cls;
	struct metrics_guard_conn *c;
	const union MHD_ConnectionInfo *fd, *addr;

	(void)socket_context;
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if ((c = find(g, conn)))
			memset(c, 0, sizeof(*c));
		return;
	}
	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	c = find(g, NULL);
	if (!c || !fd)
		return;	/* more than MHD's limit: cannot happen; left to its timeout */
	memset(c, 0, sizeof(*c));
	c->conn = conn;
	c->fd = fd->connect_fd;
	c->asking_since_ns = vxt_now_mono();
	if (addr && addr->client_addr)
		memcpy(&c->addr, addr->client_addr, addr->client_addr->sa_family == AF_INET6 ?
		       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	sweep(g, c);
}

void metrics_guard_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			     enum MHD_RequestTerminationCode toe)
{
	struct metrics_guard_conn *c = find(cls, conn);

	(void)con_cls;
	(void)toe;
	if (c)
		c->asking_since_ns = vxt_now_mono();	/* keep-alive: the next one */
}

void metrics_guard_asked(struct metrics_guard *g, struct MHD_Connection *conn)
{
	struct metrics_guard_conn *c = find(g, conn);

	if (c)
		c->asking_since_ns = 0;
}
