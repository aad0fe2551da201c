// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: how a request's data moves between the request and the
 * NVMe commands, one interface with two implementations:
 * - user copy (UBLK_F_USER_COPY, every kernel): a READ or WRITE on
 *   /dev/ublkcN between the request and the tag's buffer, which the NVMe
 *   commands use;
 * - zero copy (UBLK_F_SUPPORT_ZERO_COPY, 6.15 and later): the request's
 *   pages are registered in the queue's io_uring buffer table and the NVMe
 *   commands name them (IORING_URING_CMD_FIXED, buf_index, the piece's
 *   offset in the request as address): the drive DMAs to and from them.
 * Zone reports always go by user copy (the data is the server's). The rare
 * paths that compare a request's data with what the drive holds (a write
 * reconciled after a crash or a refused piece, a dead server's append)
 * pull the data into the tag's buffer by user copy first
 * (znp_ublk_data_in_buf()). Also here: the write pipeline, which copies a
 * write's next piece while the one before is written. Below this file: the
 * ring (ublk-queue.c); above it: what a request becomes (ublk-io.c).
 */
#include <errno.h>

#include "ublk-io.h"

/* One implementation of the request's data movement. */
struct data_path {
	/* an NVMe Read or Write of bytes [@off, @off + @len) of the request */
	int (*piece)(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
		     uint32_t off, uint32_t len, uint64_t slba, uint32_t cdw12);
	/* a write or append: its data within reach of the NVMe commands */
	void (*in)(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
	/* a read whose NVMe commands are done: the data in the request, then complete it */
	void (*out)(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
};

static void write_next(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
static void write_go(struct znp_ublk_queue *q, struct znp_ublk_tag *t);

/* Pieces of equal size, as many as whole commands need (set for both paths). */
static void write_pieces(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	uint32_t max = znp_ublk_cmd_lbas(q), k = (t->ext.nlb + max - 1) / max;

	/*
	 * A merged 496-sector request is two full commands, a 256-sector one
	 * two halves, not 248 + 8: with the user copy, the copy of the second
	 * then hides behind a longer write of the first.
	 */
	t->copied = 0;
	t->held = false;
	t->wpiece = k ? (t->ext.nlb + k - 1) / k : max;
}

/* User copy. */

static int ucopy_piece(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
		       uint32_t off, uint32_t len, uint64_t slba, uint32_t cdw12)
{
	return znp_ublk_nvme_cmd(q, t, opcode, (char *)t->buf + off, len, slba, cdw12, 0);
}

static void ucopy_in(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	uint32_t end = t->nr_sectors << 9;

	/* a write's first piece is copied now, each next one while the one before is written */
	if (t->op == UBLK_IO_OP_WRITE && end > t->wpiece << q->s->g.lba_shift)
		end = t->wpiece << q->s->g.lba_shift;
	if (znp_ublk_ucopy(q, t, false, 0, end))
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
}

static void ucopy_out(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	if (znp_ublk_ucopy(q, t, true, 0, t->nr_sectors << 9))
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
}

static const struct data_path user_copy = { ucopy_piece, ucopy_in, ucopy_out };

/* Zero copy. */

static int zcopy_piece(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
		       uint32_t off, uint32_t len, uint64_t slba, uint32_t cdw12)
{
	return znp_ublk_nvme_cmd_zc(q, t, opcode, off, len, slba, cdw12);
}

static void zcopy_in(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	/* every byte is within reach at once: the pipeline has nothing to copy */
	t->copied = t->nr_sectors << 9;
	if (t->op == UBLK_IO_OP_WRITE)
		write_next(q, t);
	else
		write_go(q, t);
}

static void zcopy_out(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	znp_ublk_complete(q, t, (int)(t->nr_sectors << 9), 0);
}

static const struct data_path zero_copy = { zcopy_piece, zcopy_in, zcopy_out };

static const struct data_path *dp(const struct znp_ublk_tag *t)
{
	return t->zc ? &zero_copy : &user_copy;
}

void znp_ublk_data_begin(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	t->zc = false;
	t->in_buf = false;
	t->pulling = false;
	/*
	 * Zero copy for what reaches the drive whole: a read that covers the
	 * padding after a zone's capacity (zeroes the server adds) and an
	 * all-padding read go by user copy; so does a request whose
	 * registration finds no SQE.
	 */
	if (!q->zc || !t->ext.nlb || (t->op == UBLK_IO_OP_READ && t->ext.zero_bytes))
		return;
	if (znp_ublk_buf_cmd(q, t, true))
		return;
	t->zc = true;
	t->zc_reg = true;
}

int znp_ublk_data_piece(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
			uint32_t off, uint32_t len, uint64_t slba, uint32_t cdw12)
{
	return dp(t)->piece(q, t, opcode, off, len, slba, cdw12);
}

void znp_ublk_data_in(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	write_pieces(q, t);
	dp(t)->in(q, t);
}

void znp_ublk_data_out(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	dp(t)->out(q, t);
}

bool znp_ublk_data_in_buf(struct znp_ublk_queue *q, struct znp_ublk_tag *t,
			  void (*then)(struct znp_ublk_queue *q, struct znp_ublk_tag *t))
{
	if (!t->zc || t->in_buf)
		return true;	/* user copy: the whole request is in buf before any compare */
	t->pulling = true;
	t->pulled = then;
	if (znp_ublk_ucopy(q, t, false, 0, t->nr_sectors << 9)) {
		t->pulling = false;
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
	}
	return false;
}

/*
 * The write pipeline: piece k+1 is copied from the request while piece k
 * is written. Pieces go to the namespace one after the other (it does not
 * order commands) and nothing is linked after an NVMe command; each step
 * waits until the tag has neither a copy nor an NVMe command in flight, so
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
		if (znp_ublk_ucopy(q, t, false, t->copied, need))
			znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
		return;
	}
	if (znp_ublk_issue_rw_piece(q, t, NVME_CMD_WRITE)) {
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
		return;
	}
	/* no SQE for the copy: it is made once this piece is written */
	if (t->copied < total)
		(void)znp_ublk_ucopy(q, t, false, t->copied,
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
		if (znp_ublk_ucopy(q, t, false, t->copied, total)) {
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

/* An append's data is in the tag's buffer: placed by this server, one at a time per zone. */
static void write_go(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	if (znp_ublk_zone_take(q->s, t->ext.zone_no, t))
		znp_ublk_append_go(q, t);
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
		t->pulled(q, t);
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
