// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: control commands (/dev/ublk-control through io_uring
 * uring_cmd with 128-byte SQEs), adding and deleting devices (taking one
 * back: ublk-recover.c; the running device: ublk-run.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "nvme-adapter.h"
#include "ublk-priv.h"

#define CTRL_PATH	"/dev/ublk-control"

/* Open the control node and a small SQE128 ring on it. */
static int ctrl_open(int *fd, struct io_uring *ring)
{
	int ret;

	*fd = open(CTRL_PATH, O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	ret = io_uring_queue_init(4, ring, IORING_SETUP_SQE128);
	if (ret) {
		close(*fd);
		*fd = -1;
	}
	return ret;
}

static int ctrl_cmd(struct io_uring *ring, int fd, uint32_t op, uint32_t dev_id,
		    uint64_t data0, void *buf, uint32_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct ublksrv_ctrl_cmd *c;
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	memset(sqe, 0, 2 * sizeof(*sqe));	/* SQE128 */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = op;
	c = (struct ublksrv_ctrl_cmd *)sqe->cmd;
	c->dev_id = dev_id;
	c->queue_id = (uint16_t)-1;
	c->addr = (uint64_t)(uintptr_t)buf;
	c->len = (uint16_t)len;
	c->data[0] = data0;
	ret = io_uring_submit(ring);
	if (ret < 0)
		return ret;
	/* the argument buffer must live until the completion: wait for it */
	do
		ret = io_uring_wait_cqe(ring, &cqe);
	while (ret == -EINTR);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

int znp_ublk_ctrl(struct znp_ublk_server *s, uint32_t op, uint64_t data0, void *buf, uint32_t len)
{
	return ctrl_cmd(&s->ctrl, s->ctrl_fd, op, (uint32_t)s->dev_id, data0, buf, len);
}

/* One control command on a temporary ring (no server). */
static int ctrl_once(uint32_t op, uint32_t dev_id, uint64_t data0, void *buf, uint32_t len)
{
	struct io_uring ring;
	int fd, ret;

	ret = ctrl_open(&fd, &ring);
	if (ret)
		return ret;
	ret = ctrl_cmd(&ring, fd, op, dev_id, data0, buf, len);
	io_uring_queue_exit(&ring);
	close(fd);
	return ret;
}

int znp_ublk_probe(uint64_t *features)
{
	uint64_t f = 0;
	int ret;

	ret = ctrl_once(UBLK_U_CMD_GET_FEATURES, (uint32_t)-1, 0, &f, sizeof(f));
	if (features)
		*features = ret ? 0 : f;
	if (ret == -EINVAL || ret == -EOPNOTSUPP)
		return -EOPNOTSUPP;	/* a driver older than GET_FEATURES (< 6.5) */
	if (ret)
		return ret;
	return (f & ZNP_UBLK_F_NEEDED) == ZNP_UBLK_F_NEEDED ? 0 : -EOPNOTSUPP;
}

/*
 * Zero copy for a new device: the driver offers UBLK_F_SUPPORT_ZERO_COPY
 * (6.15 and later) and the user copy was not asked for. Not
 * UBLK_F_AUTO_BUF_REG: with it the driver reads COMMIT_AND_FETCH_REQ's addr
 * as the next request's buffer index, and a zoned device's Zone Append
 * returns its sector in that same field (README.md).
 */
bool znp_ublk_zero_copy_offered(const struct znp_ublk_server *s)
{
	return (s->features & UBLK_F_SUPPORT_ZERO_COPY) && !s->o.user_copy;
}

int znp_ublk_geom_from_dev(struct znp_dev *ns, struct znp_ublk_geom *g, const char **why)
{
	struct nvme_zns_id_ctrl zid;
	uint32_t zasl = 0;
	int ret;

	if (ns->kind != ZNP_DEV_NVME_CHAR && ns->kind != ZNP_DEV_NVME_BLOCK) {
		*why = "not an NVMe namespace: the ublk server drives NVMe namespaces";
		return -ENODEV;
	}
	if (!ns->is_zoned) {
		*why = "not a zoned namespace";
		return -EMEDIUMTYPE;
	}
	/* VWC: the probe's Identify Controller (struct znp_geom), not sent again */
	ret = znp_nvme_zns_identify_ctrl(ns->fd, &zid);
	if (ret) {
		*why = "ZNS Identify Controller failed";
		return ret;
	}
	if (zid.zasl)		/* in units of the minimum page size (4 KiB assumed, as MDTS) */
		zasl = zid.zasl >= 19 ? UINT32_C(1) << 31 : UINT32_C(4096) << zid.zasl;
	return znp_ublk_geom_compute(&ns->geom, zasl, ns->geom.vwc, g, why);
}

int znp_ublk_server_alloc(struct znp_dev *ns, const struct znp_ublk_opts *o,
			  struct znp_ublk_server **out)
{
	struct znp_ublk_server *s;
	const char *why = NULL;
	int ret;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ns = ns;
	s->o = *o;
	s->ctrl_fd = s->cdev_fd = s->efd = s->qefd = s->pefd = -1;
	s->dev_id = o->dev_id;
	s->efd = eventfd(0, EFD_CLOEXEC);
	s->qefd = eventfd(0, EFD_CLOEXEC);
	s->pefd = eventfd(0, EFD_CLOEXEC);
	if (s->efd < 0 || s->qefd < 0 || s->pefd < 0) {
		ret = -errno;
		if (s->efd >= 0)
			close(s->efd);
		if (s->qefd >= 0)
			close(s->qefd);
		if (s->pefd >= 0)
			close(s->pefd);
		free(s);
		return ret;
	}
	pthread_mutex_init(&s->log_lock, NULL);
#ifdef ZNP_TEST_HOOKS
	s->test_stop_at = getenv("ZNP_TEST_UBLK_STOP_AT");
#endif
	*out = s;
	if (o->geom)
		s->g = *o->geom;
	ret = o->geom ? 0 : znp_ublk_geom_from_dev(ns, &s->g, &why);
	if (ret) {
		znp_ublk_log(s, LOG_ERR, "%s: refused: %s", ns->path, why);
		return ret;
	}
	s->fingerprint = znp_ublk_fingerprint(&ns->ns, &s->g.ns);
	/* what the driver offers beyond what is needed (zero copy): logged at start */
	znp_ublk_probe(&s->features);
	ret = ctrl_open(&s->ctrl_fd, &s->ctrl);
	if (ret) {
		znp_ublk_log(s, LOG_ERR, "%s: %s", CTRL_PATH, strerror(-ret));
		return ret;
	}
	s->ctrl_ok = true;
	return 0;
}

void znp_ublk_fill_params(const struct znp_ublk_geom *g, struct ublk_params *p)
{
	memset(p, 0, sizeof(*p));
	p->len = sizeof(*p);
	p->types = UBLK_PARAM_TYPE_BASIC | UBLK_PARAM_TYPE_ZONED;
	p->basic.attrs = g->volatile_cache ? UBLK_ATTR_VOLATILE_CACHE | UBLK_ATTR_FUA : 0;
	p->basic.logical_bs_shift = (uint8_t)g->lba_shift;
	p->basic.physical_bs_shift = (uint8_t)g->lba_shift;
	p->basic.io_min_shift = (uint8_t)g->lba_shift;
	/*
	 * No optimal I/O size, as the NVMe driver reports a namespace without
	 * NOWS: 2^0 bytes, which the block layer rounds down to 0. One LBA
	 * here made 7.x's btrfs size its writeback bios by it (io_opt, else
	 * max_sectors): 4 KiB zone appends.
	 */
	p->basic.io_opt_shift = 0;
	p->basic.max_sectors = g->max_sectors;
	p->basic.chunk_sectors = (uint32_t)g->zone_sectors;
	p->basic.dev_sectors = g->dev_sectors;
	p->zoned.max_open_zones = g->max_open;
	p->zoned.max_active_zones = g->max_active;
	p->zoned.max_zone_append_sectors = g->max_append_sectors;
}

const char *znp_ublk_flag_names(uint64_t flags, char *buf, size_t size)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
		{ ZNP_UBLK_F_SUPPORT_ZERO_COPY, "zero-copy" },
		{ 1ULL << 1, "comp-in-task" },
		{ 1ULL << 2, "need-get-data" },
		{ ZNP_UBLK_F_USER_RECOVERY, "user-recovery" },
		{ 1ULL << 4, "recovery-reissue" },
		{ 1ULL << 5, "unprivileged" },
		{ ZNP_UBLK_F_CMD_IOCTL_ENCODE, "ioctl-encode" },
		{ ZNP_UBLK_F_USER_COPY, "user-copy" },
		{ ZNP_UBLK_F_ZONED, "zoned" },
		{ 1ULL << 9, "recovery-fail-io" },
		{ 1ULL << 10, "update-size" },
		{ ZNP_UBLK_F_AUTO_BUF_REG, "auto-buf-reg" },
		{ ZNP_UBLK_F_QUIESCE, "quiesce" },
		{ 1ULL << 13, "per-io-daemon" },
		{ 1ULL << 14, "buf-reg-off-daemon" },
		{ 1ULL << 15, "batch-io" },
		{ 1ULL << 16, "integrity" },
		{ ZNP_UBLK_F_SAFE_STOP_DEV, "safe-stop" },
		{ ZNP_UBLK_F_NO_AUTO_PART_SCAN, "no-part-scan" },
	};
	size_t len = 0;
	unsigned int i;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < ZNP_ARRAY_SIZE(names); i++) {
		if (!(flags & names[i].bit))
			continue;
		flags &= ~names[i].bit;
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s",
					len ? " " : "", names[i].name);
	}
	if (flags)
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s0x%" PRIx64,
					len ? " " : "", flags);
	(void)len;
	return buf;
}

