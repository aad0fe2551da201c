// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: writes reconciled with the drive and appends placed by the
 * server. A write piece the drive refused (or that may have landed before
 * a crash or a reset) is checked against the zone's write pointer and read
 * back; an append is sent as a write at the write pointer the server
 * tracks, one per zone at a time, its place recorded in the journal
 * (ublk-zone.c) and matched with a dead server's records. The argument:
 * README.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ublk-io.h"

static void *vbuf(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	if (!t->vbuf && posix_memalign(&t->vbuf, ZNP_UBLK_PAGE, (size_t)q->s->g.max_sectors * 512))
		t->vbuf = NULL;
	return t->vbuf;
}

/* Zone Management Receive of the tag's zone: one descriptor, no extension. */
void znp_ublk_query_wp(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct znp_ublk_geom *g = &q->s->g;

	if (!t->zbuf && posix_memalign((void **)&t->zbuf, 64, 2 * ZNP_ZDESC_SIZE))
		t->zbuf = NULL;
	if (!t->zbuf) {
		znp_ublk_fail_req(q, t, -ENOMEM, "out of memory");
		return;
	}
	t->stage = ZNP_ST_WP;
	memset(t->zbuf, 0, 2 * ZNP_ZDESC_SIZE);
	if (znp_ublk_nvme_cmd(q, t, NVME_CMD_ZMR, t->zbuf, 2 * ZNP_ZDESC_SIZE,
			      znp_zone_start(&g->ns, t->ext.zone_no), 2 * ZNP_ZDESC_SIZE / 4 - 1,
			      NVME_ZMR_PARTIAL))
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
}

/* Read back LBAs [@from, @end) (relative to ext.lba) to compare with the request. */
void znp_ublk_verify(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t from, uint32_t end)
{
	const struct znp_ublk_geom *g = &q->s->g;
	uint32_t at = from, n;
	int ret;

	t->vfrom = from;
	t->vend = end;
	/* zero copy: the request's data is pulled into the tag's buffer first (then again here) */
	ret = znp_ublk_data_in_buf(q, t);
	if (ret <= 0) {
		if (ret)
			znp_ublk_fail_req(q, t, ret, "no submission slot");
		return;
	}

	if (!vbuf(q, t)) {
		znp_ublk_fail_req(q, t, -ENOMEM, "out of memory");
		return;
	}
	t->stage = ZNP_ST_VERIFY;
	t->vfrom = from;
	t->vend = end;
	t->err = 0;
	for (; at < end; at += n) {
		n = end - at < znp_ublk_cmd_lbas(q) ? end - at : znp_ublk_cmd_lbas(q);
		if (znp_ublk_nvme_cmd(q, t, NVME_CMD_READ,
				      (char *)t->vbuf + ((size_t)(at - from) << g->lba_shift),
				      n << g->lba_shift, t->ext.lba + at, n - 1, 0)) {
			t->err = -EBUSY;
			break;
		}
	}
	if (t->err && !t->inflight)
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
}

void znp_ublk_release_zone(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	struct znp_ublk_tag *next;

	if (!t->owns_zone)
		return;
	t->owns_zone = false;
	next = znp_ublk_zone_release(q, t->ext.zone_no);
	if (next)
		znp_ublk_append_go(q, next);
}

void znp_ublk_finish_write(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct znp_ublk_geom *g = &q->s->g;
	uint64_t z = t->ext.zone_no, zstart = znp_zone_start(&g->ns, z);

	if ((t->flags & UBLK_IO_F_FUA) && t->vmatched && !t->flushed) {
		/*
		 * What read-back found was written by an earlier attempt whose
		 * FUA command may never have completed: it may sit in the
		 * drive's volatile cache. A Flush makes it durable before the
		 * request is answered as FUA promises.
		 */
		t->stage = ZNP_ST_FLUSH;
		if (znp_ublk_nvme_cmd(q, t, NVME_CMD_FLUSH, NULL, 0, 0, 0, 0))
			znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
		return;
	}

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
	znp_ublk_test_point(q, ZNP_TP_APPEND_DONE);
	znp_ublk_complete(q, t, 0, z * g->zone_sectors + (t->app_lba << (g->lba_shift - 9)));
	znp_ublk_append_completed(q, t);
}

