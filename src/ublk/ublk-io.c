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

/* The library's one NVMe table (dev/nvme-defs.h), by the short names used here. */
enum {
	NVME_CMD_FLUSH = ZNP_NVME_OPC_FLUSH,
	NVME_CMD_WRITE = ZNP_NVME_OPC_WRITE,
	NVME_CMD_READ = ZNP_NVME_OPC_READ,
	NVME_CMD_ZMS = ZNP_NVME_OPC_ZONE_MGMT_SEND,
	NVME_CMD_ZMR = ZNP_NVME_OPC_ZONE_MGMT_RECV,
	NVME_CMD_APPEND = ZNP_NVME_OPC_ZONE_APPEND,
};
#define NVME_RW_FUA		ZNP_NVME_RW_FUA
#define NVME_ZMS_SELECT_ALL	ZNP_NVME_ZMS_SELECT_ALL
#define NVME_ZMR_PARTIAL	ZNP_NVME_ZMR_PARTIAL

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

static void release_zone(struct znp_ublk_queue *q, struct znp_ublk_tag *t);

static void fail_req(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int err, const char *why)
{
	znp_ublk_log(q->s, err == -EOPNOTSUPP ? LOG_WARNING : LOG_ERR,
		     "ublk%d: %s at sector %" PRIu64 " (+%u) failed: %s", q->s->dev_id,
		     op_name(t->op), t->sector, t->nr_sectors, why);
	if (t->owns_zone) {
		/* where the zone's write pointer is now, only the drive knows */
		pthread_mutex_lock(&q->s->zlock);
		q->s->zs[t->ext.zone_no].wp_known = false;
		pthread_mutex_unlock(&q->s->zlock);
		znp_ublk_journal_clear(q->s, t->ext.zone_no);
	}
	znp_ublk_complete(q, t, err, 0);
	release_zone(q, t);
}

/*
 * The namespace is gone: the request stays with the driver, uncommitted
 * (requeued for the next server, which systemd starts once the namespace
 * is back), and this queue leaves.
 */
static void leave_req(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
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
		/* the journal keeps its record: the next server checks it */
		struct znp_ublk_tag *next;

		t->owns_zone = false;
		while ((next = znp_ublk_zone_release(q, t->ext.zone_no)))
			leave_req(q, next);
	}
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
	t->piece_lba = t->next_lba;
	ret = znp_ublk_nvme_cmd(q, t, opcode, (char *)t->buf + ((size_t)t->next_lba << g->lba_shift),
		       n << g->lba_shift, t->ext.lba + t->next_lba, (n - 1) | fua, 0);
	if (!ret)
		t->next_lba += n;
	return ret;
}

/* Every read piece of tag @t from next_lba on, all at once (reads need no order). */
static void issue_reads(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	while (t->next_lba < t->ext.nlb)
		if (issue_rw_piece(q, t, NVME_CMD_READ)) {
			t->err = -EBUSY;
			break;
		}
	if (t->err && !t->inflight)
		fail_req(q, t, t->err, "no submission slot");
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
	/* always a copy, zero copy or not: the data is this server's, not a buffer's */
	if (znp_ublk_ucopy(q, t, true, 0, (uint32_t)(t->rep_nr * sizeof(struct blk_zone))))
		fail_req(q, t, -EBUSY, "no submission slot");
}

/*
 * The two places where a request's data moves: zero copy (the request's
 * pages registered as the ring's buffer, UBLK_F_SUPPORT_ZERO_COPY or
 * UBLK_F_AUTO_BUF_REG) would replace these copies and point the NVMe
 * commands at that buffer; 6.12 has neither (bench/README.md).
 */
static void data_in(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	if (znp_ublk_ucopy(q, t, false, 0, t->nr_sectors << 9))
		fail_req(q, t, -EBUSY, "no submission slot");
}

static void data_out(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	if (znp_ublk_ucopy(q, t, true, 0, t->nr_sectors << 9))
		fail_req(q, t, -EBUSY, "no submission slot");
}

/* A write's or append's data is in the tag's buffer: send it. */
static void write_go(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	if (t->op == UBLK_IO_OP_WRITE) {
		/* pieces in order: the namespace does not order commands */
		if (issue_rw_piece(q, t, NVME_CMD_WRITE))
			fail_req(q, t, -EBUSY, "no submission slot");
		return;
	}
	/* an append: placed by this server, one at a time per zone (ublk-zone.c) */
	if (znp_ublk_zone_take(q->s, t->ext.zone_no, t))
		znp_ublk_append_go(q, t);
}