/*
 * The features in use, once, at ADD_DEV: what the device was added with as
 * the driver answered (it adds bits of its own, such as safe-stop on 7.x),
 * and what the driver offers (GET_FEATURES).
 */
void znp_ublk_log_features(struct znp_ublk_server *s, uint64_t flags)
{
	char used[256];

	znp_ublk_log(s, LOG_INFO, "ublk%d: features: %s (driver offers 0x%" PRIx64 ")",
		     (int)s->info.dev_id, znp_ublk_flag_names(flags, used, sizeof(used)),
		     s->features);
}

int znp_ublk_server_create(struct znp_dev *ns, const struct znp_ublk_opts *o,
			   struct znp_ublk_server **out)
{
	struct znp_ublk_server *s;
	struct ublksrv_ctrl_dev_info *info;
	struct ublk_params p;
	int ret;

	*out = NULL;
	if (o->nr_queues > ZNP_UBLK_MAX_QUEUES || o->queue_depth > ZNP_UBLK_MAX_DEPTH ||
	    o->dev_id < -1)
		return -EINVAL;
	ret = znp_ublk_server_alloc(ns, o, &s);
	if (ret) {
		znp_ublk_server_free(s);
		return ret;
	}
	info = &s->info;
	/* one queue per CPU unless asked; the driver clamps it to its CPU count */
	info->nr_hw_queues = (uint16_t)(o->nr_queues ? o->nr_queues : znp_ublk_default_queues());
	info->queue_depth = (uint16_t)(o->queue_depth ? o->queue_depth : ZNP_UBLK_DEF_DEPTH);
	info->max_io_buf_bytes = s->g.max_sectors * 512u;
	info->dev_id = o->dev_id < 0 ? UINT32_MAX : (uint32_t)o->dev_id;
	info->ublksrv_pid = getpid();
	/* reissue: no request fails across a restart; see README.md for why none doubles */
	info->flags = UBLK_F_ZONED | UBLK_F_USER_COPY | UBLK_F_USER_RECOVERY |
		      UBLK_F_USER_RECOVERY_REISSUE | UBLK_F_CMD_IOCTL_ENCODE;
	/*
	 * where the driver offers them (GET_FEATURES): no partition scan at
	 * start; QUIESCE_DEV for parking (ublk-run.c; it needs user recovery)
	 */
	info->flags |= s->features & ZNP_UBLK_F_OPTIONAL;
	/* beside the user copy, which zone reports (and any later server) use */
	if (znp_ublk_zero_copy_offered(s))
		info->flags |= UBLK_F_SUPPORT_ZERO_COPY;
	/* kept by the driver for the server: what a recovery must find again */
	info->ublksrv_flags = s->fingerprint;
	s->dev_id = (int)info->dev_id;
	ret = znp_ublk_ctrl(s, UBLK_U_CMD_ADD_DEV, 0, info, sizeof(*info));
	if (ret) {
		znp_ublk_log(s, LOG_ERR, "%s: ADD_DEV failed: %s", ns->path, strerror(-ret));
		znp_ublk_server_free(s);
		return ret;
	}
	/* the kernel rewrites info (dev id, clamped queues and buffer size) */
	znp_ublk_log_features(s, info->flags);
	s->added = true;
	s->del_on_free = true;
	s->dev_id = (int)info->dev_id;
	s->nr_queues = info->nr_hw_queues;
	s->depth = info->queue_depth;
	znp_ublk_test_added();
	if (info->max_io_buf_bytes < s->g.max_sectors * 512u) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: the driver limits requests to %u bytes; "
			     "this namespace needs %u (zone report in one request)",
			     s->dev_id, info->max_io_buf_bytes, s->g.max_sectors * 512u);
		znp_ublk_server_free(s);
		return -E2BIG;
	}
	znp_ublk_fill_params(&s->g, &p);
	ret = znp_ublk_ctrl(s, UBLK_U_CMD_SET_PARAMS, 0, &p, sizeof(p));
	if (ret) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: SET_PARAMS failed: %s", s->dev_id, strerror(-ret));
		znp_ublk_server_free(s);
		return ret;
	}
	ret = znp_ublk_zones_init(s, false);
	if (ret) {
		znp_ublk_log(s, LOG_ERR, "ublk%d: append journal: %s", s->dev_id, strerror(-ret));
		znp_ublk_server_free(s);
		return ret;
	}
	znp_ublk_log(s, LOG_INFO, "ublk%d: added for %s: %" PRIu64 " zones of %" PRIu64
		     " sectors (capacity %" PRIu64 "), %u queue(s) x %u", s->dev_id, ns->path,
		     s->g.nr_zones, s->g.zone_sectors, s->g.zone_cap_sectors, s->nr_queues,
		     s->depth);
	*out = s;
	return 0;
}

