/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The zone-management engine: one synchronous command per zone at queue
 * depth 1; deeper queues keep Zone Management Send commands in flight
 * through the io_uring engine (async.h) or send range-form zone ioctls.
 * A discard of whole zones (discard.h) is run by it too.
 */
#ifndef ZNP_ZONE_MGMT_H
#define ZNP_ZONE_MGMT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "async.h"
#include "dev.h"

struct znp_mgmt_req {
	enum znp_zone_action action;
	uint64_t slba;		/* must be a zone start unless @all */
	uint64_t nr_zones;	/* >= 1 unless @all */
	bool all;		/* select-all: one command */
};

/**
 * znp_zone_mgmt_validate() - check a request against the geometry
 * With @r->all, slba and nr_zones are ignored.
 * Return: 0, -EMEDIUMTYPE with *why set when @dev is not a probed zoned
 * device, or -EINVAL with *why set ("start LBA is not a zone start",
 * "zone count past the last zone", ...). Sends nothing. @why may be NULL.
 */
int znp_zone_mgmt_validate(const struct znp_dev *dev,
			   const struct znp_mgmt_req *r, const char **why);

struct znp_mgmt_opts {
	unsigned int qd;		/* 1: synchronous, one command per zone; 0: ZNP_AIO_DEFAULT_QD */
	const atomic_int *stop;	/* may be NULL; checked between commands */
	znp_aio_progress_fn progress;	/* may be NULL */
	void *progress_arg;
};

/**
 * znp_zone_mgmt_run() - the zone-management engine: run a request
 * @dev: probed zoned device, opened with ZNP_OPEN_WRITE
 * @r: the request (validated here again)
 * @o: queue depth, stop flag, progress callback (may be NULL: queue depth
 *     ZNP_AIO_DEFAULT_QD)
 * @res: out, what was done (always filled); @res->completed counts zones
 *       (1 for a select-all that succeeded)
 *
 * Queue depth 1 sends one synchronous command per zone, in order, and
 * stops at the first failure (@res->first_err_idx names it, counted from
 * the first zone). Deeper queues keep Zone Management Send commands in
 * flight through io_uring on NVMe char nodes (and for offline on NVMe
 * block nodes), and send one range-form zone ioctl on block devices.
 * Select-all is one backend call: on NVMe one command; on a zoned block
 * device reset is one whole-device ioctl, close/finish/open act on the
 * zones NVMe's select-all would (close: open zones; finish: open and
 * closed; open: closed), offline is -EOPNOTSUPP. *@o->stop is checked
 * between commands (also between the zones a block select-all walks).
 * Return: 0, -EINTR when stopped, -EINVAL / -EMEDIUMTYPE (invalid
 * request), -errno, or a positive NVMe status (the first failure;
 * commands in flight are waited for).
 */
int znp_zone_mgmt_run(struct znp_dev *dev, const struct znp_mgmt_req *r,
		      const struct znp_mgmt_opts *o, struct znp_aio_result *res);

/**
 * znp_zone_mgmt_ranges() - the engine over LBA ranges that each cover
 * whole zones (as checked by znp_discard_validate())
 * Commands are counted per zone; a block range ioctl counts its zones.
 * Return: as znp_zone_mgmt_run().
 */
int znp_zone_mgmt_ranges(struct znp_dev *dev, enum znp_zone_action action,
			 const struct znp_aio_range *lba_ranges, size_t nr,
			 const struct znp_mgmt_opts *o, struct znp_aio_result *res);

/**
 * znp_zone_mgmt() - znp_zone_mgmt_run() at queue depth 1, without a stop flag
 * @done: out, zones completed before an error (or all of them); for
 *        select-all: 1 once the command succeeded, else 0
 * Return: as znp_zone_mgmt_run().
 */
int znp_zone_mgmt(struct znp_dev *dev, const struct znp_mgmt_req *r,
		  uint64_t *done);

#endif
