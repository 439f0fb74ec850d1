/* metrics_guard.h - the metrics server's limits on clients slow to ask
 * (internal, used by metrics_http.c)
 *
 * Wired into libmicrohttpd's connection and completion notifiers; every call
 * comes from the server's one polling thread, so the guard takes no lock.
 */
#ifndef SINK_METRICS_GUARD_H
#define SINK_METRICS_GUARD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <microhttpd.h>

#define METRICS_GUARD_SLOTS 64		/* connections at once: MHD's limit */
#define METRICS_HEADER_DEADLINE_NS 5000000000ull	/* a request's headers */
#define METRICS_PENDING_PER_CLIENT 8	/* one address's connections still asking */

struct metrics_guard_conn {
	struct MHD_Connection *conn;	/* NULL: a free slot */
	int fd;
	uint64_t asking_since_ns;	/* when its request began; 0 once it is in */
	struct sockaddr_storage addr;
	bool shut;			/* shut down here; MHD closes it next */
};

struct metrics_guard {
	struct metrics_guard_conn c[METRICS_GUARD_SLOTS];
};

/* MHD_OPTION_NOTIFY_CONNECTION: a connection starts (its request begins) or
 * closes; as one starts, the clients too slow to ask are shut down. */
void metrics_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe);
/* MHD_OPTION_NOTIFY_COMPLETED: a request is answered; the connection's next
 * request begins now. */
void metrics_guard_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			     enum MHD_RequestTerminationCode toe);
/* The access handler's first call for @conn: its request is in. Can't fail. */
void metrics_guard_asked(struct metrics_guard *g, struct MHD_Connection *conn);

#endif
