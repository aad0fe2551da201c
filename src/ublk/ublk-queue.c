// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: one thread and one io_uring per queue. The ring carries the
 * ublk commands on /dev/ublkcN (FETCH_REQ, COMMIT_AND_FETCH_REQ), the NVMe
 * passthrough commands on /dev/ngXnY (NVME_URING_CMD_IO), hence 128-byte
 * SQEs and 32-byte CQEs (the big CQE carries a Zone Append's LBA), the
 * user copy (UBLK_F_USER_COPY): READ and WRITE on /dev/ublkcN at the tag's
 * offset, between the request and the tag's buffer, and for zero copy
 * (UBLK_F_SUPPORT_ZERO_COPY) the registration of a request's pages in the
 * ring's buffer table, which NVMe commands then name (IORING_URING_CMD_FIXED).
 * The lowest layer of src/ublk's I/O: it knows SQEs and CQEs, not what a
 * request means (README.md). The queue's setup: ublk-qsetup.c; what a
 * request becomes: ublk-io.c; how its data moves: ublk-data.c.
 */
#include <errno.h>
#include <linux/nvme_ioctl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ublk-priv.h"

#ifndef PR_SET_IO_FLUSHER
#define PR_SET_IO_FLUSHER	57
#endif

enum { UD_UBLK = 1, UD_NVME = 2, UD_ABANDON = 3, UD_PARK = 4, UD_INBOX = 5, UD_COPY = 6,
       UD_TIMER = 7, UD_BUF_REG = 8, UD_BUF_UNREG = 9 };

static inline uint64_t ud(unsigned int kind, unsigned int tag)
{
	return ((uint64_t)tag << 8) | kind;
}

static struct io_uring_sqe *get_sqe(struct znp_ublk_queue *q)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);

	if (!sqe) {
		io_uring_submit(&q->ring);
		sqe = io_uring_get_sqe(&q->ring);
	}
	if (sqe)
		memset(sqe, 0, 2 * sizeof(*sqe));	/* SQE128 */
	return sqe;
}

static int ublk_cmd(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t op,
		    int result, uint64_t addr)
{
	struct io_uring_sqe *sqe = get_sqe(q);
	struct ublksrv_io_cmd *c;

	if (!sqe)
		return -EBUSY;
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = q->cdev_fd;
	sqe->flags = q->sqe_flags;
	sqe->cmd_op = op;
	sqe->user_data = ud(UD_UBLK, t->tag);
	c = (struct ublksrv_io_cmd *)sqe->cmd;
	c->q_id = (uint16_t)q->qid;
	c->tag = t->tag;
	c->result = result;
	c->addr = addr;
	q->cmds++;
	return 0;
}

/* An NVMe I/O command; @index >= 0: @addr is in registered buffer @index. */
static int nvme_sqe(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
		    uint64_t addr, int index, uint32_t len, uint64_t slba, uint32_t cdw12,
		    uint32_t cdw13)
{
	struct io_uring_sqe *sqe = get_sqe(q);
	struct nvme_uring_cmd *c;

	if (!sqe)
		return -EBUSY;
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = q->ns_fd;
	sqe->flags = q->sqe_flags;
	sqe->cmd_op = NVME_URING_CMD_IO;
	if (index >= 0) {
		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		sqe->buf_index = (uint16_t)index;
	}
	sqe->user_data = ud(UD_NVME, t->tag);
	c = (struct nvme_uring_cmd *)sqe->cmd;
	c->opcode = opcode;
	c->nsid = q->s->ns->ns.nsid;
	c->addr = addr;
	c->data_len = len;
	c->cdw10 = (uint32_t)slba;
	c->cdw11 = (uint32_t)(slba >> 32);
	c->cdw12 = cdw12;
	c->cdw13 = cdw13;
	q->nvme++;
	t->inflight++;
	return 0;
}

int znp_ublk_nvme_cmd(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
		      void *buf, uint32_t len, uint64_t slba, uint32_t cdw12, uint32_t cdw13)
{
	int index = -1;

	if (q->fixed_bufs && buf >= t->buf &&
	    (char *)buf + len <= (char *)t->buf + (size_t)q->s->g.max_sectors * 512)
		index = t->tag;	/* the tag's buffer is registered: no page pinning per command */
	return nvme_sqe(q, t, opcode, (uint64_t)(uintptr_t)buf, index, len, slba, cdw12, cdw13);
}