void znp_ublk_flush_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	if (res) {
		enum znp_ublk_verdict v = znp_ublk_status_verdict(res, false);

		if (v == ZNP_UBLK_GONE) {
			znp_ublk_leave_req(q, t);
			return;
		}
		if (znp_ublk_is_nopath(q, t, res)) {
			znp_ublk_nopath_wait(q, t);
			return;
		}
		if (v == ZNP_UBLK_RETRY && t->retries++ < ZNP_UBLK_RETRIES) {
			t->stage = ZNP_ST_IO;
			znp_ublk_retry_later(q, t, res, ZNP_RB_FINISH);
			return;
		}
		znp_ublk_log_nvme_error(q, t, res);
		znp_ublk_fail_req(q, t, znp_ublk_status_errno(res),
				  "cannot flush what an earlier attempt wrote");
		return;
	}
	t->flushed = true;
	t->stage = ZNP_ST_IO;
	znp_ublk_finish_write(q, t);
}

void znp_ublk_append_answered(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	znp_ublk_journal_commit(q, t);
	znp_ublk_release_zone(q, t);
}

void znp_ublk_append_completed(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	if (q->abandon) {
		/*
		 * No commit goes to the driver: the request comes again to the
		 * next server, which needs the record to find this append on
		 * the drive, and no later append may take the record's slot.
		 */
		return;
	}
	if (t->commit_deferred) {
		/* the record goes, and the zone is handed on, once the commit is sent */
		t->jzone = t->ext.zone_no + 1;
		return;
	}
	znp_ublk_append_answered(q, t);
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
		znp_ublk_verify(q, t, 0, wp - lba < t->ext.nlb ? (uint32_t)(wp - lba) : t->ext.nlb);
		return;
	}
	pthread_mutex_unlock(&s->zlock);
	t->inh = -1;
	if (wp + t->ext.nlb > cap) {
		znp_ublk_fail_req(q, t, -EIO, "the zone is full");
		return;
	}
	t->app_lba = wp;
	t->ext.lba = zstart + wp;
	t->next_lba = 0;
	t->stage = ZNP_ST_IO;
	znp_ublk_journal_set(s, t, wp, t->ext.nlb);
	if (znp_ublk_issue_rw_piece(q, t, NVME_CMD_WRITE))
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
	else
		znp_ublk_test_point(q, ZNP_TP_PLACED);
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
		znp_ublk_query_wp(q, t);
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
			if (znp_ublk_issue_rw_piece(q, t, NVME_CMD_WRITE))
				znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
			return;
		}
		znp_ublk_fail_req(q, t, -EIO, "the zone's write pointer is before this write");
		return;
	}
	znp_ublk_verify(q, t, t->piece_lba,
			done < (int64_t)t->ext.nlb ? (uint32_t)done : t->ext.nlb);
}

void znp_ublk_wp_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	const struct znp_ublk_geom *g = &q->s->g;
	struct znp_geom ng = g->ns;
	struct znp_zone z;
	uint64_t nrep;
	size_t np;

	if (res) {
		if (znp_ublk_status_verdict(res, false) == ZNP_UBLK_GONE) {
			znp_ublk_leave_req(q, t);
			return;
		}
		if (znp_ublk_is_nopath(q, t, res)) {
			znp_ublk_nopath_wait(q, t);
			return;
		}
		if (znp_ublk_status_verdict(res, false) == ZNP_UBLK_RETRY &&
		    t->retries++ < ZNP_UBLK_RETRIES) {
			znp_ublk_retry_later(q, t, res, ZNP_RB_WP);
			return;
		}
		znp_ublk_fail_req(q, t, znp_ublk_status_errno(res),
				  "cannot read the zone's write pointer");
		return;
	}
	ng.zdes_bytes = 0;	/* Report Zones without extensions (ZRA 0) */
	if (znp_zdesc_parse(&ng, t->zbuf, 2 * ZNP_ZDESC_SIZE, &nrep, &z, 1, &np) || np != 1 ||
	    z.start != znp_zone_start(&g->ns, t->ext.zone_no)) {
		znp_ublk_fail_req(q, t, -EIO, "the namespace returned a malformed zone report");
		return;
	}
	if (z.cond == ZNP_ZC_FULL)
		wp_known(q, t, z.cap);
	else if (z.cond == ZNP_ZC_READONLY || z.cond == ZNP_ZC_OFFLINE || z.wp < z.start ||
		 z.wp - z.start > z.cap)
		znp_ublk_fail_req(q, t, -EIO, "the zone is read-only or offline");
	else
		wp_known(q, t, z.wp - z.start);
}

