// SPDX-License-Identifier: GPL-2.0-or-later
/* The two routes behind one interface (map.h: struct znp_map_route). */
#include <errno.h>

#include "map.h"

static int dm_refuse(const struct znp_map_ctx *c, const struct znp_dev *dev,
		     struct znp_map_err *e)
{
	return znp_map_refuse(c, ZNP_MAP_VIA_DM, dev, e);
}

static int dm_find(const struct znp_map_ctx *c, const char *arg, struct znp_map_found *f,
		   struct znp_map_err *e)
{
	int ret = znp_map_dm_find(c, arg, f->name, sizeof(f->name), e);

	f->route = &znp_map_route_dm;
	return ret ? ret : 1;
}

static int dm_remove(const struct znp_map_ctx *c, const struct znp_map_found *f,
		     znp_map_warn_fn *warn, void *arg, struct znp_map_removed *out,
		     struct znp_map_err *e)
{
	return znp_map_dm_remove(c, f->name, out, e);
}

static int ublk_refuse(const struct znp_map_ctx *c, const struct znp_dev *dev,
		       struct znp_map_err *e)
{
	return znp_map_refuse(c, ZNP_MAP_VIA_UBLK, dev, e);
}

static int ublk_find(const struct znp_map_ctx *c, const char *arg, struct znp_map_found *f,
		     struct znp_map_err *e)
{
	f->route = &znp_map_route_ublk;
	return znp_map_ublk_find(c, arg, &f->ublk, e);
}

static int ublk_remove(const struct znp_map_ctx *c, const struct znp_map_found *f,
		       znp_map_warn_fn *warn, void *arg, struct znp_map_removed *out,
		       struct znp_map_err *e)
{
	return znp_map_ublk_remove(c, &f->ublk, warn, arg, out, e);
}

const struct znp_map_route znp_map_route_dm = {
	.name = "dm", .via = ZNP_MAP_VIA_DM,
	.refuse = dm_refuse, .find = dm_find, .remove = dm_remove,
};

const struct znp_map_route znp_map_route_ublk = {
	.name = "ublk", .via = ZNP_MAP_VIA_UBLK,
	.refuse = ublk_refuse, .find = ublk_find, .remove = ublk_remove,
};

int znp_map_find(const struct znp_map_ctx *c, const char *arg, struct znp_map_found *f,
		 struct znp_map_err *e)
{
	static const struct znp_map_route *const order[] = {
		&znp_map_route_ublk, &znp_map_route_dm,
	};

	for (unsigned int i = 0; i < ZNP_ARRAY_SIZE(order); i++) {
		int ret = order[i]->find(c, arg, f, e);

		if (ret)
			return ret < 0 ? ret : 0;
	}
	/* not reached: the dm route refuses what it does not find */
	return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENXIO, "no such mapping");
}