void znp_ublk_io_copy_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int err)
{
	if (err) {
		/* committed as an error: the request never hangs on a failed copy */
		fail_req(q, t, err, t->copy_to_kernel ? "copy to the request failed" :
			 "copy from the request failed");
		return;
	}
	if (t->copy_to_kernel)
		znp_ublk_complete(q, t, (int)t->copy_end, 0);
	else
		write_go(q, t);
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
			data_out(q, t);
			return;
		}
		issue_reads(q, t);
		return;
	}
	data_in(q, t);
}

/* ---- write pointers, read-back, appends ------------------------------------ */

static void *vbuf(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	if (!t->vbuf && posix_memalign(&t->vbuf, ZNP_UBLK_PAGE, (size_t)q->s->g.max_sectors * 512))
		t->vbuf = NULL;
	return t->vbuf;
}

/* Zone Management Receive of the tag's zone: one descriptor, no extension. */
static void query_wp(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct znp_ublk_geom *g = &q->s->g;

	if (!t->zbuf && posix_memalign((void **)&t->zbuf, 64, 2 * ZNP_ZDESC_SIZE))
		t->zbuf = NULL;
	if (!t->zbuf) {
		fail_req(q, t, -ENOMEM, "out of memory");
		return;
	}
	t->stage = ZNP_ST_WP;
	memset(t->zbuf, 0, 2 * ZNP_ZDESC_SIZE);
	if (znp_ublk_nvme_cmd(q, t, NVME_CMD_ZMR, t->zbuf, 2 * ZNP_ZDESC_SIZE,
			      znp_zone_start(&g->ns, t->ext.zone_no), 2 * ZNP_ZDESC_SIZE / 4 - 1,
			      NVME_ZMR_PARTIAL))
		fail_req(q, t, -EBUSY, "no submission slot");
}

/* Read back LBAs [@from, @end) (relative to ext.lba) to compare with the request. */
static void verify(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t from, uint32_t end)
{
	const struct znp_ublk_geom *g = &q->s->g;
	uint32_t at = from, n;

	if (!vbuf(q, t)) {
		fail_req(q, t, -ENOMEM, "out of memory");
		return;
	}
	t->stage = ZNP_ST_VERIFY;
	t->vfrom = from;
	t->vend = end;
	t->err = 0;
	for (; at < end; at += n) {
		n = end - at < cmd_lbas(q) ? end - at : cmd_lbas(q);
		if (znp_ublk_nvme_cmd(q, t, NVME_CMD_READ,
				      (char *)t->vbuf + ((size_t)(at - from) << g->lba_shift),
				      n << g->lba_shift, t->ext.lba + at, n - 1, 0)) {
			t->err = -EBUSY;
			break;
		}
	}
	if (t->err && !t->inflight)
		fail_req(q, t, -EBUSY, "no submission slot");
}

static void release_zone(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	struct znp_ublk_tag *next;

	if (!t->owns_zone)
		return;
	t->owns_zone = false;
	next = znp_ublk_zone_release(q, t->ext.zone_no);
	if (next)
		znp_ublk_append_go(q, next);
}

static void finish_write(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct znp_ublk_geom *g = &q->s->g;
	uint64_t z = t->ext.zone_no, zstart = znp_zone_start(&g->ns, z);

	if (t->op == UBLK_IO_OP_WRITE) {
		znp_ublk_zone_wrote(q->s, z, t->ext.lba + t->ext.nlb - zstart);
		znp_ublk_complete(q, t, (int)(t->nr_sectors << 9), 0);
		return;
	}
	/* an inherited append may lie below later ones: the write pointer never goes back */
	pthread_mutex_lock(&q->s->zlock);
	if (!q->s->zs[z].wp_known || q->s->zs[z].wp < t->app_lba + t->ext.nlb)
		q->s->zs[z].wp = t->app_lba + t->ext.nlb;
	q->s->zs[z].wp_known = true;
	pthread_mutex_unlock(&q->s->zlock);
	znp_ublk_complete(q, t, 0, z * g->zone_sectors + (t->app_lba << (g->lba_shift - 9)));
	if (t->commit_deferred)
		t->jzone = z + 1;	/* the record goes once the commit is sent */
	else
		znp_ublk_journal_commit(q, z);
	release_zone(q, t);
}

