// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: what a request becomes. A read or write is cut into NVMe
 * Read/Write commands of at most max_cmd_sectors (the padding after a
 * zone's capacity reads as zeroes), a zone append is one Zone Append, zone
 * operations are Zone Management Send, a zone report is Zone Management
 * Receive commands translated to struct blk_zone. Writes, appends and the
 * write pipeline: ublk-write.c; how the request's data moves (user copy or
 * zero copy): ublk-data.c; the ring: ublk-queue.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/nvme_ioctl.h>
#include <stdlib.h>
#include <string.h>

#include "ublk-io.h"

const char *znp_ublk_op_name(uint8_t op)
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

void znp_ublk_fail_req(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int err, const char *why)
{
	znp_ublk_log(q->s, err == -EOPNOTSUPP ? LOG_WARNING : LOG_ERR,
		     "ublk%d: %s at sector %" PRIu64 " (+%u) failed: %s", q->s->dev_id,
		     znp_ublk_op_name(t->op), t->sector, t->nr_sectors, why);
	if (t->owns_zone) {
		/* where the zone's write pointer is now, only the drive knows */
		pthread_mutex_lock(&q->s->zlock);
		q->s->zs[t->ext.zone_no].wp_known = false;
		pthread_mutex_unlock(&q->s->zlock);
		znp_ublk_complete(q, t, err, 0);
		/* its record (a piece may have landed) goes with the commit, as a success's */
		znp_ublk_append_completed(q, t);
		return;
	}
	znp_ublk_complete(q, t, err, 0);
}

/*
 * The namespace is gone: the request stays with the driver, uncommitted
 * (requeued for the next server, which systemd starts once the namespace
 * is back), and this queue leaves. Not while START_DEV runs: it holds the
 * driver's device mutex and waits for its requests (zone reports, the
 * partition scan), and a request left, or a queue gone, would keep it
 * waiting for ever (requeued requests are not sent again under that mutex),
 * with this process unable to exit. The request fails instead (START_DEV
 * fails, the device is deleted) and the queue serves on until run() ends it.
 */
void znp_ublk_leave_req(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	if (atomic_load(&q->s->starting)) {
		znp_ublk_fail_req(q, t, -EIO, "the namespace is gone or unreachable while the "
				  "device starts");
		return;
	}
	if (!q->gone)
		znp_ublk_log(q->s, LOG_ERR, "ublk%d: the namespace is gone: leaving its requests "
			     "to the next server", q->s->dev_id);
	q->gone = true;
	if (!q->err)
		q->err = -ENODEV;
	if (t->busy)
		q->busy--;
	t->busy = false;
	t->parked = true;
	if (t->owns_zone) {
		/*
		 * The journal keeps its record, for the next server, and the
		 * zone stays taken: an append placed after it here would take
		 * the record's slot. The appends waiting for it are left too.
		 */
		t->owns_zone = false;
	}
}

uint32_t znp_ublk_cmd_lbas(const struct znp_ublk_queue *q)
{
	return q->s->g.max_cmd_sectors >> (q->s->g.lba_shift - 9);
}

int znp_ublk_issue_rw_piece(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode)
{
	const struct znp_ublk_geom *g = &q->s->g;
	uint32_t n = t->ext.nlb - t->next_lba;
	uint32_t max = opcode == NVME_CMD_WRITE && t->op == UBLK_IO_OP_WRITE ? t->wpiece : znp_ublk_cmd_lbas(q);
	uint32_t fua = (t->flags & UBLK_IO_F_FUA) && opcode != NVME_CMD_READ ? NVME_RW_FUA : 0;
	int ret;

	if (n > max)
		n = max;
	t->piece_lba = t->next_lba;
	ret = znp_ublk_data_piece(q, t, opcode, t->next_lba << g->lba_shift, n << g->lba_shift,
				  t->ext.lba + t->next_lba, (n - 1) | fua);
	if (!ret)
		t->next_lba += n;
	return ret;
}

/* Every read piece of tag @t from next_lba on, all at once (reads need no order). */
void znp_ublk_issue_reads(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	while (t->next_lba < t->ext.nlb)
		if (znp_ublk_issue_rw_piece(q, t, NVME_CMD_READ)) {
			t->err = -EBUSY;
			break;
		}
	if (t->err && !t->inflight)
		znp_ublk_fail_req(q, t, t->err, "no submission slot");
}

