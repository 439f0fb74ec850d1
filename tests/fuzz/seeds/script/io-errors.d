#!/usr/sbin/dtrace -s
/*
 * io-errors.d - keep only what led up to a failed I/O, per process
 *
 * DTrace's self->spec pattern in block-I/O terms: from a process's first
 * queue or start on, its I/O is traced speculatively; when one of its I/Os
 * fails, everything the process did since is committed (the failure, its
 * own start and the process's earlier I/O); when the process has no I/O in
 * flight any more and none failed, the speculation is discarded.
 *
 *   vxreplay trace.vxt --script io-errors
 *   vxrecord --source sim --script io-errors -o errors.vxt
 */
#pragma D option nspec=4096
#pragma D option specsize=4m

/* one speculation per process, opened by whatever it does first */
io:::queue, io:::start, io:::requeue, io:::done
/!self->spec/
{
	self->spec = speculation();
}

/* the process's I/Os in flight, each counted once */
io:::queue, io:::start
/!req->counted/
{
	req->counted = 1;
	self->inflight++;
}

io:::done
/req->counted/
{
	self->inflight--;
}

/* every event of the process goes to its speculation */
io:::queue, io:::start, io:::requeue, io:::done
/self->spec/
{
	speculate(self->spec);
}

/* a failure: keep it all */
io:::done
/self->spec && error/
{
	commit(self->spec);
	self->spec = 0;
}

/* idle without a failure: forget it */
io:::done
/self->spec && self->inflight == 0/
{
	discard(self->spec);
	self->spec = 0;
}
