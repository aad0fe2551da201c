/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private: device backends. NVMe passthrough (libnvme) drives ngXnY and
 * nvmeXnY nodes; the block backend drives other zoned block devices with
 * the kernel's zone ioctls. Both hand zone reports to the iterator in the
 * NVMe Report Zones layout, so one parser (znp_zdesc_parse) validates all.
 */
#ifndef ZNP_BACKEND_H
#define ZNP_BACKEND_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dev.h"

struct znp_backend {
	const char *name;
	/*
	 * Fill dev->geom (all but zone_cap/zone_cap_varies) and dev->is_zoned.
	 * Return: 0, -EMEDIUMTYPE (not zoned; lba_size/nlbas filled), -errno
	 * or a positive NVMe status.
	 */
	int (*probe)(struct znp_dev *dev);
	/*
	 * Basic (non-extended) Report Zones from the zone holding @slba into
	 * @buf (@len: 64 + n * 64 bytes). @partial: header counts the
	 * descriptors in @buf; otherwise every matching zone from @slba on.
	 * Adds the commands (ioctls) issued to *@ncmds.
	 * Return: 0, -errno or a positive NVMe status.
	 */
	int (*report)(struct znp_dev *dev, uint64_t slba, enum znp_state_filter f,
		      bool partial, void *buf, uint32_t len, uint64_t *ncmds);
	/*
	 * One zone action on the zone starting at @slba, or on all zones
	 * (select-all: the backend owns its meaning). @stop (may be NULL) is
	 * checked between the commands a select-all needs.
	 * Return: 0, -EINTR when stopped, -errno or a positive NVMe status.
	 */
	int (*mgmt)(struct znp_dev *dev, enum znp_zone_action a, uint64_t slba, bool all,
		    const atomic_int *stop);
};

/* dev->be_priv: block queue limits dev.c read from sysfs at open time. */
struct znp_queue_limits {
	uint32_t max_hw_bytes;	/* queue/max_hw_sectors_kb in bytes, 0 = unknown */
	uint32_t max_open;	/* queue/max_open_zones, 0 = none or unknown */
	uint32_t max_active;	/* queue/max_active_zones, 0 = none or unknown */
};

static inline const struct znp_queue_limits *znp_dev_limits(const struct znp_dev *dev)
{
	return dev->be_priv;
}

extern const struct znp_backend znp_backend_nvme;
extern const struct znp_backend znp_backend_blk;

/* The BLK*ZONE range ioctl for @a; 0 when there is none (offline). */
unsigned long znp_blk_zone_op(enum znp_zone_action a);

/* Report transfer when the device states no limit (MDTS 0, no queue limit). */
#define ZNP_REPORT_MAX_BYTES	(1u << 20)
/* Never buffer more than this per command (the kernel's NVMe limit is lower). */
#define ZNP_REPORT_HARD_MAX	(8u << 20)

#endif
