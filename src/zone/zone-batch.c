// SPDX-License-Identifier: GPL-2.0-or-later
/* Batched zone management. See zone-batch.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <linux/blkzoned.h>

#include "backend.h"
#include "geometry.h"
#include "zone-batch.h"

/* NVMe passthrough on ngXnY; offline has no block ioctl. */
static bool use_passthru(const struct znp_dev *dev, enum znp_zone_action a)
{
	return dev->kind == ZNP_DEV_NVME_CHAR ||
	       (dev->kind == ZNP_DEV_NVME_BLOCK && a == ZNP_ZA_OFFLINE);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One range-form ioctl per LBA range; zones counted for the result. */
static int run_blk(struct znp_dev *dev, enum znp_zone_action a,
		   const struct znp_aio_range *r, size_t nr,
		   const struct znp_batch_opts *o, struct znp_aio_result *res)
{
	const struct znp_geom *g = &dev->geom;
	uint64_t spl = g->lba_size / 512, zones;
	struct znp_aio_progress p = { 0 };
	struct blk_zone_range br;
	unsigned long req = znp_blk_zone_op(a);
	double t0 = now_s();
	size_t i;

	if (!req)
		return -EOPNOTSUPP;
	res->engine = ZNP_ENG_BLKZONE_IOCTL;
	for (i = 0; i < nr; i++)
		p.bytes_total += r[i].len * g->lba_size;
	for (i = 0; i < nr; i++) {
		if (o && o->stop && *o->stop) {
			res->interrupted = true;
			break;
		}
		zones = znp_zone_no(g, r[i].start + r[i].len - 1) -
			znp_zone_no(g, r[i].start) + 1;
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
	if (o && o->progress) {
		p.cmds_done = res->completed + res->failed;
		p.cmds_total = p.cmds_done;
		p.bytes_done = res->bytes;
		p.seconds = res->seconds;
		o->progress(&p, o->progress_arg);
	}
	if (res->failed)
		return res->first_err;
	return res->interrupted ? -EINTR : 0;
}

static int run_passthru(struct znp_dev *dev, enum znp_zone_action a,
			bool all, const struct znp_aio_range *zones, size_t nr,
			const struct znp_batch_opts *o,
			struct znp_aio_result *res)
{
	struct znp_aio_job job = {
		.kind = ZNP_AIO_NVME_ZONE_MGMT,
		.fd = dev->fd,
		.nsid = dev->ns.nsid,
		.lba_size = dev->geom.lba_size,
		.zone_action = (uint8_t)a,
		.select_all = all,
		.ranges = zones,
		.nr = nr,
	};

	if (o) {
		job.qd = o->qd;
		job.force_sync = o->force_sync;
		job.stop = o->stop;
		job.progress = o->progress;
		job.progress_arg = o->progress_arg;
	}
	return znp_aio_run(&job, res);
}

int znp_zone_batch_ranges(struct znp_dev *dev, enum znp_zone_action action,
			  const struct znp_aio_range *r, size_t nr,
			  const struct znp_batch_opts *o,
			  struct znp_aio_result *res)
{
	const struct znp_geom *g = &dev->geom;
	struct znp_aio_range *zones = NULL;
	uint64_t slba, z, total = 0;
	size_t i, k = 0;
	int ret;

	memset(res, 0, sizeof(*res));
	if (!use_passthru(dev, action))
		return run_blk(dev, action, r, nr, o, res);
	for (i = 0; i < nr; i++)
		total += znp_zone_no(g, r[i].start + r[i].len - 1) -
			 znp_zone_no(g, r[i].start) + 1;
	zones = calloc(total ? total : 1, sizeof(*zones));
	if (!zones)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		for (slba = r[i].start; slba < r[i].start + r[i].len; k++) {
			z = znp_zone_no(g, slba);
			zones[k].start = slba;
			zones[k].len = znp_zone_len(g, z);
			slba += zones[k].len;
		}
	}
	ret = run_passthru(dev, action, false, zones, k, o, res);
	free(zones);
	return ret;
}

int znp_zone_batch(struct znp_dev *dev, const struct znp_mgmt_req *r,
		   const struct znp_batch_opts *o, struct znp_aio_result *res)
{
	const struct znp_geom *g = &dev->geom;
	struct znp_aio_range range;
	uint64_t last;

	memset(res, 0, sizeof(*res));
	if (r->all) {
		range.start = 0;
		range.len = g->nlbas;
		if (use_passthru(dev, r->action))
			return run_passthru(dev, r->action, true, &range, 1, o,
					    res);
		/*
		 * The whole-device range is the kernel's reset-all; for other
		 * actions it would also hit empty zones, unlike select-all.
		 */
		if (r->action != ZNP_ZA_RESET)
			return -EOPNOTSUPP;
		return run_blk(dev, r->action, &range, 1, o, res);
	}
	last = znp_zone_no(g, r->slba) + r->nr_zones - 1;
	range.start = r->slba;
	range.len = znp_zone_start(g, last) + znp_zone_len(g, last) - r->slba;
	return znp_zone_batch_ranges(dev, r->action, &range, 1, o, res);
}