bool znp_ublk_server_parked(const struct znp_ublk_server *s)
{
	return s->parked;
}

unsigned int znp_ublk_default_queues(void)
{
	cpu_set_t set;
	long n;

	CPU_ZERO(&set);
	n = sched_getaffinity(0, sizeof(set), &set) ? sysconf(_SC_NPROCESSORS_ONLN) :
	    CPU_COUNT(&set);
	if (n < 1)
		n = 1;
	return n > ZNP_UBLK_MAX_QUEUES ? ZNP_UBLK_MAX_QUEUES : (unsigned int)n;
}

unsigned int znp_ublk_server_nr_queues(const struct znp_ublk_server *s)
{
	return s->nr_queues;
}

int znp_ublk_server_dev_id(const struct znp_ublk_server *s)
{
	return s->dev_id;
}

const struct znp_ublk_geom *znp_ublk_server_geom(const struct znp_ublk_server *s)
{
	return &s->g;
}

void znp_ublk_server_free(struct znp_ublk_server *s)
{
	unsigned int i;

	if (!s)
		return;
	if (s->queues) {
		for (i = 0; i < s->nr_queues; i++)
			znp_ublk_queue_free(&s->queues[i]);
		free(s->queues);
	}
	if (s->cdev_fd >= 0)
		close(s->cdev_fd);
	znp_ublk_zones_free(s);
	if (s->ctrl_ok) {
		if (s->added && s->del_on_free) {
			int ret = znp_ublk_ctrl(s, UBLK_U_CMD_DEL_DEV, 0, NULL, 0);

			if (ret)
				znp_ublk_log(s, LOG_ERR, "ublk%d: DEL_DEV failed: %s", s->dev_id,
					     strerror(-ret));
		}
		io_uring_queue_exit(&s->ctrl);
	}
	if (s->ctrl_fd >= 0)
		close(s->ctrl_fd);
	if (s->efd >= 0)
		close(s->efd);
	if (s->qefd >= 0)
		close(s->qefd);
	if (s->pefd >= 0)
		close(s->pefd);
	pthread_mutex_destroy(&s->log_lock);
	free(s);
}

