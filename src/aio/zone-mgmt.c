// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The zone-management engine: request validation and execution. Queue
 * depth 1 is one synchronous backend command per zone; deeper queues keep
 * Zone Management Send commands in flight through io_uring on NVMe
 * passthrough, or use one range-form block zone ioctl per range. A
 * select-all request is one backend call (the backend owns its meaning).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <linux/blkzoned.h>

#include "backend.h"
#include "zone-mgmt.h"

static bool action_is_known(enum znp_zone_action a)
{
	switch (a) {
	case ZNP_ZA_CLOSE:
	case ZNP_ZA_FINISH:
	case ZNP_ZA_OPEN:
	case ZNP_ZA_RESET:
	case ZNP_ZA_OFFLINE:
		return true;
	}
	return false;
}

int znp_zone_mgmt_validate(const struct znp_dev *dev,
			   const struct znp_mgmt_req *r, const char **why)
{
	const struct znp_geom *g;
	const char *dummy;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (!dev || !r) {
		*why = "invalid arguments";
		return -EINVAL;
	}
	g = &dev->geom;
	if (!dev->is_zoned || !g->zone_size) {
		*why = "not a zoned namespace or zoned block device";
		return -EMEDIUMTYPE;
	}
	if (!action_is_known(r->action)) {
		*why = "unknown zone action";
		return -EINVAL;
	}
	if (r->all)
		return 0;
	if (r->slba >= g->nlbas) {
		*why = "start LBA is past the end of the device";
		return -EINVAL;
	}
	if (!znp_is_zone_start(g, r->slba)) {
		*why = "start LBA is not a zone start";
		return -EINVAL;
	}
	if (!r->nr_zones) {
		*why = "zone count must be at least 1";
		return -EINVAL;
	}
	if (r->nr_zones > g->nr_zones - znp_zone_no(g, r->slba)) {
		*why = "zone count past the last zone";
		return -EINVAL;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static bool stopped(const struct znp_mgmt_opts *o)
{
	return o && o->stop && atomic_load(o->stop);
}

static void progress(const struct znp_mgmt_opts *o, const struct znp_aio_result *res,
		     uint64_t cmds_total, uint64_t bytes_total)
{
	struct znp_aio_progress p = {
		.cmds_done = res->completed + res->failed,
		.cmds_total = cmds_total,
		.bytes_done = res->bytes,
		.bytes_total = bytes_total,
		.seconds = res->seconds,
	};

	if (o && o->progress)
		o->progress(&p, o->progress_arg);
}

static uint64_t ranges_zones(const struct znp_geom *g, const struct znp_aio_range *r, size_t nr)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < nr; i++)
		total += znp_zones_in_range(g, r[i].start, r[i].len);
	return total;
}

static uint64_t ranges_bytes(const struct znp_geom *g, const struct znp_aio_range *r, size_t nr)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < nr; i++)
		total += r[i].len * g->lba_size;
	return total;
}

/* Queue depth 1: one synchronous backend command per zone, in order. */
static int run_sync(struct znp_dev *dev, enum znp_zone_action a,
		    const struct znp_aio_range *r, size_t nr,
		    const struct znp_mgmt_opts *o, struct znp_aio_result *res)
{
	const struct znp_geom *g = &dev->geom;
	uint64_t slba, len, idx = 0, total = ranges_zones(g, r, nr), bytes = ranges_bytes(g, r, nr);
	double t0 = now_s(), last = t0, t;
	size_t i;
	int ret = 0;

	res->engine = dev->kind == ZNP_DEV_ZONED_BLOCK ? ZNP_ENG_BLKZONE_IOCTL :
							 ZNP_ENG_NVME_IOCTL;
	for (i = 0; i < nr && !ret; i++) {
		for (slba = r[i].start; slba < r[i].start + r[i].len; slba += len, idx++) {
			if (stopped(o)) {
				res->interrupted = true;
				break;
			}
			len = znp_zone_len(g, znp_zone_no(g, slba));
			res->submitted++;
			ret = dev->be->mgmt(dev, a, slba, false, NULL);
			if (ret) {
				res->failed++;
				res->first_err = ret;
				res->first_err_idx = idx;
				break;
			}
			res->completed++;
			res->bytes += len * g->lba_size;
			/* at most ~10 a second, as the io_uring engine's */
			if (!o || !o->progress)
				continue;
			t = now_s();
			if (t - last >= 0.1) {
				last = t;
				res->seconds = t - t0;
				progress(o, res, total, bytes);
			}
		}
		if (res->interrupted)
			break;
	}
	res->seconds = now_s() - t0;
	progress(o, res, total, bytes);
	if (ret)
		return ret;
	return res->interrupted ? -EINTR : 0;
}