int znp_ublk_nvme_cmd_zc(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
			 uint32_t off, uint32_t len, uint64_t slba, uint32_t cdw12)
{
	/* a request's registered pages are addressed from 0 */
	return nvme_sqe(q, t, opcode, off, (int)ZNP_UBLK_ZC_INDEX(q, t), len, slba, cdw12, 0);
}

int znp_ublk_buf_cmd(struct znp_ublk_queue *q, struct znp_ublk_tag *t, bool reg)
{
	struct io_uring_sqe *sqe = get_sqe(q);
	struct ublksrv_io_cmd *c;

	if (!sqe)
		return -EBUSY;
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = q->cdev_fd;
	sqe->flags = q->sqe_flags;
	sqe->cmd_op = reg ? UBLK_U_IO_REGISTER_IO_BUF : UBLK_U_IO_UNREGISTER_IO_BUF;
	sqe->user_data = ud(reg ? UD_BUF_REG : UD_BUF_UNREG, t->tag);
	c = (struct ublksrv_io_cmd *)sqe->cmd;
	c->q_id = (uint16_t)q->qid;
	c->tag = t->tag;
	c->addr = ZNP_UBLK_ZC_INDEX(q, t);
	q->bufcmds++;
	return 0;
}

/*
 * A buffer (un)registration ended. A registration the driver refused
 * fails the NVMe commands queued behind it (their buffer slot is empty):
 * the request then fails with that error, logged here once per queue.
 */
static void buf_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, bool reg, int res)
{
	q->bufcmds--;
	if (res >= 0)
		return;
	if (reg && t->busy && t->zc_reg) {
		t->zc_reg = false;
		if (!t->err)
			t->err = res;
	}
	if (!q->err_logged_buf) {
		q->err_logged_buf = true;
		znp_ublk_log(q->s, LOG_ERR, "ublk%d: queue %u tag %u: buffer %sregistration "
			     "refused: %s", q->s->dev_id, q->qid, t->tag, reg ? "" : "un",
			     strerror(-res));
	}
}

int znp_ublk_timer(struct znp_ublk_queue *q, struct znp_ublk_tag *t, unsigned int ms)
{
	struct io_uring_sqe *sqe = get_sqe(q);

	if (!sqe)
		return -EBUSY;
	t->ts.tv_sec = ms / 1000;
	t->ts.tv_nsec = (long long)(ms % 1000) * 1000000;
	io_uring_prep_timeout(sqe, &t->ts, 0, 0);
	sqe->user_data = ud(UD_TIMER, t->tag);
	q->timers++;
	return 0;
}

static int submit_copy(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	uint64_t off = UBLKSRV_IO_BUF_OFFSET + ((uint64_t)q->qid << UBLK_QID_OFF) +
		       ((uint64_t)t->tag << UBLK_TAG_OFF) + t->copy_off;
	struct io_uring_sqe *sqe = get_sqe(q);
	char *p = (char *)t->buf + t->copy_off;
	unsigned int n = t->copy_end - t->copy_off;

	if (!sqe)
		return -EBUSY;
	/* the driver refuses READ_FIXED/WRITE_FIXED on ublkc */
	if (t->copy_to_kernel)
		io_uring_prep_write(sqe, q->cdev_fd, p, n, off);
	else
		io_uring_prep_read(sqe, q->cdev_fd, p, n, off);
	sqe->flags |= q->sqe_flags;
	sqe->user_data = ud(UD_COPY, t->tag);
	q->copies++;
	t->copying = true;
	return 0;
}

int znp_ublk_ucopy(struct znp_ublk_queue *q, struct znp_ublk_tag *t, bool to_kernel,
		   uint32_t off, uint32_t end)
{
	t->copy_to_kernel = to_kernel;
	t->copy_off = off;
	t->copy_end = end;
	return submit_copy(q, t);
}

static void copy_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	q->copies--;
	t->copying = false;
	if (res > 0)
		atomic_fetch_add_explicit(t->op == UBLK_IO_OP_REPORT_ZONES ? &q->s->ucopy_report :
					  &q->s->ucopy_data, (unsigned long long)res,
					  memory_order_relaxed);
	if (!t->busy)
		return;
	if (res > 0 && (uint32_t)res < t->copy_end - t->copy_off) {
		/* short: the rest */
		t->copy_off += (uint32_t)res;
		if (!submit_copy(q, t))
			return;
		res = -EBUSY;
	} else if (res > 0) {
		t->copy_off = t->copy_end;
		res = 0;
	} else if (!res) {
		res = -EIO;
	}
	znp_ublk_io_copy_done(q, t, res);
}