void znp_ublk_verify_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	const struct znp_ublk_geom *g = &q->s->g;
	size_t off = (size_t)t->vfrom << g->lba_shift, len = (size_t)(t->vend - t->vfrom) << g->lba_shift;
	bool same = !t->err && !memcmp(t->vbuf, (char *)t->buf + off, len);

	if (same && len)
		t->vmatched = true;

	if (t->err) {
		znp_ublk_fail_req(q, t, t->err, "cannot read back what an earlier attempt wrote");
		return;
	}
	if (t->inh >= 0) {
		struct znp_ublk_server *s = q->s;
		uint64_t z = t->ext.zone_no;
		struct znp_ublk_zstate *zs = &s->zs[z];
		unsigned int i;

		bool found;

		if (same)
			/*
			 * This append takes the record over (its own slot: it owns
			 * the zone) before the inherited one goes: a kill between
			 * the two leaves it twice, never not at all.
			 */
			znp_ublk_journal_set(s, t, t->app_lba, t->ext.nlb);
		pthread_mutex_lock(&s->zlock);
		for (i = 0; i < zs->ninh && zs->inh[i].lba != t->app_lba; i++)
			;
		found = i < zs->ninh;
		if (found && same) {
			znp_ublk_inh_drop(s, z, i);
		} else if (found && ++zs->inh[i].misses > s->nr_queues * s->depth) {
			znp_ublk_log(s, LOG_NOTICE, "ublk%d: zone %" PRIu64 ": the dead server's "
				     "append record at LBA +%" PRIu64 " matched none of %u reissued "
				     "appends: its request was answered, the record goes", s->dev_id,
				     z, zs->inh[i].lba, zs->inh[i].misses);
			znp_ublk_inh_drop(s, z, i);	/* no reissued request is that one */
		}
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
			znp_ublk_finish_write(q, t);
			return;
		}
	} else if (!same && t->op == UBLK_IO_OP_ZONE_APPEND) {
		/* the zone moved on under this append (a dead server's writes landed): again */
		replace_append(q, t, t->last_wp);
		return;
	} else if (!same) {
		znp_ublk_fail_req(q, t, -EIO,
				  "the data at the zone's write pointer is not this write's");
		return;
	}
	t->next_lba = t->vend;
	t->stage = ZNP_ST_IO;
	if (t->next_lba == t->ext.nlb) {
		znp_ublk_finish_write(q, t);
		return;
	}
	if (znp_ublk_issue_rw_piece(q, t, NVME_CMD_WRITE))
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
}

/*
 * An NVMe error of a write piece (WRITE, or an append placed as a write).
 * Return: true when handled (retried, reconciled, left or failed).
 */
bool znp_ublk_write_error(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	enum znp_ublk_verdict v = znp_ublk_status_verdict(res, true);

	if (znp_ublk_is_nopath(q, t, res)) {
		znp_ublk_nopath_wait(q, t);	/* one piece at a time: nothing else in flight */
		return true;
	}
	if (v == ZNP_UBLK_GONE) {
		znp_ublk_leave_req(q, t);
		return true;
	}
	if ((v == ZNP_UBLK_RETRY || v == ZNP_UBLK_CHECK_WP) && t->retries++ < ZNP_UBLK_RETRIES) {
		znp_ublk_log(q->s, LOG_WARNING, "ublk%d: %s at sector %" PRIu64 ": NVMe status "
			     "0x%x, checking the zone's write pointer%s", q->s->dev_id,
			     znp_ublk_op_name(t->op), t->sector, (unsigned int)res,
			     v == ZNP_UBLK_RETRY ? " after the retry delay" : "");
		t->recon = true;
		t->retry_same = v == ZNP_UBLK_RETRY;
		if (v == ZNP_UBLK_RETRY)
			znp_ublk_retry_later(q, t, res, ZNP_RB_WP);	/* transient: wait first */
		else
			znp_ublk_query_wp(q, t);
		return true;
	}
	return false;
}

/* Zone Send Action @zsa on the zone starting at the request's sector. */