/* READ, WRITE, ZONE_APPEND of @nr sectors on tag @t. */
static void serve_rw(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t nr)
{
	const struct znp_ublk_geom *g = &q->s->g;
	int ret;

	if (nr > g->max_sectors ||
	    (t->op == UBLK_IO_OP_ZONE_APPEND && nr > g->max_append_sectors)) {
		znp_ublk_fail_req(q, t, -EINVAL, "larger than the device's limit");
		return;
	}
	ret = znp_ublk_map_rw(g, t->sector, nr, t->op != UBLK_IO_OP_READ, &t->ext);
	if (ret) {
		znp_ublk_fail_req(q, t, ret, ret == -EIO ? "touches the padding after the zone "
			 "capacity" : "misaligned or outside the device");
		return;
	}
	znp_ublk_data_begin(q, t);
	if (t->op == UBLK_IO_OP_READ) {
		memset((char *)t->buf + ((size_t)t->ext.nlb << g->lba_shift), 0,
		       t->ext.zero_bytes);
		if (!t->ext.nlb) {	/* all padding */
			znp_ublk_read_out(q, t);
			return;
		}
		znp_ublk_issue_reads(q, t);
		return;
	}
	znp_ublk_write_start(q, t);
}

static void serve_zone_op(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t zsa)
{
	uint64_t zslba;
	int ret;

	ret = znp_ublk_map_zone(&q->s->g, t->sector, &zslba);
	if (ret) {
		znp_ublk_fail_req(q, t, ret, "not a zone start");
		return;
	}
	if (znp_ublk_nvme_cmd(q, t, NVME_CMD_ZMS, NULL, 0, zslba, 0, zsa))
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
}

void znp_ublk_io_start(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct ublksrv_io_desc *iod = &__atomic_load_n(&q->iods, __ATOMIC_ACQUIRE)[t->tag];
	uint32_t op_flags = __atomic_load_n(&iod->op_flags, __ATOMIC_ACQUIRE);
	uint32_t nr = iod->nr_sectors;

	t->busy = true;
	t->op = (uint8_t)(op_flags & 0xff);
	/* the driver ORs UBLK_IO_F_* in unshifted (ublk_req_build_flags) */
	t->flags = op_flags & ~0xffu;
	t->sector = iod->start_sector;
	t->nr_sectors = t->op == UBLK_IO_OP_REPORT_ZONES ? 0 : nr;
	t->next_lba = 0;
	t->inflight = 0;
	t->err = 0;
	t->stage = ZNP_ST_IO;
	t->retries = 0;
	t->jgen = 0;		/* no journal record of its own yet */
	t->recon = t->retry_same = t->restart = t->owns_zone = false;
	t->nopath = t->gone = false;
	t->nopath_ms = t->nopath_step = 0;
	t->nopath_res = 0;
	t->inh = -1;
	t->ntried = 0;
	t->zc = t->pulling = false;	/* how its data moves: znp_ublk_data_begin() */
	t->vmatched = t->flushed = false;
	t->backoff = ZNP_RB_NONE;

	switch (t->op) {
	case UBLK_IO_OP_READ:
	case UBLK_IO_OP_WRITE:
	case UBLK_IO_OP_ZONE_APPEND:
		serve_rw(q, t, nr);
		return;
	case UBLK_IO_OP_FLUSH:
		if (znp_ublk_nvme_cmd(q, t, NVME_CMD_FLUSH, NULL, 0, 0, 0, 0))
			znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
		return;
	case UBLK_IO_OP_ZONE_OPEN:
		serve_zone_op(q, t, ZNP_ZA_OPEN);
		return;
	case UBLK_IO_OP_ZONE_CLOSE:
		serve_zone_op(q, t, ZNP_ZA_CLOSE);
		return;
	case UBLK_IO_OP_ZONE_FINISH:
		serve_zone_op(q, t, ZNP_ZA_FINISH);
		return;
	case UBLK_IO_OP_ZONE_RESET:
		serve_zone_op(q, t, ZNP_ZA_RESET);
		return;
	case UBLK_IO_OP_ZONE_RESET_ALL:
		if (znp_ublk_nvme_cmd(q, t, NVME_CMD_ZMS, NULL, 0, 0, 0,
				      ZNP_ZA_RESET | NVME_ZMS_SELECT_ALL))
			znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
		return;
	case UBLK_IO_OP_REPORT_ZONES:
		if (atomic_load(&q->s->starting))
			znp_ublk_test_stop(q->s, "report");	/* START_DEV waits for it */
		znp_ublk_start_report(q, t, iod->nr_zones);
		return;
	default:
		/* discard, write zeroes (no such limits were set), anything newer */
		znp_ublk_fail_req(q, t, -EOPNOTSUPP, "operation not supported by this server");
		return;
	}
}