/*
 * The commit of tag @t, after the unregistration of its request's pages
 * (zero copy): the next request on the tag is registered at the same index.
 */
static int commit(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res, uint64_t addr)
{
	if (t->zc_reg) {
		if (znp_ublk_buf_cmd(q, t, false))
			return -EBUSY;
		t->zc_reg = false;
	}
	return ublk_cmd(q, t, UBLK_U_IO_COMMIT_AND_FETCH_REQ, res, addr);
}

void znp_ublk_complete(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res, uint64_t addr)
{
	if (t->busy)
		q->busy--;
	t->busy = false;
	free(t->rep_buf);
	t->rep_buf = NULL;
	if (q->abandon)
		return;
	if ((t->op == UBLK_IO_OP_ZONE_APPEND && res >= 0 && znp_ublk_test_defer()) ||
	    commit(q, t, res, addr)) {
		/* no SQE now: sent by the loop once the ring has room, never dropped */
		t->commit_res = res;
		t->commit_addr = addr;
		t->commit_deferred = true;
		q->deferred++;
	}
}

/* Commits that found no SQE free. */
static void flush_deferred(struct znp_ublk_queue *q)
{
	unsigned int i;

	for (i = 0; i < q->s->depth && q->deferred; i++) {
		struct znp_ublk_tag *t = &q->tags[i];

		if (!t->commit_deferred)
			continue;
		if (commit(q, t, t->commit_res, t->commit_addr))
			return;
		t->commit_deferred = false;
		q->deferred--;
		if (t->jzone) {
			t->jzone = 0;
			znp_ublk_append_answered(q, t);
		}
	}
}

static void ublk_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	q->cmds--;
	if (res == UBLK_IO_RES_OK) {
		if (q->parking && !q->quiesced) {
			/*
			 * Never started, so safe to serve again: the driver
			 * requeues it for the next server when this one leaves
			 * (UBLK_F_USER_RECOVERY_REISSUE). After QUIESCE_DEV
			 * it is served: it was dispatched before, and nothing
			 * comes after it.
			 */
			t->parked = true;
			atomic_fetch_add(&q->s->park_left, 1);
			return;
		}
		q->busy++;
		znp_ublk_io_start(q, t);
		return;
	}
	/* UBLK_IO_RES_ABORT: the device is stopping; this tag is done */
	if (res != UBLK_IO_RES_ABORT) {
		znp_ublk_log(q->s, LOG_ERR, "ublk%d: queue %u tag %u: ublk command failed: %s",
			     q->s->dev_id, q->qid, t->tag, strerror(-res));
		if (!q->err)
			q->err = res < 0 ? res : -EIO;
	}
}

static int arm_inbox(struct znp_ublk_queue *q)
{
	struct io_uring_sqe *sqe = get_sqe(q);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_poll_add(sqe, q->ifd, POLLIN);
	sqe->user_data = ud(UD_INBOX, 0);
	return 0;
}

/* Appends whose zone another queue handed to this one. */
static void inbox(struct znp_ublk_queue *q)
{
	struct znp_ublk_tag *t, *next;
	uint64_t v;
	ssize_t r;

	r = read(q->ifd, &v, sizeof(v));
	(void)r;
	/*
	 * No SQE for the poll now: armed again at the top of the loop. A
	 * hand-over meanwhile leaves the eventfd readable, so the poll fires
	 * as soon as it is armed: none waits for ever.
	 */
	q->inbox_unarmed = arm_inbox(q) != 0;
	if (q->abandon)
		return;		/* left uncommitted, for the next server */
	for (t = znp_ublk_inbox_take(q); t; t = next) {
		next = t->wait_next;
		znp_ublk_append_go(q, t);
	}
}

static void timer_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	q->timers--;
	if (t->busy)
		znp_ublk_io_timer_done(q, t);
}

