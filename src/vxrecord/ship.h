/* ship.h - vxrecord --sink: the trace being written, shipped to ClickHouse
 * by a thread of its own (see ship.c) */
#ifndef VXRECORD_SHIP_H
#define VXRECORD_SHIP_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "vxtrace/clickhouse.h"

struct ship {
	const char *url;		/* --sink, or NULL */
	struct vxt_ch_opts co;
	uint64_t retry_ns;		/* --sink-retry: how long the last batches may take */
	const char *password_file;
	char password[256];
	const char *path;		/* the trace file */
	struct vxt_ch *ch;
	pthread_t th;
	bool started;
	_Atomic bool done;		/* the recording is closed: ship the rest, end */
	uint64_t events;		/* events read from the file */
	uint64_t retries;		/* batches sent again */
	int rc;				/* 0, or why shipping stopped */
	char err[VXT_ERRBUF_SIZE];
};

/* Reach the sink and check its table. @return 0, or -1 with a message in @err. */
int ship_open(struct ship *s, char err[VXT_ERRBUF_SIZE]);
/* Start shipping @path (the writer has created it). @return 0, or -1 with @err. */
int ship_start(struct ship *s, const char *path, char err[VXT_ERRBUF_SIZE]);
/* The file is closed: ship what is left (for at most --sink-retry), end the
 * thread. @return 0, or -1 after printing why (the file keeps everything). */
int ship_finish(struct ship *s);
void ship_close(struct ship *s);

#endif