static bool inh_tried(const struct znp_ublk_tag *t, uint64_t lba)
{
	unsigned int i;

	for (i = 0; i < t->ntried; i++)
		if (t->tried[i] == lba)
			return true;
	return false;
}

/* The append owns its zone and the write pointer is known: resolve records, place it. */
static void append_place(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	struct znp_ublk_server *s = q->s;
	const struct znp_ublk_geom *g = &s->g;
	uint64_t z = t->ext.zone_no, zstart = znp_zone_start(&g->ns, z), wp, cap;
	struct znp_ublk_zstate *zs = &s->zs[z];
	unsigned int i;

	cap = g->zone_cap_sectors >> (g->lba_shift - 9);
	pthread_mutex_lock(&s->zlock);
	wp = zs->wp;
	for (i = 0; i < zs->ninh;) {
		if (zs->inh[i].lba >= wp) {
			/* never landed: nothing to reconcile */
			znp_ublk_inh_drop(s, z, i);
			continue;
		}
		i++;
	}
	for (i = 0; i < zs->ninh; i++)
		if (zs->inh[i].nlb == t->ext.nlb && !inh_tried(t, zs->inh[i].lba))
			break;
	if (i < zs->ninh) {
		/* a dead server's append of this length landed: is it this one? */
		uint64_t lba = zs->inh[i].lba;

		pthread_mutex_unlock(&s->zlock);
		t->inh = (int)i;
		t->app_lba = lba;
		t->ext.lba = zstart + lba;
		verify(q, t, 0, wp - lba < t->ext.nlb ? (uint32_t)(wp - lba) : t->ext.nlb);
		return;
	}
	pthread_mutex_unlock(&s->zlock);
	t->inh = -1;
	if (wp + t->ext.nlb > cap) {
		fail_req(q, t, -EIO, "the zone is full");
		return;
	}
	t->app_lba = wp;
	t->ext.lba = zstart + wp;
	t->next_lba = 0;
	t->stage = ZNP_ST_IO;
	znp_ublk_journal_set(s, z, wp, t->ext.nlb);
	if (issue_rw_piece(q, t, NVME_CMD_WRITE))
		fail_req(q, t, -EBUSY, "no submission slot");
}

void znp_ublk_append_go(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	struct znp_ublk_zstate *zs = &q->s->zs[t->ext.zone_no];
	bool known;

	t->owns_zone = true;
	t->recon = false;
	pthread_mutex_lock(&q->s->zlock);
	known = zs->wp_known && !zs->ninh;
	pthread_mutex_unlock(&q->s->zlock);
	if (known)
		append_place(q, t);
	else
		query_wp(q, t);
}

/* Place the append again, at the write pointer the drive reported (@wp_rel). */
static void replace_append(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint64_t wp_rel)
{
	pthread_mutex_lock(&q->s->zlock);
	q->s->zs[t->ext.zone_no].wp = wp_rel;
	q->s->zs[t->ext.zone_no].wp_known = true;
	pthread_mutex_unlock(&q->s->zlock);
	t->recon = false;
	append_place(q, t);
}

/* The tag's zone report came back: @wp_rel LBAs written. */
static void wp_known(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint64_t wp_rel)
{
	const struct znp_ublk_geom *g = &q->s->g;
	uint64_t zstart = znp_zone_start(&g->ns, t->ext.zone_no);
	int64_t done;

	t->last_wp = wp_rel;
	if (!t->recon) {
		/* an append about to be placed */
		replace_append(q, t, wp_rel);
		return;
	}
	if (t->op == UBLK_IO_OP_ZONE_APPEND && wp_rel <= t->app_lba) {
		/* nothing of it landed where it was placed: place it at the drive's pointer */
		replace_append(q, t, wp_rel);
		return;
	}
	/* a write piece failed: what of it is on the drive? */
	done = (int64_t)(zstart + wp_rel) - (int64_t)t->ext.lba;
	if (done <= (int64_t)t->piece_lba) {
		if (t->retry_same) {
			t->next_lba = t->piece_lba;
			t->stage = ZNP_ST_IO;
			if (issue_rw_piece(q, t, NVME_CMD_WRITE))
				fail_req(q, t, -EBUSY, "no submission slot");
			return;
		}
		fail_req(q, t, -EIO, "the zone's write pointer is before this write");
		return;
	}
	verify(q, t, t->piece_lba, done < (int64_t)t->ext.nlb ? (uint32_t)done : t->ext.nlb);
}

