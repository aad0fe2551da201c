// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: taking back a device whose server is gone (UBLK_F_USER_RECOVERY):
 * only one made for this namespace and geometry, only once it is quiesced.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ublk-priv.h"

/*
 * How long a new server waits for the driver to quiesce the device of a
 * dead server. It notices the death at once unless every tag of a queue
 * was held by the dead server (saturated): nothing can be cancelled then,
 * and only the request timeout (the block queue's io_timeout, 30 s unless
 * changed in sysfs) quiesces it. So the wait goes past that timeout, with
 * 15 s to spare (the timer's rounding and the quiesce itself), and at
 * least 30 s.
 */
#define RECOVERY_WAIT_MIN_MS	30000
#define RECOVERY_WAIT_SPARE_MS	15000

static int recovery_wait_ms(int dev_id)
{
	char path[96];
	unsigned long ms = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/ublkb%d/queue/io_timeout", dev_id);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%lu", &ms) != 1)
			ms = 0;
		fclose(f);
	}
	if (ms > 3600000)
		ms = 3600000;
	ms += RECOVERY_WAIT_SPARE_MS;
	return ms < RECOVERY_WAIT_MIN_MS ? RECOVERY_WAIT_MIN_MS : (int)ms;
}

static int params_match(struct znp_ublk_server *s, const struct ublk_params *have)
{
	struct ublk_params want;

	znp_ublk_fill_params(&s->g, &want);
	if (!(have->types & UBLK_PARAM_TYPE_BASIC) || !(have->types & UBLK_PARAM_TYPE_ZONED))
		return 0;
	return have->basic.logical_bs_shift == want.basic.logical_bs_shift &&
	       have->basic.chunk_sectors == want.basic.chunk_sectors &&
	       have->basic.dev_sectors == want.basic.dev_sectors &&
	       have->basic.max_sectors >= want.basic.max_sectors &&
	       have->zoned.max_zone_append_sectors <= want.zoned.max_zone_append_sectors &&
	       have->zoned.max_open_zones == want.zoned.max_open_zones &&
	       have->zoned.max_active_zones == want.zoned.max_active_zones;
}

/*
 * The device @s->dev_id, as this server makes them, quiesced: its server
 * is gone. @waited: milliseconds spent waiting for the driver to notice.
 * Return: 0 or -errno (logged).
 */
static int recover_quiesced(struct znp_ublk_server *s, int *waited)
{
	int wait_ms = recovery_wait_ms(s->dev_id);
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int dev_id = s->dev_id;
	int ret;

	ret = znp_ublk_ctrl(s, UBLK_U_CMD_GET_DEV_INFO, 0, &s->info, sizeof(s->info));
	if (ret) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: GET_DEV_INFO failed: %s", dev_id, strerror(-ret));
		return ret;
	}
	if ((s->info.flags & ZNP_UBLK_F_NEEDED) != ZNP_UBLK_F_NEEDED) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: refused: not a device of this server "
			     "(flags 0x%llx)", dev_id, (unsigned long long)s->info.flags);
		return -EINVAL;
	}
	/*
	 * The driver keeps what the creating server stored: the namespace's
	 * identity and geometry. Another namespace (a reused id, a stale
	 * record) is never attached under this device's users.
	 */
	if (s->info.ublksrv_flags != s->fingerprint) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: refused: the device serves another namespace "
			     "or geometry than %s (fingerprint %016llx, this namespace %016llx)",
			     dev_id, s->ns->path, (unsigned long long)s->info.ublksrv_flags,
			     (unsigned long long)s->fingerprint);
		return -EINVAL;
	}
	znp_ublk_log_features(s, s->info.flags);
	/*
	 * The driver notices a dead server with some delay (its monitor work):
	 * wait while the device is live but the recorded server is gone.
	 */
	while (s->info.state == UBLK_S_DEV_LIVE && *waited < wait_ms &&
	       s->info.ublksrv_pid > 0 && kill(s->info.ublksrv_pid, 0) && errno == ESRCH) {
		nanosleep(&ts, NULL);
		*waited += 100;
		ret = znp_ublk_ctrl(s, UBLK_U_CMD_GET_DEV_INFO, 0, &s->info, sizeof(s->info));
		if (ret)
			break;
	}
	if (ret) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: GET_DEV_INFO failed: %s", dev_id, strerror(-ret));
		return ret;
	}
	if (s->info.state != UBLK_S_DEV_QUIESCED) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: refused: state %s, not quiesced (its server "
			     "is alive, or the device is not recoverable)%s", dev_id,
			     s->info.state == UBLK_S_DEV_LIVE ? "live" : "dead",
			     *waited >= wait_ms ? " after the wait for the driver" : "");
		return -EBUSY;
	}
	return 0;
}

int znp_ublk_server_recover(struct znp_dev *ns, int dev_id, const struct znp_ublk_opts *o,
			    struct znp_ublk_server **out)
{
	struct znp_ublk_server *s;
	struct ublk_params p;
	int ret, waited = 0;

	*out = NULL;
	if (dev_id < 0)
		return -EINVAL;
	ret = znp_ublk_server_alloc(ns, o, &s);
	if (ret) {
		znp_ublk_server_free(s);
		return ret;
	}
	s->dev_id = dev_id;
	ret = recover_quiesced(s, &waited);
	if (ret) {
		znp_ublk_server_free(s);
		return ret;
	}
	memset(&p, 0, sizeof(p));
	p.len = sizeof(p);
	ret = znp_ublk_ctrl(s, UBLK_U_CMD_GET_PARAMS, 0, &p, sizeof(p));
	if (ret || !params_match(s, &p)) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: refused: its parameters do not match %s%s%s",
			     dev_id, ns->path, ret ? ": " : "", ret ? strerror(-ret) : "");
		znp_ublk_server_free(s);
		return ret ? ret : -EINVAL;
	}
	/* a device made with larger requests (an older default): serve them whole */
	s->g.max_sectors = p.basic.max_sectors;
	s->nr_queues = s->info.nr_hw_queues;
	s->depth = s->info.queue_depth;
	if (!s->nr_queues || s->nr_queues > ZNP_UBLK_MAX_QUEUES || !s->depth ||
	    s->depth > ZNP_UBLK_MAX_DEPTH || s->info.max_io_buf_bytes < s->g.max_sectors * 512u) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: refused: queue layout %ux%u out of range",
			     dev_id, s->nr_queues, s->depth);
		znp_ublk_server_free(s);
		return -EINVAL;
	}
	/*
	 * What may fail comes before START_USER_RECOVERY (sent by run(), once
	 * the queues are set up): after it, the device is recoverable again
	 * only once every tag is fetched.
	 */
	ret = znp_ublk_zones_init(s, true);
	if (ret) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: append journal: %s", dev_id, strerror(-ret));
		znp_ublk_server_free(s);
		return ret;
	}
	s->recover_waited = waited;
	s->recover_wait_ms = recovery_wait_ms(dev_id);
	s->recovering = true;
	s->added = true;	/* ours now: a stop through this server deletes it */
	znp_ublk_log(s, LOG_NOTICE, "ublk%d: recovering for %s", dev_id, ns->path);
	*out = s;
	return 0;
}