static void handle(struct znp_ublk_queue *q, const struct io_uring_cqe *cqe)
{
	unsigned int kind = (unsigned int)(cqe->user_data & 0xff);
	unsigned int tag = (unsigned int)(cqe->user_data >> 8);

	if (kind == UD_ABANDON) {
		q->abandon = true;
		return;
	}
	if (kind == UD_PARK) {
		q->parking = true;
		q->quiesced = atomic_load(&q->s->quiesced);
		return;
	}
	if (kind == UD_INBOX) {
		inbox(q);
		return;
	}
	if (tag >= q->s->depth)
		return;
	if (kind == UD_UBLK)
		ublk_done(q, &q->tags[tag], cqe->res);
	else if (kind == UD_NVME)
		znp_ublk_io_nvme_done(q, &q->tags[tag], cqe);
	else if (kind == UD_COPY)
		copy_done(q, &q->tags[tag], cqe->res);
	else if (kind == UD_TIMER)
		timer_done(q, &q->tags[tag]);
	else if (kind == UD_BUF_REG || kind == UD_BUF_UNREG)
		buf_done(q, &q->tags[tag], kind == UD_BUF_REG, cqe->res);
}

/*
 * The ring failed: commit nothing more (the requests are left to the next
 * server), but the NVMe commands and user copies in flight still complete
 * into the tag buffers: wait for them. Commands that cannot be waited for
 * keep their buffers (never freed: znp_ublk_queue_free()).
 */
static void drain(struct znp_ublk_queue *q)
{
	struct __kernel_timespec ts = { 0, 100 * 1000 * 1000 };
	struct io_uring_cqe *cqe;
	unsigned int head, n, waits = 0;

	q->abandon = true;
	/* up to 35 s: longer than the NVMe driver's I/O timeout (30 s) */
	while ((q->nvme || q->copies) && waits++ < 350) {
		/* what was queued (also by the completions below) goes, or fails at once */
		io_uring_submit(&q->ring);
		io_uring_wait_cqe_timeout(&q->ring, &cqe, &ts);
		n = 0;
		io_uring_for_each_cqe(&q->ring, head, cqe) {
			handle(q, cqe);
			n++;
		}
		io_uring_cq_advance(&q->ring, n);
	}
	if (q->nvme || q->copies) {
		znp_ublk_log(q->s, LOG_ERR, "ublk%d: queue %u: %u NVMe commands and %u copies "
			     "still in flight: their buffers are kept", q->s->dev_id, q->qid,
			     q->nvme, q->copies);
		q->pinned = true;
	}
}

