// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: what a request becomes. A read or write is cut into NVMe
 * Read/Write commands of at most max_cmd_sectors (the padding after a
 * zone's capacity reads as zeroes), a zone append is one Zone Append, zone
 * operations are Zone Management Send, a zone report is Zone Management
 * Receive commands translated to struct blk_zone. The ring: ublk-queue.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/nvme_ioctl.h>
#include <stdlib.h>
#include <string.h>

#include "ublk-priv.h"

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

static void fail_req(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int err, const char *why)
{
	znp_ublk_log(q->s, err == -EOPNOTSUPP ? LOG_WARNING : LOG_ERR,
		     "ublk%d: %s at sector %" PRIu64 " (+%u) failed: %s", q->s->dev_id,
		     op_name(t->op), t->sector, t->nr_sectors, why);
	znp_ublk_complete(q, t, err, 0);
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
	ret = znp_ublk_nvme_cmd(q, t, opcode, (char *)t->buf + ((size_t)t->next_lba << g->lba_shift),
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
	if (znp_ublk_nvme_cmd(q, t, NVME_CMD_ZMR, t->rep_buf, t->rep_len,
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
	ret = znp_ublk_ucopy(q, t, true, (size_t)t->rep_nr * sizeof(struct blk_zone));
	if (ret) {
		fail_req(q, t, ret, "copy to the request failed");
		return;
	}
	znp_ublk_complete(q, t, (int)(t->rep_nr * sizeof(struct blk_zone)), 0);
}

/* READ, WRITE, ZONE_APPEND of @nr sectors on tag @t. */
static void serve_rw(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t nr)
{
	const struct znp_ublk_geom *g = &q->s->g;
	int ret;

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
			ret = znp_ublk_ucopy(q, t, true, (size_t)nr << 9);
			if (ret)
				fail_req(q, t, ret, "copy to the request failed");
			else
				znp_ublk_complete(q, t, (int)(nr << 9), 0);
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
	ret = znp_ublk_ucopy(q, t, false, (size_t)nr << 9);
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
	if (znp_ublk_nvme_cmd(q, t, NVME_CMD_APPEND, t->buf, nr << 9,
			      znp_zone_start(&g->ns, t->ext.zone_no), (t->ext.nlb - 1) |
			      ((t->flags & UBLK_IO_F_FUA) ? NVME_RW_FUA : 0), 0))
		fail_req(q, t, -EBUSY, "no submission slot");
}

/* Zone Send Action @zsa on the zone starting at the request's sector. */
static void serve_zone_op(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t zsa)
{
	uint64_t zslba;
	int ret;

	ret = znp_ublk_map_zone(&q->s->g, t->sector, &zslba);
	if (ret) {
		fail_req(q, t, ret, "not a zone start");
		return;
	}
	if (znp_ublk_nvme_cmd(q, t, NVME_CMD_ZMS, NULL, 0, zslba, 0, zsa))
		fail_req(q, t, -EBUSY, "no submission slot");
}

void znp_ublk_io_start(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct ublksrv_io_desc *iod = &q->iods[t->tag];
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

	switch (t->op) {
	case UBLK_IO_OP_READ:
	case UBLK_IO_OP_WRITE:
	case UBLK_IO_OP_ZONE_APPEND:
		serve_rw(q, t, nr);
		return;
	case UBLK_IO_OP_FLUSH:
		if (znp_ublk_nvme_cmd(q, t, NVME_CMD_FLUSH, NULL, 0, 0, 0, 0))
			fail_req(q, t, -EBUSY, "no submission slot");
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

void znp_ublk_io_nvme_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t,
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
		znp_ublk_complete(q, t, t->err, 0);
		return;
	}
	switch (t->op) {
	case UBLK_IO_OP_READ:
		ret = znp_ublk_ucopy(q, t, true, (size_t)t->nr_sectors << 9);
		if (ret)
			fail_req(q, t, ret, "copy to the request failed");
		else
			znp_ublk_complete(q, t, (int)(t->nr_sectors << 9), 0);
		return;
	case UBLK_IO_OP_WRITE:
		if (t->next_lba < t->ext.nlb) {
			if (issue_rw_piece(q, t, NVME_CMD_WRITE))
				fail_req(q, t, -EBUSY, "no submission slot");
			return;
		}
		znp_ublk_complete(q, t, (int)(t->nr_sectors << 9), 0);
		return;
	case UBLK_IO_OP_ZONE_APPEND:
		if (znp_ublk_map_alba(g, t->ext.zone_no, cqe->big_cqe[0], t->ext.nlb, &sector)) {
			znp_ublk_log(q->s, LOG_ERR, "ublk%d: zone append to zone %" PRIu64
				     ": the namespace reported LBA 0x%" PRIx64 " outside the zone",
				     q->s->dev_id, t->ext.zone_no, (uint64_t)cqe->big_cqe[0]);
			znp_ublk_complete(q, t, -EIO, 0);
			return;
		}
		znp_ublk_complete(q, t, 0, sector);
		return;
	case UBLK_IO_OP_REPORT_ZONES:
		report_done(q, t);
		return;
	default:
		znp_ublk_complete(q, t, 0, 0);
		return;
	}
}