int znp_ublk_dev_info(int dev_id, struct znp_ublk_info *out)
{
	struct ublksrv_ctrl_dev_info info;
	int ret;

	if (dev_id < 0)
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	ret = ctrl_once(UBLK_U_CMD_GET_DEV_INFO, (uint32_t)dev_id, 0, &info, sizeof(info));
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	out->dev_id = (int)info.dev_id;
	out->state = info.state;
	out->srv_pid = info.ublksrv_pid > 0 ? info.ublksrv_pid : -1;
	out->flags = info.flags;
	out->srv_flags = info.ublksrv_flags;
	out->nr_queues = info.nr_hw_queues;
	out->queue_depth = info.queue_depth;
	out->max_io_buf_bytes = info.max_io_buf_bytes;
	return 0;
}

uint64_t znp_ublk_ns_fingerprint(const struct znp_dev *ns, const struct znp_ublk_geom *g)
{
	return znp_ublk_fingerprint(&ns->ns, &g->ns);
}

int znp_ublk_dev_is_ours(int dev_id, uint64_t fingerprint, struct znp_ublk_info *info)
{
	int ret = znp_ublk_dev_info(dev_id, info);

	if (ret)
		return ret;
	if ((info->flags & ZNP_UBLK_F_NEEDED) != ZNP_UBLK_F_NEEDED ||
	    (info->flags & UBLK_F_UNPRIVILEGED_DEV) || !fingerprint ||
	    info->srv_flags != fingerprint)
		return -EPERM;
	return 0;
}

