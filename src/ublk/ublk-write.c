// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: writes and appends through the data path (ublk-data.c), and
 * the end of every copy. The write pipeline: a write is cut into pieces of
 * equal size, as many as whole NVMe commands need; with the user copy,
 * piece k+1 is copied from the request while piece k is written (with
 * zero copy every piece is within reach at once). Part of what a request
 * becomes (ublk-io.c): it calls the data path and the ring below it.
 */
#include <errno.h>

#include "ublk-io.h"

/*
 * Pieces go to the namespace one after the other (it does not order
 * commands) and nothing is linked after an NVMe command; each step waits
 * until the tag has neither a copy nor an NVMe command in flight, so
 * retries and reconciliation (which compare the whole buffer) see every
 * byte of the request first.
 */
static void write_next(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	uint32_t shift = q->s->g.lba_shift, total = t->nr_sectors << 9;
	uint32_t piece = t->wpiece << shift, need;

	if (t->next_lba == t->ext.nlb) {
		znp_ublk_finish_write(q, t);
		return;
	}
	need = (t->next_lba + t->wpiece) << shift;
	if (need > total)
		need = total;
	if (t->copied < need) {
		/* what the next piece needs is not copied yet (an earlier copy found no SQE) */
		if (znp_ublk_data_in(q, t, t->copied, need) < 0)
			znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
		return;
	}
	if (znp_ublk_issue_rw_piece(q, t, NVME_CMD_WRITE)) {
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
		return;
	}
	/* no SQE for the copy: it is made once this piece is written */
	if (t->copied < total)
		(void)znp_ublk_data_in(q, t, t->copied,
				       total - t->copied > piece ? t->copied + piece : total);
}

/* Both ended (the piece in flight and the copy): the NVMe result of the piece. */
static void write_piece_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	uint32_t total = t->nr_sectors << 9;

	if (t->err) {
		/* the copy of the next piece failed while this one was written */
		znp_ublk_fail_req(q, t, t->err, "copy from the request failed");
		return;
	}
	if (res && t->copied < total) {
		/* the rest first: a retry or a read-back compares the whole request */
		t->held = true;
		t->held_res = res;
		if (znp_ublk_data_in(q, t, t->copied, total) < 0) {
			t->held = false;
			znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
		}
		return;
	}
	if (res && znp_ublk_nvme_error(q, t, res))
		return;
	write_next(q, t);
}

/* A write piece ended (stage ZNP_ST_IO). */
void znp_ublk_write_piece_end(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	if (t->copying) {
		t->held = true;
		t->held_res = res;
		return;
	}
	write_piece_done(q, t, res);
}

/* A copy of a write's data ended. */
static void write_copied(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int err)
{
	if (!err)
		t->copied = t->copy_end;
	if (t->inflight) {
		if (err)
			t->err = err;	/* failed once the piece in flight is back */
		return;
	}
	if (err || t->err) {
		znp_ublk_fail_req(q, t, err ? err : t->err, "copy from the request failed");
		return;
	}
	if (t->held) {
		t->held = false;
		write_piece_done(q, t, t->held_res);
		return;
	}
	write_next(q, t);
}

/* An append's data is within reach: placed by this server, one at a time per zone. */
static void write_go(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	if (znp_ublk_zone_take(q->s, t->ext.zone_no, t))
		znp_ublk_append_go(q, t);
}

void znp_ublk_write_start(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	uint32_t max = znp_ublk_cmd_lbas(q), k = (t->ext.nlb + max - 1) / max;
	uint32_t total = t->nr_sectors << 9, end = total;
	int ret;

	/*
	 * A merged 496-sector request is two full commands, a 256-sector one
	 * two halves, not 248 + 8: with the user copy, the copy of the second
	 * then hides behind a longer write of the first. A write's first
	 * piece is copied now, each next one while the one before is written.
	 */
	t->copied = 0;
	t->held = false;
	t->wpiece = k ? (t->ext.nlb + k - 1) / k : max;
	if (t->op == UBLK_IO_OP_WRITE && end > t->wpiece << q->s->g.lba_shift)
		end = t->wpiece << q->s->g.lba_shift;
	ret = znp_ublk_data_in(q, t, 0, end);
	if (ret < 0) {
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
		return;
	}
	if (!ret)
		return;		/* znp_ublk_io_copy_done() goes on */
	t->copied = total;	/* zero copy: nothing to copy */
	if (t->op == UBLK_IO_OP_WRITE)
		write_next(q, t);
	else
		write_go(q, t);
}

void znp_ublk_read_out(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	int ret = znp_ublk_data_out(q, t);

	if (ret < 0)
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
	else if (ret)
		znp_ublk_complete(q, t, (int)(t->nr_sectors << 9), 0);
}

void znp_ublk_io_copy_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t, int err)
{
	if (t->pulling) {
		/* zero copy: the request's data, pulled for a read-back */
		t->pulling = false;
		if (err) {
			znp_ublk_fail_req(q, t, err, "copy from the request failed");
			return;
		}
		t->in_buf = true;
		znp_ublk_verify(q, t, t->vfrom, t->vend);
		return;
	}
	if (t->op == UBLK_IO_OP_WRITE && !t->copy_to_kernel) {
		write_copied(q, t, err);
		return;
	}
	if (err) {
		/* committed as an error: the request never hangs on a failed copy */
		znp_ublk_fail_req(q, t, err, t->copy_to_kernel ? "copy to the request failed" :
			 "copy from the request failed");
		return;
	}
	if (t->copy_to_kernel)
		znp_ublk_complete(q, t, (int)t->copy_end, 0);
	else
		write_go(q, t);
}