void *znp_ublk_queue_thread(void *arg)
{
	struct znp_ublk_queue *q = arg;
	struct znp_ublk_server *s = q->s;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	unsigned int i, head, n;
	bool reg_fd = false;
	int ret;

	ret = q->cpus_ok ? pthread_setaffinity_np(pthread_self(), sizeof(q->cpus), &q->cpus) : 0;
	if (ret)
		znp_ublk_log(s, LOG_WARNING, "ublk%d: queue %u: cannot pin the thread: %s",
			     s->dev_id, q->qid, strerror(ret));
	/* reclaim in this thread must not wait on writeback to the device it serves */
	if (prctl(PR_SET_IO_FLUSHER, 1, 0, 0, 0))
		znp_ublk_log(s, LOG_WARNING, "ublk%d: queue %u: PR_SET_IO_FLUSHER: %s", s->dev_id,
			     q->qid, strerror(errno));
	if (q->ring_flags & IORING_SETUP_R_DISABLED) {
		/* (liburing's io_uring_enable_rings() is not in every 2.x library) */
		do {
			ret = (int)syscall(__NR_io_uring_register, q->ring.ring_fd,
					   IORING_REGISTER_ENABLE_RINGS, NULL, 0);
			if (ret)
				ret = -errno;
			/* half taken back (START_USER_RECOVERY done): never give up */
		} while (s->recovering && (ret == -EINTR || ret == -EAGAIN || ret == -ENOMEM) &&
			 !nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL));
		if (ret) {
			znp_ublk_log(s, LOG_ERR, "ublk%d: queue %u: io_uring: %s", s->dev_id,
				     q->qid, strerror(-ret));
			q->err = ret;
			atomic_store(&q->ready, q->err);
			goto out;
		}
	}
	/* the ring's fd registered for this thread: no fget/fput per io_uring_enter */
	reg_fd = io_uring_register_ring_fd(&q->ring) == 1;
	if (!reg_fd && !q->qid)
		znp_ublk_log(s, LOG_NOTICE, "ublk%d: io_uring: ring fd not registered", s->dev_id);
	/* this thread fetches every tag, so it owns the queue */
	for (i = 0; i < s->depth; i++)
		if (ublk_cmd(q, &q->tags[i], UBLK_U_IO_FETCH_REQ, -1, 0))
			break;
	sqe = get_sqe(q);
	if (sqe) {
		io_uring_prep_poll_add(sqe, s->qefd, POLLIN);
		sqe->user_data = ud(UD_ABANDON, 0);
		sqe = get_sqe(q);
	}
	if (sqe) {
		io_uring_prep_poll_add(sqe, s->pefd, POLLIN);
		sqe->user_data = ud(UD_PARK, 0);
		if (arm_inbox(q))
			sqe = NULL;
	}
	ret = io_uring_submit(&q->ring);
	while (s->recovering && (ret == -EINTR || ret == -EAGAIN || ret == -ENOMEM)) {
		/* half taken back: the fetches must go in (see recovery_retry(), ublk-run.c) */
		nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
		ret = io_uring_submit(&q->ring);
	}
	if (i < s->depth || !sqe || ret < 0) {
		q->err = ret < 0 ? ret : -EBUSY;
		atomic_store(&q->ready, q->err);
		goto out;
	}
	/* a fetch refused by the driver completes at once */
	n = 0;
	io_uring_for_each_cqe(&q->ring, head, cqe) {
		n++;
		if ((cqe->user_data & 0xff) == UD_UBLK && cqe->res < 0) {
			q->err = cqe->res;
			q->cmds--;
		}
	}
	io_uring_cq_advance(&q->ring, n);
	if (q->err) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: queue %u: FETCH_REQ refused: %s", s->dev_id,
			     q->qid, strerror(-q->err));
		atomic_store(&q->ready, q->err);
		goto out;
	}
	atomic_store(&q->ready, 1);

	/*
	 * A tag that is busy with nothing in flight is an append waiting for
	 * its zone, which another queue's append owns: it is handed over
	 * through the inbox, so the queue serves on even when every one of
	 * its tags waits so (its ring then holds no ublk command at all).
	 */
	while (q->cmds || q->nvme || q->copies || q->deferred || q->timers ||
	       q->busy) {
		if (q->deferred)
			flush_deferred(q);
		if (q->inbox_unarmed && !arm_inbox(q))
			q->inbox_unarmed = false;
		if (q->abandon && !q->nvme && !q->copies)
			break;
		if (q->gone && !q->nvme && !q->copies)
			break;	/* the namespace went away: leave, for a restart */
		if (q->parking && !q->nvme && !q->copies && !q->busy && !q->deferred) {
			/* every commit goes in before the ring closes */
			if (!q->quiesced) {
				io_uring_submit(&q->ring);
				break;
			}
			/*
			 * A request dispatched before QUIESCE_DEV may still
			 * be on its way (task work, run when the ring is
			 * entered): leave only once an entry brought nothing
			 * (or failed: the driver then requeues it, as without
			 * QUIESCE_DEV).
			 */
			ret = io_uring_submit_and_get_events(&q->ring);
			if (ret < 0 || !io_uring_cq_ready(&q->ring))
				break;
		} else {
			ret = q->busy ? znp_ublk_test_submit_fail() : 0;
			if (!ret)
				ret = io_uring_submit_and_wait(&q->ring, 1);
		}
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
			znp_ublk_log(s, LOG_ERR, "ublk%d: queue %u: io_uring: %s", s->dev_id,
				     q->qid, strerror(-ret));
			q->err = ret;
			drain(q);
			break;
		}
		n = 0;
		io_uring_for_each_cqe(&q->ring, head, cqe) {
			handle(q, cqe);
			n++;
		}
		io_uring_cq_advance(&q->ring, n);
	}
out:
	/* registered for this thread only: undone here, not by whoever frees the ring */
	if (reg_fd)
		io_uring_unregister_ring_fd(&q->ring);
	if (atomic_load(&q->ready) == 1)
		atomic_store(&q->ready, 2);
	{
		uint64_t one = 1;
		ssize_t r = write(s->efd, &one, sizeof(one));

		(void)r;
	}
	return NULL;
}