int znp_ublk_dev_stop(int dev_id, uint64_t fingerprint)
{
	struct znp_ublk_info info;
	int ret;

	if (dev_id < 0)
		return -EINVAL;
	ret = znp_ublk_dev_is_ours(dev_id, fingerprint, &info);
	if (ret)
		return ret;
	return ctrl_once(UBLK_U_CMD_STOP_DEV, (uint32_t)dev_id, 0, NULL, 0);
}

int znp_ublk_dev_try_stop(int dev_id, unsigned int wait_ms)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	uint64_t f = 0;
	unsigned int waited = 0;
	int ret;

	if (dev_id < 0)
		return -EINVAL;
	ret = znp_ublk_probe(&f);
	if (ret && ret != -EOPNOTSUPP)
		return ret;
	if (!(f & ZNP_UBLK_F_SAFE_STOP_DEV))
		return -EOPNOTSUPP;
	for (;;) {
		ret = ctrl_once(UBLK_U_CMD_TRY_STOP_DEV, (uint32_t)dev_id, 0, NULL, 0);
		if (ret != -EBUSY || waited >= wait_ms)
			return ret;
		nanosleep(&ts, NULL);
		waited += 50;
	}
}

int znp_ublk_dev_del(int dev_id, uint64_t fingerprint)
{
	struct znp_ublk_info info;
	int ret;

	if (dev_id < 0)
		return -EINVAL;
	ret = znp_ublk_dev_is_ours(dev_id, fingerprint, &info);
	if (ret)
		return ret;
	return ctrl_once(UBLK_U_CMD_DEL_DEV, (uint32_t)dev_id, 0, NULL, 0);
}