/* A zone operation succeeded: the write pointers this server tracks follow. */
static void zone_op_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct znp_ublk_geom *g = &q->s->g;
	uint64_t z, cap = g->zone_cap_sectors >> (g->lba_shift - 9);

	switch (t->op) {
	case UBLK_IO_OP_ZONE_RESET:
		znp_ublk_zone_set_wp(q->s, t->sector / g->zone_sectors, 0);
		break;
	case UBLK_IO_OP_ZONE_FINISH:
		znp_ublk_zone_set_wp(q->s, t->sector / g->zone_sectors, cap);
		break;
	case UBLK_IO_OP_ZONE_RESET_ALL:
		for (z = 0; z < g->nr_zones; z++)
			znp_ublk_zone_set_wp(q->s, z, 0);
		break;
	default:
		break;
	}
}

/* Send a zone operation or flush again (idempotent). Return: 0 or -EBUSY. */
int znp_ublk_resend(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	uint64_t zslba = 0;
	uint32_t zsa;

	switch (t->op) {
	case UBLK_IO_OP_FLUSH:
		return znp_ublk_nvme_cmd(q, t, NVME_CMD_FLUSH, NULL, 0, 0, 0, 0);
	case UBLK_IO_OP_ZONE_RESET_ALL:
		return znp_ublk_nvme_cmd(q, t, NVME_CMD_ZMS, NULL, 0, 0, 0,
					 ZNP_ZA_RESET | NVME_ZMS_SELECT_ALL);
	case UBLK_IO_OP_ZONE_OPEN: zsa = ZNP_ZA_OPEN; break;
	case UBLK_IO_OP_ZONE_CLOSE: zsa = ZNP_ZA_CLOSE; break;
	case UBLK_IO_OP_ZONE_FINISH: zsa = ZNP_ZA_FINISH; break;
	case UBLK_IO_OP_ZONE_RESET: zsa = ZNP_ZA_RESET; break;
	default: return -EINVAL;
	}
	if (znp_ublk_map_zone(&q->s->g, t->sector, &zslba))
		return -EINVAL;
	return znp_ublk_nvme_cmd(q, t, NVME_CMD_ZMS, NULL, 0, zslba, 0, zsa);
}

void znp_ublk_retry_now(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	uint8_t what = t->backoff;

	t->backoff = ZNP_RB_NONE;
	switch (what) {
	case ZNP_RB_WP:
		znp_ublk_query_wp(q, t);
		return;
	case ZNP_RB_READS:
		if (t->op == UBLK_IO_OP_REPORT_ZONES) {
			znp_ublk_issue_zmr(q, t);
			return;
		}
		t->next_lba = 0;
		znp_ublk_issue_reads(q, t);
		return;
	case ZNP_RB_RESEND:
		if (znp_ublk_resend(q, t))
			znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
		return;
	case ZNP_RB_FINISH:
		znp_ublk_finish_write(q, t);
		return;
	default:
		return;
	}
}

void znp_ublk_retry_later(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res,
			  uint8_t what)
{
	uint32_t ms = znp_ublk_retry_ms(res, q->s->g.ns.crdt_ms, t->retries ? t->retries - 1 : 0);

	t->backoff = what;
	if (znp_ublk_timer(q, t, ms))
		znp_ublk_retry_now(q, t);	/* no SQE for the timer: at once, as before */
}

void znp_ublk_log_nvme_error(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	znp_ublk_log(q->s, LOG_ERR, "ublk%d: %s at sector %" PRIu64 " (+%u): namespace returned "
		     "%s%s0x%x", q->s->dev_id, znp_ublk_op_name(t->op), t->sector, t->nr_sectors,
		     res < 0 ? "errno " : "NVMe status ", res < 0 ? "-" : "",
		     (unsigned int)(res < 0 ? -res : res));
}

/*
 * An NVMe error on a tag. Return: true when handled here (retried,
 * reconciled, left to the next server, or failed).
 */
