// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: one thread and one io_uring per queue. The ring carries both
 * the ublk commands on /dev/ublkcN (FETCH_REQ, COMMIT_AND_FETCH_REQ) and the
 * NVMe passthrough commands on /dev/ngXnY (NVME_URING_CMD_IO), hence
 * 128-byte SQEs and 32-byte CQEs (the big CQE carries a Zone Append's LBA).
 * Data moves between the request and the tag's buffer with pread/pwrite on
 * /dev/ublkcN (UBLK_F_USER_COPY).
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/nvme_ioctl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ublk-priv.h"

enum { UD_UBLK = 1, UD_NVME = 2, UD_ABANDON = 3 };

enum {
	NVME_CMD_FLUSH = 0x00,
	NVME_CMD_WRITE = 0x01,
	NVME_CMD_READ = 0x02,
	NVME_CMD_ZMS = 0x79,	/* Zone Management Send */
	NVME_CMD_ZMR = 0x7a,	/* Zone Management Receive */
	NVME_CMD_APPEND = 0x7d,
};
#define NVME_RW_FUA		(1u << 30)
#define NVME_ZMS_SELECT_ALL	(1u << 8)
#define NVME_ZMR_PARTIAL	(1u << 16)

static inline uint64_t ud(unsigned int kind, unsigned int tag)
{
	return ((uint64_t)tag << 8) | kind;
}

static const char *op_name(uint8_t op)
{
	switch (op) {
	case UBLK_IO_OP_READ: return "read";
	case UBLK_IO_OP_WRITE: return "write";
	case UBLK_IO_OP_FLUSH: return "flush";
	case UBLK_IO_OP_DISCARD: return "discard";
	case UBLK_IO_OP_WRITE_SAME: return "write-same";
	case UBLK_IO_OP_WRITE_ZEROES: return "write-zeroes";
	case UBLK_IO_OP_ZONE_OPEN: return "zone-open";
	case UBLK_IO_OP_ZONE_CLOSE: return "zone-close";
	case UBLK_IO_OP_ZONE_FINISH: return "zone-finish";
	case UBLK_IO_OP_ZONE_APPEND: return "zone-append";
	case UBLK_IO_OP_ZONE_RESET_ALL: return "zone-reset-all";
	case UBLK_IO_OP_ZONE_RESET: return "zone-reset";
	case UBLK_IO_OP_REPORT_ZONES: return "report-zones";
	default: return "unknown";
	}
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
	sqe->fd = q->s->cdev_fd;
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

static int nvme_cmd(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
		    void *buf, uint32_t len, uint64_t slba, uint32_t cdw12, uint32_t cdw13)
{
	struct io_uring_sqe *sqe = get_sqe(q);
	struct nvme_uring_cmd *c;

	if (!sqe)
		return -EBUSY;
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = q->s->ns->fd;
	sqe->cmd_op = NVME_URING_CMD_IO;
	sqe->user_data = ud(UD_NVME, t->tag);
	c = (struct nvme_uring_cmd *)sqe->cmd;
	c->opcode = opcode;
	c->nsid = q->s->ns->ns.nsid;
	c->addr = (uint64_t)(uintptr_t)buf;
	c->data_len = len;
	c->cdw10 = (uint32_t)slba;
	c->cdw11 = (uint32_t)(slba >> 32);
	c->cdw12 = cdw12;
	c->cdw13 = cdw13;
	q->nvme++;
	t->inflight++;
	return 0;
}

/* pread (to_kernel false) or pwrite the request's data (user copy). */
static int ucopy(struct znp_ublk_queue *q, struct znp_ublk_tag *t, bool to_kernel, size_t len)
{
	off_t off = (off_t)(UBLKSRV_IO_BUF_OFFSET + ((uint64_t)q->qid << UBLK_QID_OFF) +
			    ((uint64_t)t->tag << UBLK_TAG_OFF));
	size_t done = 0;

	while (done < len) {
		ssize_t r = to_kernel ?
			pwrite(q->s->cdev_fd, (char *)t->buf + done, len - done, off + (off_t)done) :
			pread(q->s->cdev_fd, (char *)t->buf + done, len - done, off + (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		done += (size_t)r;
	}
	return 0;
}

/* Commit @res and fetch the next request for this tag. */
static void complete(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res, uint64_t addr)
{
	t->busy = false;
	free(t->rep_buf);
	t->rep_buf = NULL;
	if (q->abandon)
		return;
	if (ublk_cmd(q, t, UBLK_U_IO_COMMIT_AND_FETCH_REQ, res, addr)) {
		znp_ublk_log(q->s, LOG_ERR, "ublk%d: queue %u tag %u: no submission slot: "
			     "request lost", q->s->dev_id, q->qid, t->tag);
		q->err = -EBUSY;
	}
}

static void fail_req(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int err, const char *why)
{
	znp_ublk_log(q->s, err == -EOPNOTSUPP ? LOG_WARNING : LOG_ERR,
		     "ublk%d: %s at sector %" PRIu64 " (+%u) failed: %s", q->s->dev_id,
		     op_name(t->op), t->sector, t->nr_sectors, why);
	complete(q, t, err, 0);
}

static uint32_t cmd_lbas(const struct znp_ublk_queue *q)
{
	return q->s->g.max_cmd_sectors >> (q->s->g.lba_shift - 9);
}

static int issue_rw_piece(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode)
{
	const struct znp_ublk_geom *g = &q->s->g;
	uint32_t n = t->ext.nlb - t->next_lba, max = cmd_lbas(q);
	uint32_t fua = (t->flags & UBLK_IO_F_FUA) && opcode != NVME_CMD_READ ? NVME_RW_FUA : 0;
	int ret;

	if (n > max)
		n = max;
	ret = nvme_cmd(q, t, opcode, (char *)t->buf + ((size_t)t->next_lba << g->lba_shift),
		       n << g->lba_shift, t->ext.lba + t->next_lba, (n - 1) | fua, 0);
	if (!ret)
		t->next_lba += n;
	return ret;
}

static void issue_zmr(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct znp_ublk_geom *g = &q->s->g;
	uint32_t n = t->rep_nr - t->rep_done;

	if (n > q->scratch_n)
		n = (uint32_t)q->scratch_n;
	t->rep_len = ZNP_ZREPORT_HDR_SIZE + n * ZNP_ZDESC_SIZE;
	memset(t->rep_buf, 0, t->rep_len);
	if (nvme_cmd(q, t, NVME_CMD_ZMR, t->rep_buf, t->rep_len,
		     znp_zone_start(&g->ns, t->rep_idx0 + t->rep_done), t->rep_len / 4 - 1,
		     NVME_ZMR_PARTIAL))
		fail_req(q, t, -EBUSY, "no submission slot");
}

static void start_report(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t nr_zones)
{
	const struct znp_ublk_geom *g = &q->s->g;
	uint64_t max = (uint64_t)g->max_sectors * 512 / sizeof(struct blk_zone);

	if (t->sector >= g->dev_sectors || !nr_zones) {
		fail_req(q, t, -EINVAL, "outside the device");
		return;
	}
	/* the start may be any sector of the first zone */
	t->rep_idx0 = znp_po2_zone_no(&g->ns, t->sector >> (g->lba_shift - 9));
	t->rep_nr = nr_zones;
	if (t->rep_nr > g->nr_zones - t->rep_idx0)
		t->rep_nr = (uint32_t)(g->nr_zones - t->rep_idx0);
	if (t->rep_nr > max)
		t->rep_nr = (uint32_t)max;
	t->rep_done = 0;
	t->rep_buf = malloc(ZNP_ZREPORT_HDR_SIZE + q->scratch_n * ZNP_ZDESC_SIZE);
	if (!t->rep_buf) {
		fail_req(q, t, -ENOMEM, "out of memory");
		return;
	}
	memset(t->buf, 0, (size_t)t->rep_nr * sizeof(struct blk_zone));
	issue_zmr(q, t);
}

static void report_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct znp_ublk_geom *g = &q->s->g;
	struct blk_zone *bz = t->buf;
	uint64_t nrep;
	size_t np, i, want = t->rep_nr - t->rep_done;
	int ret;

	if (want > q->scratch_n)
		want = q->scratch_n;
	ret = znp_zdesc_parse(&g->ns, t->rep_buf, t->rep_len, &nrep, q->scratch, want, &np);
	if (ret || !np) {
		fail_req(q, t, -EIO, ret ? "the namespace returned a malformed zone report" :
			 "the namespace reported no zone");
		return;
	}
	for (i = 0; i < np; i++) {
		uint64_t idx = t->rep_idx0 + t->rep_done + i;

		if (znp_ublk_zone_to_blk(g, idx, &q->scratch[i], &bz[t->rep_done + i])) {
			znp_ublk_log(q->s, LOG_ERR, "ublk%d: namespace zone %" PRIu64 " descriptor "
				     "rejected: start 0x%" PRIx64 " cap 0x%" PRIx64 " wp 0x%" PRIx64
				     " cond %u type %u", q->s->dev_id, idx, q->scratch[i].start,
				     q->scratch[i].cap, q->scratch[i].wp, q->scratch[i].cond,
				     q->scratch[i].type);
			fail_req(q, t, -EIO, "invalid zone descriptor from the namespace");
			return;
		}
	}
	t->rep_done += (uint32_t)np;
	if (t->rep_done < t->rep_nr) {
		issue_zmr(q, t);
		return;
	}
	ret = ucopy(q, t, true, (size_t)t->rep_nr * sizeof(struct blk_zone));
	if (ret) {
		fail_req(q, t, ret, "copy to the request failed");
		return;
	}
	complete(q, t, (int)(t->rep_nr * sizeof(struct blk_zone)), 0);
}

/* A new request on tag @t. */
static void serve(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct ublksrv_io_desc *iod = &q->iods[t->tag];
	const struct znp_ublk_geom *g = &q->s->g;
	uint32_t op_flags = __atomic_load_n(&iod->op_flags, __ATOMIC_ACQUIRE);
	uint32_t nr = iod->nr_sectors;
	uint64_t zslba;
	uint32_t zsa;
	int ret;

	t->busy = true;
	t->op = (uint8_t)(op_flags & 0xff);
	t->flags = op_flags >> 8;
	t->sector = iod->start_sector;
	t->nr_sectors = t->op == UBLK_IO_OP_REPORT_ZONES ? 0 : nr;
	t->next_lba = 0;
	t->inflight = 0;
	t->err = 0;

	switch (t->op) {
	case UBLK_IO_OP_READ:
	case UBLK_IO_OP_WRITE:
	case UBLK_IO_OP_ZONE_APPEND:
		if (nr > g->max_sectors ||
		    (t->op == UBLK_IO_OP_ZONE_APPEND && nr > g->max_append_sectors)) {
			fail_req(q, t, -EINVAL, "larger than the device's limit");
			return;
		}
		ret = znp_ublk_map_rw(g, t->sector, nr, t->op != UBLK_IO_OP_READ, &t->ext);
		if (ret) {
			fail_req(q, t, ret, ret == -EIO ? "touches the padding after the zone "
				 "capacity" : "misaligned or outside the device");
			return;
		}
		if (t->op == UBLK_IO_OP_READ) {
			memset((char *)t->buf + ((size_t)t->ext.nlb << g->lba_shift), 0,
			       t->ext.zero_bytes);
			if (!t->ext.nlb) {	/* all padding */
				ret = ucopy(q, t, true, (size_t)nr << 9);
				if (ret)
					fail_req(q, t, ret, "copy to the request failed");
				else
					complete(q, t, (int)(nr << 9), 0);
				return;
			}
			while (t->next_lba < t->ext.nlb)
				if (issue_rw_piece(q, t, NVME_CMD_READ)) {
					t->err = -EBUSY;
					break;
				}
			if (t->err && !t->inflight)
				fail_req(q, t, t->err, "no submission slot");
			return;
		}
		ret = ucopy(q, t, false, (size_t)nr << 9);
		if (ret) {
			fail_req(q, t, ret, "copy from the request failed");
			return;
		}
		if (t->op == UBLK_IO_OP_WRITE) {
			/* pieces in order: the namespace does not order commands */
			if (issue_rw_piece(q, t, NVME_CMD_WRITE))
				fail_req(q, t, -EBUSY, "no submission slot");
			return;
		}
		/* an append is one command: never split (max_append <= max_cmd) */
		if (nvme_cmd(q, t, NVME_CMD_APPEND, t->buf, nr << 9,
			     znp_zone_start(&g->ns, t->ext.zone_no), (t->ext.nlb - 1) |
			     ((t->flags & UBLK_IO_F_FUA) ? NVME_RW_FUA : 0), 0))
			fail_req(q, t, -EBUSY, "no submission slot");
		return;
	case UBLK_IO_OP_FLUSH:
		if (nvme_cmd(q, t, NVME_CMD_FLUSH, NULL, 0, 0, 0, 0))
			fail_req(q, t, -EBUSY, "no submission slot");
		return;
	case UBLK_IO_OP_ZONE_OPEN:
		zsa = ZNP_ZA_OPEN;
		goto zms;
	case UBLK_IO_OP_ZONE_CLOSE:
		zsa = ZNP_ZA_CLOSE;
		goto zms;
	case UBLK_IO_OP_ZONE_FINISH:
		zsa = ZNP_ZA_FINISH;
		goto zms;
	case UBLK_IO_OP_ZONE_RESET:
		zsa = ZNP_ZA_RESET;
zms:
		ret = znp_ublk_map_zone(g, t->sector, &zslba);
		if (ret) {
			fail_req(q, t, ret, "not a zone start");
			return;
		}
		if (nvme_cmd(q, t, NVME_CMD_ZMS, NULL, 0, zslba, 0, zsa))
			fail_req(q, t, -EBUSY, "no submission slot");
		return;
	case UBLK_IO_OP_ZONE_RESET_ALL:
		if (nvme_cmd(q, t, NVME_CMD_ZMS, NULL, 0, 0, 0, ZNP_ZA_RESET | NVME_ZMS_SELECT_ALL))
			fail_req(q, t, -EBUSY, "no submission slot");
		return;
	case UBLK_IO_OP_REPORT_ZONES:
		start_report(q, t, iod->nr_zones);
		return;
	default:
		/* discard, write zeroes (no such limits were set), anything newer */
		fail_req(q, t, -EOPNOTSUPP, "operation not supported by this server");
		return;
	}
}

/* An NVMe command of tag @t completed. */
static void nvme_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t,
		      const struct io_uring_cqe *cqe)
{
	const struct znp_ublk_geom *g = &q->s->g;
	int err = znp_ublk_status_errno(cqe->res);
	uint64_t sector;
	int ret;

	t->inflight--;
	q->nvme--;
	if (!t->busy)
		return;		/* cannot happen: a tag's commands end before it commits */
	if (err) {
		if (!t->err) {
			t->err = err;
			znp_ublk_log(q->s, LOG_ERR, "ublk%d: %s at sector %" PRIu64 " (+%u): "
				     "namespace returned %s%s0x%x", q->s->dev_id, op_name(t->op),
				     t->sector, t->nr_sectors, cqe->res < 0 ? "errno " : "NVMe status ",
				     cqe->res < 0 ? "-" : "",
				     (unsigned int)(cqe->res < 0 ? -cqe->res : cqe->res));
		}
	}
	if (t->inflight)
		return;
	if (t->err) {
		complete(q, t, t->err, 0);
		return;
	}
	switch (t->op) {
	case UBLK_IO_OP_READ:
		ret = ucopy(q, t, true, (size_t)t->nr_sectors << 9);
		if (ret)
			fail_req(q, t, ret, "copy to the request failed");
		else
			complete(q, t, (int)(t->nr_sectors << 9), 0);
		return;
	case UBLK_IO_OP_WRITE:
		if (t->next_lba < t->ext.nlb) {
			if (issue_rw_piece(q, t, NVME_CMD_WRITE))
				fail_req(q, t, -EBUSY, "no submission slot");
			return;
		}
		complete(q, t, (int)(t->nr_sectors << 9), 0);
		return;
	case UBLK_IO_OP_ZONE_APPEND:
		if (znp_ublk_map_alba(g, t->ext.zone_no, cqe->big_cqe[0], t->ext.nlb, &sector)) {
			znp_ublk_log(q->s, LOG_ERR, "ublk%d: zone append to zone %" PRIu64
				     ": the namespace reported LBA 0x%" PRIx64 " outside the zone",
				     q->s->dev_id, t->ext.zone_no, (uint64_t)cqe->big_cqe[0]);
			complete(q, t, -EIO, 0);
			return;
		}
		complete(q, t, 0, sector);
		return;
	case UBLK_IO_OP_REPORT_ZONES:
		report_done(q, t);
		return;
	default:
		complete(q, t, 0, 0);
		return;
	}
}

static void ublk_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	q->cmds--;
	if (res == UBLK_IO_RES_OK) {
		serve(q, t);
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

static void handle(struct znp_ublk_queue *q, const struct io_uring_cqe *cqe)
{
	unsigned int kind = (unsigned int)(cqe->user_data & 0xff);
	unsigned int tag = (unsigned int)(cqe->user_data >> 8);

	if (kind == UD_ABANDON) {
		q->abandon = true;
		return;
	}
	if (tag >= q->s->depth)
		return;
	if (kind == UD_UBLK)
		ublk_done(q, &q->tags[tag], cqe->res);
	else if (kind == UD_NVME)
		nvme_done(q, &q->tags[tag], cqe);
}

int znp_ublk_queue_init(struct znp_ublk_server *s, struct znp_ublk_queue *q, unsigned int qid)
{
	const struct znp_ublk_geom *g = &s->g;
	long page = sysconf(_SC_PAGESIZE);
	size_t max_len = ((size_t)UBLK_MAX_QUEUE_DEPTH * sizeof(struct ublksrv_io_desc) +
			  (size_t)page - 1) & ~((size_t)page - 1);
	unsigned int i, entries;
	void *p;
	int ret;

	q->s = s;
	q->qid = qid;
	q->iods_len = ((size_t)s->depth * sizeof(struct ublksrv_io_desc) + (size_t)page - 1) &
		      ~((size_t)page - 1);
	p = mmap(NULL, q->iods_len, PROT_READ, MAP_SHARED | MAP_POPULATE, s->cdev_fd,
		 (off_t)(UBLKSRV_CMD_BUF_OFFSET + qid * max_len));
	if (p == MAP_FAILED)
		return -errno;
	q->iods = p;
	q->scratch_n = (g->max_cmd_sectors * 512u - ZNP_ZREPORT_HDR_SIZE) / ZNP_ZDESC_SIZE;
	q->scratch = calloc(q->scratch_n, sizeof(*q->scratch));
	q->tags = calloc(s->depth, sizeof(*q->tags));
	if (!q->scratch || !q->tags)
		return -ENOMEM;
	for (i = 0; i < s->depth; i++) {
		q->tags[i].q = q;
		q->tags[i].tag = (uint16_t)i;
		if (posix_memalign(&q->tags[i].buf, (size_t)page, (size_t)g->max_sectors * 512))
			return -ENOMEM;
	}
	/* a READ may have max_sectors / max_cmd_sectors pieces in flight */
	entries = s->depth * 2 + 8;
	if (entries > 4096)
		entries = 4096;
	ret = io_uring_queue_init(entries, &q->ring, IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
	if (ret)
		return ret;
	q->ring_ok = true;
	return 0;
}

void *znp_ublk_queue_thread(void *arg)
{
	struct znp_ublk_queue *q = arg;
	struct znp_ublk_server *s = q->s;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	unsigned int i, head, n;
	int ret;

	/* this thread fetches every tag, so it owns the queue */
	for (i = 0; i < s->depth; i++)
		if (ublk_cmd(q, &q->tags[i], UBLK_U_IO_FETCH_REQ, -1, 0))
			break;
	sqe = get_sqe(q);
	if (sqe) {
		io_uring_prep_poll_add(sqe, s->qefd, POLLIN);
		sqe->user_data = ud(UD_ABANDON, 0);
	}
	ret = io_uring_submit(&q->ring);
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

	while (q->cmds || q->nvme) {
		if (q->abandon && !q->nvme)
			break;
		ret = io_uring_submit_and_wait(&q->ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY) {
			znp_ublk_log(s, LOG_ERR, "ublk%d: queue %u: io_uring: %s", s->dev_id,
				     q->qid, strerror(-ret));
			q->err = ret;
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
	if (atomic_load(&q->ready) == 1)
		atomic_store(&q->ready, 2);
	{
		uint64_t one = 1;
		ssize_t r = write(s->efd, &one, sizeof(one));

		(void)r;
	}
	return NULL;
}

void znp_ublk_queue_free(struct znp_ublk_queue *q)
{
	unsigned int i;

	if (q->ring_ok)
		io_uring_queue_exit(&q->ring);
	q->ring_ok = false;
	if (q->tags) {
		for (i = 0; i < q->s->depth; i++) {
			free(q->tags[i].buf);
			free(q->tags[i].rep_buf);
		}
		free(q->tags);
	}
	free(q->scratch);
	if (q->iods)
		munmap((void *)q->iods, q->iods_len);
}
