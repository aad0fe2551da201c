// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: REPORT_ZONES, as Zone Management Receive commands of the
 * namespace translated to struct blk_zone (ublk-map.c) in the tag's buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ublk-io.h"

void znp_ublk_issue_zmr(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
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
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
}

void znp_ublk_start_report(struct znp_ublk_queue *q, struct znp_ublk_tag *t, uint32_t nr_zones)
{
	const struct znp_ublk_geom *g = &q->s->g;
	uint64_t max = (uint64_t)g->max_sectors * 512 / sizeof(struct blk_zone);

	if (t->sector >= g->dev_sectors || !nr_zones) {
		znp_ublk_fail_req(q, t, -EINVAL, "outside the device");
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
		znp_ublk_fail_req(q, t, -ENOMEM, "out of memory");
		return;
	}
	memset(t->buf, 0, (size_t)t->rep_nr * sizeof(struct blk_zone));
	znp_ublk_issue_zmr(q, t);
}

void znp_ublk_report_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
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
		znp_ublk_fail_req(q, t, -EIO, ret ? "the namespace returned a malformed zone "
				  "report" : "the namespace reported no zone");
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
			znp_ublk_fail_req(q, t, -EIO, "invalid zone descriptor from the namespace");
			return;
		}
	}
	t->rep_done += (uint32_t)np;
	if (t->rep_done < t->rep_nr) {
		znp_ublk_issue_zmr(q, t);
		return;
	}
	/* always a copy, zero copy or not: the data is this server's, not a buffer's */
	if (znp_ublk_ucopy(q, t, true, 0, (uint32_t)(t->rep_nr * sizeof(struct blk_zone))))
		znp_ublk_fail_req(q, t, -EBUSY, "no submission slot");
}