/* Block devices, deeper queue: one range-form ioctl per LBA range. */
static int run_blk_ranges(struct znp_dev *dev, enum znp_zone_action a,
			  const struct znp_aio_range *r, size_t nr,
			  const struct znp_mgmt_opts *o, struct znp_aio_result *res)
{
	const struct znp_geom *g = &dev->geom;
	uint64_t spl = g->lba_size / 512, zones;
	unsigned long req = znp_blk_zone_op(a);
	struct blk_zone_range br;
	double t0 = now_s();
	size_t i;

	if (!req)
		return -EOPNOTSUPP;
	res->engine = ZNP_ENG_BLKZONE_IOCTL;
	for (i = 0; i < nr; i++) {
		if (stopped(o)) {
			res->interrupted = true;
			break;
		}
		zones = znp_zones_in_range(g, r[i].start, r[i].len);
		br.sector = r[i].start * spl;
		br.nr_sectors = r[i].len * spl;
		res->submitted += zones;
		if (ioctl(dev->fd, req, &br) < 0) {
			res->failed += zones;
			res->first_err = -errno;
			res->first_err_idx = i;
			break;
		}
		res->completed += zones;
		res->bytes += r[i].len * g->lba_size;
	}
	res->seconds = now_s() - t0;
	progress(o, res, res->completed + res->failed, ranges_bytes(g, r, nr));
	if (res->failed)
		return res->first_err;
	return res->interrupted ? -EINTR : 0;
}

/* NVMe passthrough, deeper queue: one Zone Management Send per zone, in flight. */
static int run_passthru(struct znp_dev *dev, enum znp_zone_action a,
			const struct znp_aio_range *r, size_t nr,
			const struct znp_mgmt_opts *o, struct znp_aio_result *res)
{
	const struct znp_geom *g = &dev->geom;
	uint64_t total = ranges_zones(g, r, nr), slba;
	struct znp_aio_range *zones;
	struct znp_aio_job job = {
		.kind = ZNP_AIO_NVME_ZONE_MGMT,
		.fd = dev->fd,
		.nsid = dev->ns.nsid,
		.lba_size = g->lba_size,
		.zone_action = (uint8_t)a,
	};
	size_t i, k = 0;
	int ret;

	zones = calloc(total ? total : 1, sizeof(*zones));
	if (!zones)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		for (slba = r[i].start; slba < r[i].start + r[i].len; k++) {
			zones[k].start = slba;
			zones[k].len = znp_zone_len(g, znp_zone_no(g, slba));
			slba += zones[k].len;
		}
	}
	job.ranges = zones;
	job.nr = k;
	if (o) {
		job.qd = o->qd;
		job.stop = o->stop;
		job.progress = o->progress;
		job.progress_arg = o->progress_arg;
	}
	ret = znp_aio_run(&job, res);
	free(zones);
	return ret;
}

int znp_zone_mgmt_ranges(struct znp_dev *dev, enum znp_zone_action action,
			 const struct znp_aio_range *lba_ranges, size_t nr,
			 const struct znp_mgmt_opts *o, struct znp_aio_result *res)
{
	/* offline has no block ioctl: NVMe block nodes use passthrough for it */
	bool passthru = dev->kind == ZNP_DEV_NVME_CHAR ||
			(dev->kind == ZNP_DEV_NVME_BLOCK && action == ZNP_ZA_OFFLINE);

	memset(res, 0, sizeof(*res));
	if (o && o->qd == 1)
		return run_sync(dev, action, lba_ranges, nr, o, res);
	if (passthru)
		return run_passthru(dev, action, lba_ranges, nr, o, res);
	return run_blk_ranges(dev, action, lba_ranges, nr, o, res);
}

/* Select-all: one backend call, whose meaning the backend owns. */
static int run_all(struct znp_dev *dev, enum znp_zone_action a,
		   const struct znp_mgmt_opts *o, struct znp_aio_result *res)
{
	double t0 = now_s();
	int ret;

	res->engine = dev->kind == ZNP_DEV_ZONED_BLOCK ? ZNP_ENG_BLKZONE_IOCTL :
							 ZNP_ENG_NVME_IOCTL;
	if (stopped(o)) {
		res->interrupted = true;
		return -EINTR;
	}
	res->submitted = 1;
	ret = dev->be->mgmt(dev, a, 0, true, o ? o->stop : NULL);
	res->seconds = now_s() - t0;
	if (ret == -EINTR) {
		res->interrupted = true;
	} else if (ret) {
		res->failed = 1;
		res->first_err = ret;
	} else {
		res->completed = 1;
	}
	return ret;
}

int znp_zone_mgmt_run(struct znp_dev *dev, const struct znp_mgmt_req *r,
		      const struct znp_mgmt_opts *o, struct znp_aio_result *res)
{
	const struct znp_geom *g = &dev->geom;
	struct znp_aio_range range;
	uint64_t last;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = znp_zone_mgmt_validate(dev, r, NULL);
	if (ret)
		return ret;
	if (r->all)
		return run_all(dev, r->action, o, res);
	last = znp_zone_no(g, r->slba) + r->nr_zones - 1;
	range.start = r->slba;
	range.len = znp_zone_start(g, last) + znp_zone_len(g, last) - r->slba;
	return znp_zone_mgmt_ranges(dev, r->action, &range, 1, o, res);
}

int znp_zone_mgmt(struct znp_dev *dev, const struct znp_mgmt_req *r, uint64_t *done)
{
	struct znp_mgmt_opts o = { .qd = 1 };
	struct znp_aio_result res;
	int ret;

	ret = znp_zone_mgmt_run(dev, r, &o, &res);
	if (done)
		*done = res.completed;
	return ret;
}
