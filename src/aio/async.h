/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Asynchronous command engine (liburing): block-device discards
 * (BLOCK_URING_CMD_DISCARD), NVMe Dataset Management (deallocate) and
 * Zone Management Send through NVMe passthrough (IORING_OP_URING_CMD on
 * 128-byte SQEs), with synchronous fallbacks (BLKDISCARD, NVMe ioctls).
 *
 * The engine never prints: progress goes to a callback the caller supplies,
 * an interruption is a flag the caller sets (from a signal handler).
 * Commands are submitted in list order; on a stop request or the first
 * failure no further command is submitted and the engine waits for those
 * in flight, so what was done is always "the first @submitted ranges,
 * except @failed of them".
 */
#ifndef ZNP_ASYNC_H
#define ZNP_ASYNC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/nvme_ioctl.h>

#include "dev.h"	/* the NVMe opcodes and fields the engine encodes (nvme-defs.h) */

struct io_uring_sqe;

/* uapi <linux/blkdev.h> from Linux 6.12 on; Debian 12's headers lack it. */
#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD		_IO(0x12, 0)
#endif

/* Default queue depth: measured knee of the loop-device discard curve. */
#define ZNP_AIO_DEFAULT_QD	64
#define ZNP_AIO_MAX_QD		4096

/* One unit of work. */
struct znp_aio_range {
	uint64_t start;	/* bytes (block discard) or LBA (NVMe) */
	uint64_t len;	/* bytes or LBAs; for zone management: the zone length */
};

enum znp_aio_kind {
	ZNP_AIO_BLK_DISCARD,	/* block device, byte ranges */
	ZNP_AIO_NVME_DSM,	/* NVMe namespace, LBA ranges, deallocate */
	ZNP_AIO_NVME_ZONE_MGMT,	/* NVMe ZNS namespace, one zone per range */
};

enum znp_aio_engine {
	ZNP_ENG_NONE,
	ZNP_ENG_URING_DISCARD,	/* io_uring BLOCK_URING_CMD_DISCARD */
	ZNP_ENG_BLKDISCARD,	/* synchronous BLKDISCARD ioctl */
	ZNP_ENG_URING_NVME,	/* io_uring NVMe passthrough */
	ZNP_ENG_NVME_IOCTL,	/* synchronous NVMe passthrough ioctl */
	ZNP_ENG_BLKZONE_IOCTL,	/* block zone ioctl, range form */
};

struct znp_aio_progress {
	uint64_t cmds_done;	/* completed (successfully or not) */
	uint64_t cmds_total;
	uint64_t bytes_done;	/* covered by successful commands */
	uint64_t bytes_total;
	double seconds;		/* since the first submission */
};

typedef void (*znp_aio_progress_fn)(const struct znp_aio_progress *p, void *arg);

struct znp_aio_job {
	enum znp_aio_kind kind;
	int fd;
	uint32_t nsid;		/* NVMe kinds */
	uint32_t lba_size;	/* NVMe kinds: for byte accounting */
	uint8_t zone_action;	/* ZNP_AIO_NVME_ZONE_MGMT: enum znp_zone_action */
	bool select_all;	/* ZNP_AIO_NVME_ZONE_MGMT: one select-all command */
	unsigned int qd;	/* 0: ZNP_AIO_DEFAULT_QD */
	bool force_sync;	/* skip io_uring: the synchronous engine only */
	const struct znp_aio_range *ranges;
	size_t nr;
	const atomic_int *stop;	/* may be NULL */
	znp_aio_progress_fn progress;		/* may be NULL; at most ~10/s */
	void *progress_arg;
};

struct znp_aio_result {
	enum znp_aio_engine engine;	/* the engine that did the work */
	unsigned int fallbacks;		/* io_uring -> synchronous switches */
	int fallback_reason;		/* -errno that caused the switch */
	uint64_t submitted;		/* ranges [0, submitted) were sent */
	uint64_t completed;		/* of which succeeded */
	uint64_t failed;
	uint64_t bytes;			/* covered by successful commands */
	size_t first_err_idx;		/* valid when failed > 0 */
	int first_err;			/* -errno or NVMe status */
	bool interrupted;		/* *stop was seen */
	double seconds;
};

/**
 * znp_aio_run() - run a job to completion, a stop request or the first error
 * @job: what to do; @job->ranges must already be validated
 * @res: out, what was done (always filled)
 *
 * Block discards and NVMe commands go through io_uring unless
 * @job->force_sync; the first command is sent alone, and when the kernel
 * answers -EOPNOTSUPP (or the ring cannot be set up) the whole job is redone
 * by the synchronous engine, counted in @res->fallbacks.
 * Return: 0 when every range succeeded, -EINTR when stopped through
 * @job->stop, else the first failure: -errno, or a positive NVMe status.
 */
int znp_aio_run(const struct znp_aio_job *job, struct znp_aio_result *res);

/* "io_uring-discard", "blkdiscard-ioctl", "io_uring-nvme-passthru", ... */
const char *znp_aio_engine_name(enum znp_aio_engine e);

/*
 * Command encoding, exposed for unit tests (no device needed).
 */

/* Fill @sqe (64 or 128 bytes) with a BLOCK_URING_CMD_DISCARD of a byte range. */
void znp_aio_prep_blk_discard(struct io_uring_sqe *sqe, int fd, uint64_t off,
			      uint64_t len);

/*
 * Dataset Management, deallocate, one range: @dsm_buf (16 bytes, kept alive
 * until completion) receives the range descriptor.
 */
void znp_nvme_encode_dsm(struct nvme_uring_cmd *c, uint32_t nsid,
			 void *dsm_buf, uint64_t slba, uint32_t nlb);
/* Zone Management Send: @action is an enum znp_zone_action value. */
void znp_nvme_encode_zone_mgmt(struct nvme_uring_cmd *c, uint32_t nsid,
			       uint64_t slba, uint8_t action, bool select_all);
/* Fill a 128-byte @sqe with an NVME_URING_CMD_IO carrying @c. */
void znp_aio_prep_nvme(struct io_uring_sqe *sqe, int fd,
		       const struct nvme_uring_cmd *c);

#endif
