// SPDX-License-Identifier: GPL-2.0-or-later
/* Zone management: request validation and execution. */
#include <errno.h>

#include "backend.h"
#include "zone.h"

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

/**
 * znp_zone_mgmt_validate() - check a request against the geometry
 * @dev: probed device
 * @r: the request; with @r->all, slba and nr_zones are ignored
 * @why: on failure, a static one-line reason (may be NULL)
 *
 * Sends nothing.
 * Return: 0; -EMEDIUMTYPE when @dev is not a probed zoned device; -EINVAL
 * for a bad request ("start LBA is not a zone start", "zone count past
 * the last zone", ...).
 */
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

/**
 * znp_zone_mgmt() - run a request, one command per zone (or one
 * select-all command)
 * @dev: probed device, opened with ZNP_OPEN_WRITE
 * @r: the request (validated here again)
 * @done: out, zones completed before an error (or all of them); for
 *        select-all 1 after the command succeeded, else 0
 *
 * Stops at the first failing zone. On a zoned block device, select-all
 * other than reset walks the zones and acts on those NVMe's select-all
 * would (close: open zones; finish: open and closed; open: closed), and
 * offline is -EOPNOTSUPP (no such ioctl).
 * Return: 0, -errno, or a positive NVMe status.
 */
int znp_zone_mgmt(struct znp_dev *dev, const struct znp_mgmt_req *r, uint64_t *done)
{
	uint64_t i, zno;
	int ret;

	if (done)
		*done = 0;
	ret = znp_zone_mgmt_validate(dev, r, NULL);
	if (ret)
		return ret;
	if (r->all) {
		ret = dev->be->mgmt(dev, r->action, 0, true);
		if (!ret && done)
			*done = 1;
		return ret;
	}
	zno = znp_zone_no(&dev->geom, r->slba);
	for (i = 0; i < r->nr_zones; i++) {
		ret = dev->be->mgmt(dev, r->action, znp_zone_start(&dev->geom, zno + i), false);
		if (ret)
			return ret;
		if (done)
			*done = i + 1;
	}
	return 0;
}
