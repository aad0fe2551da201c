// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * io_uring engine for discards and NVMe passthrough, with synchronous
 * fallbacks. See async.h for the contract.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <linux/fs.h>
#include <liburing.h>

#include "nvme-adapter.h"	/* before async.h: see there */
#include "async.h"

#define PROGRESS_INTERVAL	0.1	/* seconds between progress callbacks */

struct dsm_desc {			/* NVMe Dataset Management range */
	uint32_t cattr;
	uint32_t nlb;
	uint64_t slba;
};

struct run_state {
	const struct znp_aio_job *job;
	struct znp_aio_result *res;
	struct timespec t0;
	double last_progress;
	uint64_t bytes_total;
};

const char *znp_aio_engine_name(enum znp_aio_engine e)
{
	switch (e) {
	case ZNP_ENG_URING_DISCARD:	return "io_uring-discard";
	case ZNP_ENG_BLKDISCARD:	return "blkdiscard-ioctl";
	case ZNP_ENG_URING_NVME:	return "io_uring-nvme-passthru";
	case ZNP_ENG_NVME_IOCTL:	return "nvme-ioctl";
	case ZNP_ENG_BLKZONE_IOCTL:	return "blkzone-ioctl";
	case ZNP_ENG_NONE:		break;
	}
	return "none";
}

void znp_aio_prep_blk_discard(struct io_uring_sqe *sqe, int fd, uint64_t off,
			      uint64_t len)
{
	/* ioprio, len, rw_flags, file_index and the high half of off must be 0 */
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
	sqe->addr = off;
	sqe->addr3 = len;
}

void znp_nvme_encode_dsm(struct nvme_uring_cmd *c, uint32_t nsid,
			 void *dsm_buf, uint64_t slba, uint32_t nlb)
{
	struct dsm_desc *d = dsm_buf;

	d->cattr = 0;
	d->nlb = htole32(nlb);
	d->slba = htole64(slba);
	memset(c, 0, sizeof(*c));
	c->opcode = ZNP_NVME_OPC_DSM;
	c->nsid = nsid;
	c->addr = (uintptr_t)dsm_buf;
	c->data_len = sizeof(*d);
	c->cdw10 = 0;			/* number of ranges, 0's based */
	c->cdw11 = ZNP_NVME_DSM_AD;
}

void znp_nvme_encode_zone_mgmt(struct nvme_uring_cmd *c, uint32_t nsid,
			       uint64_t slba, uint8_t action, bool select_all)
{
	memset(c, 0, sizeof(*c));
	c->opcode = ZNP_NVME_OPC_ZONE_MGMT_SEND;
	c->nsid = nsid;
	c->cdw10 = (uint32_t)slba;
	c->cdw11 = (uint32_t)(slba >> 32);
	c->cdw13 = action | (select_all ? ZNP_NVME_ZMS_SELECT_ALL : 0);
}

void znp_aio_prep_nvme(struct io_uring_sqe *sqe, int fd,
		       const struct nvme_uring_cmd *c)
{
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = NVME_URING_CMD_IO;
	memset(sqe->cmd, 0, 80);
	memcpy(sqe->cmd, c, sizeof(*c));
}

static double elapsed(const struct run_state *st)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - st->t0.tv_sec) +
	       (double)(t.tv_nsec - st->t0.tv_nsec) / 1e9;
}

static uint64_t range_bytes(const struct znp_aio_job *job, size_t i)
{
	if (job->kind == ZNP_AIO_BLK_DISCARD)
		return job->ranges[i].len;
	return job->ranges[i].len * job->lba_size;
}

static bool stop_requested(const struct znp_aio_job *job)
{
	return job->stop && atomic_load(job->stop);
}

static void report_progress(struct run_state *st, bool force)
{
	const struct znp_aio_job *job = st->job;
	struct znp_aio_progress p;
	double now;

	if (!job->progress)
		return;
	now = elapsed(st);
	if (!force && now - st->last_progress < PROGRESS_INTERVAL)
		return;
	st->last_progress = now;
	p.cmds_done = st->res->completed + st->res->failed;
	p.cmds_total = job->nr;
	p.bytes_done = st->res->bytes;
	p.bytes_total = st->bytes_total;
	p.seconds = now;
	job->progress(&p, job->progress_arg);
}

