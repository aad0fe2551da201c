// SPDX-License-Identifier: GPL-2.0-or-later
/* The two routes behind one interface (map.h: struct znp_map_route). */
#include <errno.h>

#include "map.h"

static int dm_refuse(const struct znp_map_ctx *c, const struct znp_dev *dev,
		     struct znp_map_err *e)
{
	return znp_map_refuse(c, ZNP_MAP_VIA_DM, dev, e);
}

static int ublk_refuse(const struct znp_map_ctx *c, const struct znp_dev *dev,
		       struct znp_map_err *e)
{
	return znp_map_refuse(c, ZNP_MAP_VIA_UBLK, dev, e);
}

static int dm_names(const struct znp_map_ctx *c, const char *arg, struct znp_map_err *e)
{
	char name[ZNP_DM_NAME_MAX];

	return znp_map_dm_find(c, arg, name, sizeof(name), e) ? 0 : 1;
}

static int ublk_names(const struct znp_map_ctx *c, const char *arg, struct znp_map_err *e)
{
	return znp_map_ublk_find(c, arg, NULL, e);
}

const struct znp_map_route znp_map_route_dm = {
	.name = "dm", .via = ZNP_MAP_VIA_DM, .refuse = dm_refuse, .names = dm_names,
};

const struct znp_map_route znp_map_route_ublk = {
	.name = "ublk", .via = ZNP_MAP_VIA_UBLK, .refuse = ublk_refuse, .names = ublk_names,
};

const struct znp_map_route *znp_map_route_of(const struct znp_map_ctx *c, const char *arg,
					     struct znp_map_err *e)
{
	int ret = znp_map_route_ublk.names(c, arg, e);

	if (ret < 0)
		return NULL;
	return ret ? &znp_map_route_ublk : &znp_map_route_dm;
}
