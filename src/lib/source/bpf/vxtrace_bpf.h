/* SPDX-License-Identifier: GPL-2.0-only OR LGPL-2.1-or-later */
/* vxtrace_bpf.h - what the ebpf source's kernel programs and user space share
 *
 * Included by vxtrace.bpf.c (with VXT_BPF_RECORDS, which also pulls in the
 * channel record layout without the C library) and by source_ebpf.c.
 */
#ifndef VXT_BPF_H
#define VXT_BPF_H

#define VXT_BPF_MAX_DEVS	256
#define VXT_BPF_MAX_INFLIGHT	65536

/* The per-CPU counters map. */
enum vxt_bpf_counter {
	VXT_BPF_SENT = 0,	/* records put in the ring */
	VXT_BPF_LOST = 1,	/* records dropped: the ring was full */
	VXT_BPF_UNPAIRED = 2,	/* issues not remembered: the in-flight map was full */
	VXT_BPF_NCOUNTERS
};

#ifdef VXT_BPF_RECORDS
/* The channel record types and layouts, restated from voltrace.h for the
 * BPF target (which has no <linux/types.h> beside vmlinux.h). Static
 * assertions in source_ebpf.c keep both the same. */
#define VOLIOT_REC_IO_START	1
#define VOLIOT_REC_IO_DONE	2
#define VOLIOT_REC_REQUEUE	7
#define VOLIOT_OP_READ		0
#define VOLIOT_OP_WRITE		1
#define VOLIOT_OP_FLUSH		2
#define VOLIOT_OP_DISCARD	3
#define VOLIOT_OP_WRITE_ZEROES	4
#define VOLIOT_OP_PASSTHRU	5
#define VOLIOT_OP_OTHER		6
#define VOLIOT_F_SYNC		0x0001
#define VOLIOT_F_FUA		0x0002
#define VOLIOT_F_META		0x0004
#define VOLIOT_F_PREFLUSH	0x0008
#define VOLIOT_F_RAHEAD		0x0020

struct voliot_io_rec {
	__u8	len;
	__u8	type;
	__u8	op;
	__u8	reserved0;
	__u16	flags;
	__u16	cpu;
	__u32	dev;
	__u32	pid;
	__u32	bytes;
	__s32	error;
	__u64	time_ns;
	__u64	sector;
	__u64	latency_ns;
	char	comm[16];
};
#endif

/* What the kernel remembers of an issued request until it completes. */
struct vxt_bpf_issue {
	__u64	time_ns;
	__u32	pid;
	char	comm[16];
};

#endif