/* Record the outcome of range @i. */
static void account(struct run_state *st, size_t i, int ret)
{
	struct znp_aio_result *res = st->res;

	if (ret == 0) {
		res->completed++;
		res->bytes += range_bytes(st->job, i);
		return;
	}
	if (!res->failed || i < res->first_err_idx) {
		res->first_err_idx = i;
		res->first_err = ret;
	}
	res->failed++;
}

static void encode_nvme(const struct znp_aio_job *job, size_t i,
			struct nvme_uring_cmd *c, void *dsm_buf)
{
	const struct znp_aio_range *r = &job->ranges[i];

	if (job->kind == ZNP_AIO_NVME_DSM)
		znp_nvme_encode_dsm(c, job->nsid, dsm_buf, r->start,
				    (uint32_t)r->len);
	else
		znp_nvme_encode_zone_mgmt(c, job->nsid, r->start,
					  job->zone_action, job->select_all);
}

static int sync_one(const struct znp_aio_job *job, size_t i)
{
	struct nvme_uring_cmd c;
	struct dsm_desc dsm;
	uint64_t range[2];

	if (job->kind == ZNP_AIO_BLK_DISCARD) {
		range[0] = job->ranges[i].start;
		range[1] = job->ranges[i].len;
		return ioctl(job->fd, BLKDISCARD, range) < 0 ? -errno : 0;
	}
	encode_nvme(job, i, &c, &dsm);
	return znp_nvme_io_uring_cmd_sync(job->fd, &c);
}

static int run_sync(struct run_state *st)
{
	const struct znp_aio_job *job = st->job;
	struct znp_aio_result *res = st->res;
	size_t i;
	int ret;

	res->engine = job->kind == ZNP_AIO_BLK_DISCARD ? ZNP_ENG_BLKDISCARD :
							 ZNP_ENG_NVME_IOCTL;
	for (i = 0; i < job->nr; i++) {
		if (stop_requested(job)) {
			res->interrupted = true;
			break;
		}
		res->submitted++;
		ret = sync_one(job, i);
		account(st, i, ret);
		report_progress(st, false);
		if (ret)
			break;
	}
	return 0;
}

struct uring_ctx {
	struct io_uring ring;
	size_t *slot_range;	/* range index per slot */
	unsigned int *free_slots;
	unsigned int nfree;
	struct dsm_desc *dsm;	/* one per slot */
};

static void queue_one(struct uring_ctx *u, const struct znp_aio_job *job,
		      size_t i)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	unsigned int slot = u->free_slots[--u->nfree];
	struct nvme_uring_cmd c;

	/* never NULL: at most qd entries are queued between submissions */
	u->slot_range[slot] = i;
	if (job->kind == ZNP_AIO_BLK_DISCARD) {
		znp_aio_prep_blk_discard(sqe, job->fd, job->ranges[i].start,
					 job->ranges[i].len);
	} else {
		encode_nvme(job, i, &c, &u->dsm[slot]);
		znp_aio_prep_nvme(sqe, job->fd, &c);
	}
	io_uring_sqe_set_data64(sqe, slot);
}

/*
 * Completions to wait for before refilling: a quarter of the queue keeps it
 * at least 3/4 full while cutting wake-ups and syscalls by that factor.
 */
static unsigned int wait_nr(unsigned int inflight, unsigned int qd)
{
	unsigned int n = qd / 4 ? qd / 4 : 1;

	return n < inflight ? n : inflight;
}

/*
 * Returns 0, or -EOPNOTSUPP when the kernel refused the very first command
 * (nothing done: the caller falls back), or another -errno from the ring.
 */