bool znp_ublk_nvme_error(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	enum znp_ublk_verdict v;

	switch (t->op) {
	case UBLK_IO_OP_WRITE:
	case UBLK_IO_OP_ZONE_APPEND:
		if (znp_ublk_write_error(q, t, res))
			return true;
		znp_ublk_log_nvme_error(q, t, res);
		znp_ublk_fail_req(q, t, znp_ublk_status_errno(res),
				  "the namespace failed the write");
		return true;
	case UBLK_IO_OP_READ:
	case UBLK_IO_OP_REPORT_ZONES:
		v = znp_ublk_status_verdict(res, false);
		if (v == ZNP_UBLK_GONE) {
			t->gone = true;
		} else if (znp_ublk_is_nopath(q, t, res)) {
			t->nopath = true;	/* when the other pieces are back */
		} else if (v == ZNP_UBLK_RETRY && t->retries < ZNP_UBLK_RETRIES) {
			t->restart = true;	/* when the other pieces are back */
			t->err_res = res;
		} else if (!t->err) {
			t->err = znp_ublk_status_errno(res);
			znp_ublk_log_nvme_error(q, t, res);
		}
		return false;
	default:
		v = znp_ublk_status_verdict(res, false);
		if (v == ZNP_UBLK_GONE) {
			znp_ublk_leave_req(q, t);
			return true;
		}
		if (znp_ublk_is_nopath(q, t, res)) {
			znp_ublk_nopath_wait(q, t);
			return true;
		}
		if (v == ZNP_UBLK_RETRY && t->retries++ < ZNP_UBLK_RETRIES) {
			znp_ublk_retry_later(q, t, res, ZNP_RB_RESEND);
			return true;
		}
		znp_ublk_log_nvme_error(q, t, res);
		znp_ublk_complete(q, t, znp_ublk_status_errno(res), 0);
		return true;
	}
}

void znp_ublk_io_nvme_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t,
			   const struct io_uring_cqe *cqe)
{
	t->inflight--;
	q->nvme--;
	if (!t->busy)
		return;		/* cannot happen: a tag's commands end before it commits */
	if (t->stage == ZNP_ST_WP) {
		znp_ublk_wp_done(q, t, cqe->res);
		return;
	}
	if (t->stage == ZNP_ST_FLUSH) {
		znp_ublk_flush_done(q, t, cqe->res);
		return;
	}
	if (t->stage == ZNP_ST_VERIFY) {
		if (cqe->res && znp_ublk_status_verdict(cqe->res, false) == ZNP_UBLK_GONE)
			t->gone = true;
		else if (cqe->res && znp_ublk_is_nopath(q, t, cqe->res))
			t->nopath = true;
		else if (cqe->res && !t->err)
			t->err = znp_ublk_status_errno(cqe->res);
		if (t->inflight)
			return;
		if (t->gone)
			znp_ublk_leave_req(q, t);
		else if (t->nopath && !t->err)
			znp_ublk_nopath_wait(q, t);
		else
			znp_ublk_verify_done(q, t);
		return;
	}
	if (t->op == UBLK_IO_OP_WRITE) {
		znp_ublk_write_piece_end(q, t, cqe->res);
		return;
	}
	if (cqe->res && znp_ublk_nvme_error(q, t, cqe->res))
		return;
	if (t->inflight)
		return;
	if (t->gone) {
		znp_ublk_leave_req(q, t);
		return;
	}
	if (t->err) {
		znp_ublk_fail_req(q, t, t->err, "the namespace failed it");
		return;
	}
	if (t->nopath) {
		znp_ublk_nopath_wait(q, t);
		return;
	}
	if (t->restart) {
		/* a read (or report) met a transient error: again, whole */
		t->restart = false;
		t->retries++;
		znp_ublk_retry_later(q, t, t->err_res, ZNP_RB_READS);
		return;
	}
	switch (t->op) {
	case UBLK_IO_OP_READ:
		znp_ublk_read_out(q, t);
		return;
	case UBLK_IO_OP_WRITE:
	case UBLK_IO_OP_ZONE_APPEND:
		if (t->next_lba < t->ext.nlb) {
			if (znp_ublk_issue_rw_piece(q, t, NVME_CMD_WRITE))
				znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
			return;
		}
		znp_ublk_finish_write(q, t);
		return;
	case UBLK_IO_OP_REPORT_ZONES:
		znp_ublk_report_done(q, t);
		return;
	default:
		zone_op_done(q, t);
		znp_ublk_complete(q, t, 0, 0);
		return;
	}
}
