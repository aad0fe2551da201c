/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Discovery of NVMe namespaces from sysfs, including those whose block
 * device the kernel hid (npo2 ZNS on a stock kernel: only ngXnY exists).
 */
#ifndef ZNP_SCAN_H
#define ZNP_SCAN_H

#include "dev.h"

struct znp_scan_entry {
	struct znp_ns_info ns;
	struct znp_geom geom;	/* valid when probe_ret == 0 */
	bool is_zoned;
	int probe_ret;		/* result of probing the namespace */
};

/**
 * znp_scan() - call @cb for every NVMe namespace, ordered by controller
 * name then NSID
 * @env: sysfs/dev roots (may be NULL)
 * @cb: callback; a non-zero return stops the scan and is returned
 * @arg: passed to @cb
 *
 * NSIDs come from sysfs (or NVME_IOCTL_ID), never from instance names;
 * ngXnY and nvmeXnY are paired. Each namespace is opened read-only and
 * probed; a namespace that cannot be probed is still reported with
 * probe_ret set.
 * Return: 0, -errno, or what @cb returned.
 */
int znp_scan(const struct znp_env *env,
	     int (*cb)(const struct znp_scan_entry *e, void *arg), void *arg);

#endif