static void wp_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	const struct znp_ublk_geom *g = &q->s->g;
	struct znp_geom ng = g->ns;
	struct znp_zone z;
	uint64_t nrep;
	size_t np;

	if (res) {
		if (znp_ublk_status_verdict(res, false) == ZNP_UBLK_GONE) {
			leave_req(q, t);
			return;
		}
		if (znp_ublk_status_verdict(res, false) == ZNP_UBLK_RETRY && t->retries++ < 5) {
			query_wp(q, t);
			return;
		}
		fail_req(q, t, znp_ublk_status_errno(res), "cannot read the zone's write pointer");
		return;
	}
	ng.zdes_bytes = 0;	/* Report Zones without extensions (ZRA 0) */
	if (znp_zdesc_parse(&ng, t->zbuf, 2 * ZNP_ZDESC_SIZE, &nrep, &z, 1, &np) || np != 1 ||
	    z.start != znp_zone_start(&g->ns, t->ext.zone_no)) {
		fail_req(q, t, -EIO, "the namespace returned a malformed zone report");
		return;
	}
	if (z.cond == ZNP_ZC_FULL)
		wp_known(q, t, z.cap);
	else if (z.cond == ZNP_ZC_READONLY || z.cond == ZNP_ZC_OFFLINE || z.wp < z.start ||
		 z.wp - z.start > z.cap)
		fail_req(q, t, -EIO, "the zone is read-only or offline");
	else
		wp_known(q, t, z.wp - z.start);
}

static void verify_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct znp_ublk_geom *g = &q->s->g;
	size_t off = (size_t)t->vfrom << g->lba_shift, len = (size_t)(t->vend - t->vfrom) << g->lba_shift;
	bool same = !t->err && !memcmp(t->vbuf, (char *)t->buf + off, len);

	if (t->err) {
		fail_req(q, t, t->err, "cannot read back what an earlier attempt wrote");
		return;
	}
	if (t->inh >= 0) {
		struct znp_ublk_server *s = q->s;
		uint64_t z = t->ext.zone_no;
		struct znp_ublk_zstate *zs = &s->zs[z];
		unsigned int i;

		bool found;

		pthread_mutex_lock(&s->zlock);
		for (i = 0; i < zs->ninh && zs->inh[i].lba != t->app_lba; i++)
			;
		found = i < zs->ninh;
		if (found && same)
			znp_ublk_inh_drop(s, z, i);
		else if (found && ++zs->inh[i].misses > s->nr_queues * s->depth)
			znp_ublk_inh_drop(s, z, i);	/* no reissued request is that one */
		pthread_mutex_unlock(&s->zlock);
		t->inh = -1;
		if (!found || !same) {
			/* another request's data (or the zone moved on): place this one anew */
			if (t->ntried < ZNP_UBLK_JSLOTS)
				t->tried[t->ntried++] = t->app_lba;
			append_place(q, t);
			return;
		}
		znp_ublk_log(s, LOG_NOTICE, "ublk%d: zone %" PRIu64 ": append already on the drive "
			     "at LBA +%" PRIu64 " (a dead server's): not written again", s->dev_id,
			     z, t->app_lba);
		if (t->vend == t->ext.nlb) {
			finish_write(q, t);
			return;
		}
		znp_ublk_journal_set(s, z, t->app_lba, t->ext.nlb);
	} else if (!same && t->op == UBLK_IO_OP_ZONE_APPEND) {
		/* the zone moved on under this append (a dead server's writes landed): again */
		replace_append(q, t, t->last_wp);
		return;
	} else if (!same) {
		fail_req(q, t, -EIO, "the data at the zone's write pointer is not this write's");
		return;
	}
	t->next_lba = t->vend;
	t->stage = ZNP_ST_IO;
	if (t->next_lba == t->ext.nlb) {
		finish_write(q, t);
		return;
	}
	if (issue_rw_piece(q, t, NVME_CMD_WRITE))
		fail_req(q, t, -EBUSY, "no submission slot");
}

/*
 * An NVMe error of a write piece (WRITE, or an append placed as a write).
 * Return: true when handled (retried, reconciled, left or failed).
 */
