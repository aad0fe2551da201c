// SPDX-License-Identifier: GPL-2.0-or-later
/* ublk server: requests on a multipath head while it has no path (README.md). */
#include <errno.h>
#include <inttypes.h>

#include "ublk-io.h"

/*
 * A multipath head's generic node refuses a command with -EINVAL while no
 * path is live (nvme_ns_head_chr_uring_cmd): the command never reached a
 * controller. Every command the server sends it built and checked itself,
 * so on a head -EINVAL means just that. While a path's controller resets
 * or connects, the request waits (a timeout in the ring, the wait doubling
 * up to NOPATH_STEP_MS) and is sent again; when the head has no path left
 * (the namespace was detached, its controllers removed), or none came back
 * within NOPATH_MAX_MS, it is left to the next server as for ENODEV.
 *
 * A controller may also answer a command for a namespace detached a moment
 * ago with Invalid Field in Command (QEMU does; the spec allows it for an
 * inactive NSID) before the host has seen the change and removed the path.
 * On a head that status too waits for sysfs to show the path gone (the
 * request is then left as above), but for NOPATH_CHECK_MS only: a path
 * still there after that is a real Invalid Field, and the request fails.
 */
#define NOPATH_FIRST_MS		10
#define NOPATH_STEP_MS		1000
#define NOPATH_MAX_MS		60000
#define NOPATH_MAX_TEXT		"60 s"
#define NOPATH_CHECK_MS		5000

/* Did @res (of a command of @t) meet a head without a path, or maybe a detach? */
bool znp_ublk_is_nopath(const struct znp_ublk_queue *q, struct znp_ublk_tag *t, int res)
{
	if (!q->s->ns->ns.mpath || (res != -EINVAL && (res <= 0 || (res & 0x7ff) != 0x002)))
		return false;
	if (res == -EINVAL || !t->nopath_res)
		t->nopath_res = res;	/* "no path" outweighs "maybe detached" */
	return true;
}

static const char *path_text(enum znp_ns_path st)
{
	switch (st) {
	case ZNP_NS_PATH_LIVE: return "a path's controller is live";
	case ZNP_NS_PATH_COMING: return "a controller is resetting or connecting";
	default: return "no path left under the head (namespace detached or removed)";
	}
}

static void nopath_leave(struct znp_ublk_queue *q, struct znp_ublk_tag *t, const char *why)
{
	znp_ublk_log(q->s, LOG_ERR, "ublk%d: %s at sector %" PRIu64 " (+%u): no path to the "
		     "namespace: %s: left to the next server", q->s->dev_id,
		     znp_ublk_op_name(t->op), t->sector, t->nr_sectors, why);
	znp_ublk_leave_req(q, t);
}

/* Tag @t's commands are back and one found no path: wait, or leave it. */
void znp_ublk_nopath_wait(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	enum znp_ns_path st = znp_ns_path_state(NULL, &q->s->ns->ns);
	uint32_t ms;

	t->nopath = t->restart = false;
	if (atomic_load(&q->s->starting)) {
		/* START_DEV waits for this request with the device's mutex held: no wait */
		znp_ublk_fail_req(q, t, -EIO, "no path to the namespace while the device "
				  "starts (START_DEV waits for it: no wait for a path)");
		return;
	}
	if (st == ZNP_NS_PATH_GONE) {
		nopath_leave(q, t, path_text(st));
		return;
	}
	if (t->nopath_res != -EINVAL && t->nopath_ms >= NOPATH_CHECK_MS) {
		/* the path stayed: the controller meant the status */
		znp_ublk_log_nvme_error(q, t, t->nopath_res);
		znp_ublk_fail_req(q, t, znp_ublk_status_errno(t->nopath_res),
				  "the namespace failed it");
		return;
	}
	if (t->nopath_ms >= NOPATH_MAX_MS) {
		nopath_leave(q, t, "none came back in " NOPATH_MAX_TEXT);
		return;
	}
	ms = t->nopath_step ? 2 * t->nopath_step : NOPATH_FIRST_MS;
	if (ms > NOPATH_STEP_MS)
		ms = NOPATH_STEP_MS;
	if (!t->nopath_ms && t->nopath_res == -EINVAL)
		znp_ublk_log(q->s, LOG_WARNING, "ublk%d: %s at sector %" PRIu64 " (+%u): no path "
			     "to the namespace (%s): waiting for it", q->s->dev_id,
			     znp_ublk_op_name(t->op), t->sector, t->nr_sectors, path_text(st));
	else if (!t->nopath_ms)
		znp_ublk_log(q->s, LOG_WARNING, "ublk%d: %s at sector %" PRIu64 " (+%u): NVMe "
			     "status 0x%x on the head (detached?): waiting for its path to go, or "
			     "%u ms", q->s->dev_id, znp_ublk_op_name(t->op), t->sector,
			     t->nr_sectors, (unsigned int)t->nopath_res, NOPATH_CHECK_MS);
	t->nopath_step = ms;
	t->nopath_ms += ms;
	if (znp_ublk_timer(q, t, ms))
		nopath_leave(q, t, "no submission slot for the timer");
}

void znp_ublk_io_timer_done(struct znp_ublk_queue *q, struct znp_ublk_tag *t)
{
	enum znp_ns_path st;
	int ret = 0;

	if (t->backoff) {
		znp_ublk_retry_now(q, t);	/* a retry's wait, not a path's */
		return;
	}
	st = znp_ns_path_state(NULL, &q->s->ns->ns);

	if (st != ZNP_NS_PATH_LIVE) {
		/* still none: wait on (or leave, when it is gone or the wait too long) */
		znp_ublk_nopath_wait(q, t);
		return;
	}
	t->nopath_res = 0;	/* what the next refusal says */
	znp_ublk_log(q->s, LOG_NOTICE, "ublk%d: %s at sector %" PRIu64 " (+%u): %s after %u ms: "
		     "sending it again%s", q->s->dev_id, znp_ublk_op_name(t->op), t->sector,
		     t->nr_sectors, path_text(st), t->nopath_ms, t->stage == ZNP_ST_IO &&
		     (t->op == UBLK_IO_OP_WRITE || t->op == UBLK_IO_OP_ZONE_APPEND) ?
		     ", after checking the zone's write pointer" : "");
	if (t->stage == ZNP_ST_WP) {
		znp_ublk_query_wp(q, t);
		return;
	}
	if (t->stage == ZNP_ST_VERIFY) {
		znp_ublk_verify(q, t, t->vfrom, t->vend);
		return;
	}
	if (t->stage == ZNP_ST_FLUSH) {
		znp_ublk_finish_write(q, t);	/* its Flush again */
		return;
	}
	switch (t->op) {
	case UBLK_IO_OP_READ:
		t->err = 0;
		t->next_lba = 0;
		znp_ublk_issue_reads(q, t);
		return;
	case UBLK_IO_OP_REPORT_ZONES:
		znp_ublk_issue_zmr(q, t);
		return;
	case UBLK_IO_OP_WRITE:
	case UBLK_IO_OP_ZONE_APPEND:
		/* refused, so not applied; the write pointer says so before it goes again */
		t->recon = true;
		t->retry_same = true;
		znp_ublk_query_wp(q, t);
		return;
	default:
		ret = znp_ublk_resend(q, t);
		if (ret)
			znp_ublk_fail_req(q, t, ret, "no submission slot");
		return;
	}
}