static int uring_loop(struct run_state *st, struct uring_ctx *u, unsigned int qd)
{
	const struct znp_aio_job *job = st->job;
	struct znp_aio_result *res = st->res;
	unsigned int inflight = 0, head, seen, limit;
	struct io_uring_cqe *cqe;
	size_t next = 0;
	bool stop = false;
	int ret;

	for (;;) {
		/* the first command goes alone: it tells whether the kernel can */
		limit = res->completed + res->failed ? qd : 1;
		if (stop_requested(job)) {
			res->interrupted = true;
			stop = true;
		}
		while (!stop && next < job->nr && inflight < limit) {
			queue_one(u, job, next++);
			inflight++;
			res->submitted++;
		}
		if (!inflight)
			return 0;
		ret = io_uring_submit_and_wait(&u->ring, wait_nr(inflight, qd));
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			return ret;	/* ring broken: in-flight state unknown */
		seen = 0;
		io_uring_for_each_cqe(&u->ring, head, cqe) {
			unsigned int slot = (unsigned int)cqe->user_data;
			size_t i = u->slot_range[slot];

			seen++;
			inflight--;
			u->free_slots[u->nfree++] = slot;
			if (cqe->res == -EOPNOTSUPP && i == 0 && !res->completed) {
				res->submitted = 0;
				io_uring_cq_advance(&u->ring, seen);
				return -EOPNOTSUPP;
			}
			account(st, i, cqe->res);
			if (cqe->res)
				stop = true;
		}
		io_uring_cq_advance(&u->ring, seen);
		report_progress(st, false);
	}
}

static int run_uring(struct run_state *st)
{
	const struct znp_aio_job *job = st->job;
	struct io_uring_params p;
	struct uring_ctx u;
	unsigned int qd, i;
	int ret;

	qd = job->qd ? job->qd : ZNP_AIO_DEFAULT_QD;
	if (qd > ZNP_AIO_MAX_QD)
		qd = ZNP_AIO_MAX_QD;
	if (qd > job->nr)
		qd = (unsigned int)job->nr;
	memset(&u, 0, sizeof(u));
	u.slot_range = calloc(qd, sizeof(*u.slot_range));
	u.free_slots = calloc(qd, sizeof(*u.free_slots));
	u.dsm = calloc(qd, sizeof(*u.dsm));
	ret = -ENOMEM;
	if (!u.slot_range || !u.free_slots || !u.dsm)
		goto out_free;
	for (i = 0; i < qd; i++)
		u.free_slots[u.nfree++] = qd - 1 - i;

	memset(&p, 0, sizeof(p));
	if (job->kind != ZNP_AIO_BLK_DISCARD)
		p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	p.flags |= IORING_SETUP_CQSIZE;
	p.cq_entries = 2 * qd;
	ret = io_uring_queue_init_params(qd, &u.ring, &p);
	if (ret < 0)
		goto out_free;
	st->res->engine = job->kind == ZNP_AIO_BLK_DISCARD ?
			  ZNP_ENG_URING_DISCARD : ZNP_ENG_URING_NVME;
	ret = uring_loop(st, &u, qd);
	io_uring_queue_exit(&u.ring);
out_free:
	free(u.dsm);
	free(u.free_slots);
	free(u.slot_range);
	return ret;
}

static bool is_fallback_error(int ret)
{
	/* no uring_cmd for this file, no io_uring, io_uring disabled */
	return ret == -EOPNOTSUPP || ret == -ENOSYS || ret == -EPERM ||
	       ret == -EINVAL;
}

int znp_aio_run(const struct znp_aio_job *job, struct znp_aio_result *res)
{
	struct run_state st;
	size_t i;
	int ret;

	memset(res, 0, sizeof(*res));
	memset(&st, 0, sizeof(st));
	st.job = job;
	st.res = res;
	for (i = 0; i < job->nr; i++)
		st.bytes_total += range_bytes(job, i);
	clock_gettime(CLOCK_MONOTONIC, &st.t0);
	if (!job->nr)
		return 0;
	if (job->force_sync) {
		ret = run_sync(&st);
	} else {
		ret = run_uring(&st);
		if (ret && is_fallback_error(ret) && !res->submitted) {
			memset(res, 0, sizeof(*res));
			res->fallbacks = 1;
			res->fallback_reason = ret;
			ret = run_sync(&st);
		}
	}
	res->seconds = elapsed(&st);
	report_progress(&st, true);
	if (ret)
		return ret;
	if (res->failed)
		return res->first_err;
	return res->interrupted ? -EINTR : 0;
}