static bool write_error(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	enum znp_ublk_verdict v = znp_ublk_status_verdict(res, true);

	if (v == ZNP_UBLK_GONE) {
		leave_req(q, t);
		return true;
	}
	if ((v == ZNP_UBLK_RETRY || v == ZNP_UBLK_CHECK_WP) && t->retries++ < 5) {
		znp_ublk_log(q->s, LOG_WARNING, "ublk%d: %s at sector %" PRIu64 ": NVMe status "
			     "0x%x, checking the zone's write pointer", q->s->dev_id,
			     op_name(t->op), t->sector, (unsigned int)res);
		t->recon = true;
		t->retry_same = v == ZNP_UBLK_RETRY;
		query_wp(q, t);
		return true;
	}
	return false;
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
	t->stage = ZNP_ST_IO;
	t->retries = 0;
	t->recon = t->retry_same = t->restart = t->owns_zone = false;
	t->inh = -1;
	t->ntried = 0;

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
static int resend(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
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

static void log_nvme_error(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	znp_ublk_log(q->s, LOG_ERR, "ublk%d: %s at sector %" PRIu64 " (+%u): namespace returned "
		     "%s%s0x%x", q->s->dev_id, op_name(t->op), t->sector, t->nr_sectors,
		     res < 0 ? "errno " : "NVMe status ", res < 0 ? "-" : "",
		     (unsigned int)(res < 0 ? -res : res));
}

/*
 * An NVMe error on a tag. Return: true when handled here (retried,
 * reconciled, left to the next server, or failed).
 */
static bool nvme_error(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	enum znp_ublk_verdict v;

	switch (t->op) {
	case UBLK_IO_OP_WRITE:
	case UBLK_IO_OP_ZONE_APPEND:
		if (write_error(q, t, res))
			return true;
		log_nvme_error(q, t, res);
		fail_req(q, t, znp_ublk_status_errno(res), "the namespace failed the write");
		return true;
	case UBLK_IO_OP_READ:
	case UBLK_IO_OP_REPORT_ZONES:
		v = znp_ublk_status_verdict(res, false);
		if (v == ZNP_UBLK_GONE) {
			t->gone = true;
		} else if (v == ZNP_UBLK_RETRY && t->retries < 5) {
			t->restart = true;	/* when the other pieces are back */
		} else if (!t->err) {
			t->err = znp_ublk_status_errno(res);
			log_nvme_error(q, t, res);
		}
		return false;
	default:
		v = znp_ublk_status_verdict(res, false);
		if (v == ZNP_UBLK_GONE) {
			leave_req(q, t);
			return true;
		}
		if (v == ZNP_UBLK_RETRY && t->retries++ < 5 && !resend(q, t))
			return true;
		log_nvme_error(q, t, res);
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
		wp_done(q, t, cqe->res);
		return;
	}
	if (t->stage == ZNP_ST_VERIFY) {
		if (cqe->res && !t->err)
			t->err = znp_ublk_status_errno(cqe->res);
		if (!t->inflight)
			verify_done(q, t);
		return;
	}
	if (cqe->res && nvme_error(q, t, cqe->res))
		return;
	if (t->inflight)
		return;
	if (t->gone) {
		leave_req(q, t);
		return;
	}
	if (t->err) {
		fail_req(q, t, t->err, "the namespace failed it");
		return;
	}
	if (t->restart) {
		/* a read (or report) met a transient error: again, whole */
		t->restart = false;
		t->retries++;
		if (t->op == UBLK_IO_OP_REPORT_ZONES) {
			issue_zmr(q, t);
			return;
		}
		t->next_lba = 0;
		issue_reads(q, t);
		return;
	}
	switch (t->op) {
	case UBLK_IO_OP_READ:
		data_out(q, t);
		return;
	case UBLK_IO_OP_WRITE:
	case UBLK_IO_OP_ZONE_APPEND:
		if (t->next_lba < t->ext.nlb) {
			if (issue_rw_piece(q, t, NVME_CMD_WRITE))
				fail_req(q, t, -EBUSY, "no submission slot");
			return;
		}
		finish_write(q, t);
		return;
	case UBLK_IO_OP_REPORT_ZONES:
		report_done(q, t);
		return;
	default:
		zone_op_done(q, t);
		znp_ublk_complete(q, t, 0, 0);
		return;
	}
}
