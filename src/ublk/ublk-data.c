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
 * (znp_ublk_data_in_buf()). This file calls only the ring below it
 * (ublk-queue.c); a copy's end comes back through the ring's dispatch
 * (znp_ublk_io_copy_done(), ublk-write.c). Above it: what a request becomes
 * (ublk-io.c) and the write pipeline (ublk-write.c).
 */
#include <errno.h>

#include "ublk-io.h"

/* One implementation of the request's data movement. */
struct data_path {
	/* an NVMe Read or Write of bytes [@off, @off + @len) of the request */
	int (*piece)(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
		     uint32_t off, uint32_t len, uint64_t slba, uint32_t cdw12);
	/* bytes [@off, @end) of a write's data within reach of the NVMe commands */
	int (*in)(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t off, uint32_t end);
	/* a read's data, read by its NVMe commands, into the request */
	int (*out)(struct znp_ublk_queue *q, struct znp_ublk_tag *t);
};

/* User copy: the tag's buffer, copied from and to the request. */

static int ucopy_piece(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
		       uint32_t off, uint32_t len, uint64_t slba, uint32_t cdw12)
{
	return znp_ublk_nvme_cmd(q, t, opcode, (char *)t->buf + off, len, slba, cdw12, 0);
}

static int ucopy_in(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t off, uint32_t end)
{
	return znp_ublk_ucopy(q, t, false, off, end) ? -EBUSY : 0;
}

static int ucopy_out(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	return znp_ublk_ucopy(q, t, true, 0, t->nr_sectors << 9) ? -EBUSY : 0;
}

static const struct data_path user_copy = { ucopy_piece, ucopy_in, ucopy_out };

/* Zero copy: the request's own pages, registered at ZNP_UBLK_ZC_INDEX(). */

static int zcopy_piece(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint8_t opcode,
		       uint32_t off, uint32_t len, uint64_t slba, uint32_t cdw12)
{
	return znp_ublk_nvme_cmd_zc(q, t, opcode, off, len, slba, cdw12);
}

static int zcopy_in(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t off, uint32_t end)
{
	(void)q;
	(void)t;
	(void)off;
	(void)end;
	return 1;	/* every byte is within reach already */
}

static int zcopy_out(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	(void)q;
	(void)t;
	return 1;	/* the NVMe commands read into the request's pages */
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

int znp_ublk_data_in(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t off, uint32_t end)
{
	return dp(t)->in(q, t, off, end);
}

int znp_ublk_data_out(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	return dp(t)->out(q, t);
}

int znp_ublk_data_in_buf(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	if (!t->zc || t->in_buf)
		return 1;	/* user copy: the whole request is in buf before any compare */
	if (znp_ublk_ucopy(q, t, false, 0, t->nr_sectors << 9))
		return -EBUSY;
	t->pulling = true;
	return 0;
}
