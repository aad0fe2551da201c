/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Batched zone management: a run of zones is reset / finished / opened /
 * closed / offlined with Zone Management Send commands kept N deep in
 * flight through io_uring NVMe passthrough on NVMe generic char devices,
 * and with one range-form block zone ioctl (BLKRESETZONE, ...) on block
 * devices. A select-all request stays a single command.
 */
#ifndef ZNP_ZONE_BATCH_H
#define ZNP_ZONE_BATCH_H

#include "async.h"
#include "dev.h"
#include "zone.h"

struct znp_batch_opts {
	unsigned int qd;		/* 0: ZNP_AIO_DEFAULT_QD */
	bool force_sync;		/* NVMe: one ioctl per zone */
	const volatile sig_atomic_t *stop;
	znp_aio_progress_fn progress;
	void *progress_arg;
};

/**
 * znp_zone_batch() - run a zone management request in a batch
 * @dev: probed zoned device, opened for writing
 * @r: request, validated with znp_zone_mgmt_validate()
 * @o: queue depth, stop flag, progress callback (may be NULL)
 * @res: out, what was done (zones, bytes, engine)
 * Select-all on a block device is supported for reset only (-EOPNOTSUPP
 * otherwise: the block layer has no select-all for the other actions).
 * Return: 0, -EINTR when stopped, -errno, or a positive NVMe status (the
 * first failure; commands in flight are waited for).
 */
int znp_zone_batch(struct znp_dev *dev, const struct znp_mgmt_req *r,
		   const struct znp_batch_opts *o, struct znp_aio_result *res);

/**
 * znp_zone_batch_ranges() - as znp_zone_batch() over LBA ranges that each
 * cover whole zones (as checked by znp_discard_validate())
 * Commands are counted per zone; a block range ioctl counts its zones.
 */
int znp_zone_batch_ranges(struct znp_dev *dev, enum znp_zone_action action,
			  const struct znp_aio_range *lba_ranges, size_t nr,
			  const struct znp_batch_opts *o,
			  struct znp_aio_result *res);

#endif
