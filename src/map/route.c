// SPDX-License-Identifier: GPL-2.0-or-later
/* The two routes behind one interface (map.h: struct znp_map_route). */
#include <errno.h>
#include <stdio.h>

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

static int dm_serving(const struct znp_map_ctx *c, const struct znp_dev *dev,
		      struct znp_map_found *f, struct znp_map_err *e)
{
	f->route = &znp_map_route_dm;
	return znp_map_dm_serving(c, dev, f->name, sizeof(f->name));
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

static int ublk_serving(const struct znp_map_ctx *c, const struct znp_dev *dev,
			struct znp_map_found *f, struct znp_map_err *e)
{
	f->route = &znp_map_route_ublk;
	return znp_map_ublk_serving(c, dev, &f->ublk, e);
}

static int ublk_remove(const struct znp_map_ctx *c, const struct znp_map_found *f,
		       znp_map_warn_fn *warn, void *arg, struct znp_map_removed *out,
		       struct znp_map_err *e)
{
	return znp_map_ublk_remove(c, &f->ublk, warn, arg, out, e);
}

const struct znp_map_route znp_map_route_dm = {
	.name = "dm", .via = ZNP_MAP_VIA_DM,
	.refuse = dm_refuse, .find = dm_find, .serving = dm_serving, .remove = dm_remove,
};

const struct znp_map_route znp_map_route_ublk = {
	.name = "ublk", .via = ZNP_MAP_VIA_UBLK,
	.refuse = ublk_refuse, .find = ublk_find, .serving = ublk_serving, .remove = ublk_remove,
};

/* The order both questions ask the routes in: a ublk record, then device-mapper. */
static const struct znp_map_route *const order[] = {
	&znp_map_route_ublk, &znp_map_route_dm,
};

int znp_map_find(const struct znp_map_ctx *c, const char *arg, struct znp_map_found *f,
		 struct znp_map_err *e)
{
	for (unsigned int i = 0; i < ZNP_ARRAY_SIZE(order); i++) {
		int ret = order[i]->find(c, arg, f, e);

		if (ret)
			return ret < 0 ? ret : 0;
	}
	/* not reached: the dm route refuses what it does not find */
	return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENXIO, "no such mapping");
}

int znp_map_serving(const struct znp_map_ctx *c, const char *path, struct znp_map_found *f,
		    struct znp_map_err *e)
{
	struct znp_dev *dev;
	const char *why;
	int ret = 0;

	e->subject = path;
	if (znp_dev_open(c->env, path, 0, &dev, &why))
		return 0;
	/* the identity (NGUID, EUI-64) is the Identify's: probe, no zone report */
	ret = znp_dev_probe_flags(dev, ZNP_PROBE_DEFER_CAP);
	if (ret && ret != -EMEDIUMTYPE && znp_dev_is_nvme(dev)) {
		/* cannot be told: the caller's own open and probe say why */
		znp_dev_close(dev);
		return 0;
	}
	ret = 0;
	for (unsigned int i = 0; i < ZNP_ARRAY_SIZE(order) && !ret; i++) {
		*f = (struct znp_map_found){ .route = order[i] };
		ret = order[i]->serving(c, dev, f, e);
	}
	znp_dev_close(dev);
	return ret;
}

const char *znp_map_found_name(const struct znp_map_found *f)
{
	if (f->route->via == ZNP_MAP_VIA_DM)
		return f->name;
	return f->ublk.rec.name[0] ? f->ublk.rec.name : f->ublk.device;
}

void znp_map_found_device(const struct znp_map_found *f, char *buf, size_t size)
{
	if (f->route->via == ZNP_MAP_VIA_DM)
		snprintf(buf, size, "/dev/mapper/%s", f->name);
	else
		snprintf(buf, size, "/dev/%s", f->ublk.device);
}
