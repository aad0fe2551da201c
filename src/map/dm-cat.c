// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map DEV1 DEV2...: one dm-po2zone mapping that concatenates several npo2
 * zoned namespaces, one po2zone target per device, in the order given (the
 * kernel target works at any table offset that is a multiple of its
 * power-of-2 zone size). Every device must be one `map` accepts on its own,
 * and all must have the same LBA size, zone size and zone capacity: a
 * device-mapper device has one zone size. The UUID is ZNPO2-cat:<name>.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "map-priv.h"

static const char *kname_of(const struct znp_dev *d)
{
	return znp_dev_is_nvme(d) ? d->ns.blk_name : d->name;
}

int znp_map_cat_begin(const struct znp_map_ctx *c, struct znp_map_cat *cat,
		      struct znp_map_err *e)
{
	e->subject = NULL;
	if (snprintf(cat->uuid, sizeof(cat->uuid), ZNP_DM_UUID_PREFIX "cat:%s", c->name) >=
	    (int)sizeof(cat->uuid))
		return znp_map_fail(e, ZNP_MAP_USAGE, -ENAMETOOLONG, "--name '%s' is too long",
				    c->name);
	return 0;
}

int znp_map_cat_check(const struct znp_map_ctx *c, struct znp_map_cat *cat, unsigned int i,
		      struct znp_map_err *e)
{
	const struct znp_geom *g = &cat->dev[i]->geom, *g0 = &cat->dev[0]->geom;
	const char *kname = kname_of(cat->dev[i]);
	int ret;

	e->subject = cat->arg[i];
	ret = znp_map_refuse(c, ZNP_MAP_VIA_DM, cat->dev[i], e);
	if (ret)
		return ret;
	if (!kname[0] || znp_dev_path(c->env, cat->backing[i], PATH_MAX, kname))
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENODEV, "no block device to map");
	for (unsigned int j = 0; j < i; j++)
		if (!strcmp(cat->backing[j], cat->backing[i]))
			return znp_map_fail(e, ZNP_MAP_USAGE, -EINVAL, "given twice (%s is %s too)",
					    cat->backing[i], cat->arg[j]);
	if (i && (g->lba_size != g0->lba_size || g->zone_size != g0->zone_size ||
		  g->zone_cap != g0->zone_cap))
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -EINVAL, "LBA size %" PRIu32 ", zone "
				    "size 0x%" PRIx64 ", capacity 0x%" PRIx64 " LBAs differ from %s "
				    "(%" PRIu32 ", 0x%" PRIx64 ", 0x%" PRIx64 "): a mapping has one "
				    "zone geometry", g->lba_size, g->zone_size, g->zone_cap,
				    cat->arg[0], g0->lba_size, g0->zone_size, g0->zone_cap);
	e->subject = NULL;
	return 0;
}

/* One po2zone target per device, back to back, into cat->t and the table text. */
int znp_map_cat_plan(const struct znp_map_ctx *c, struct znp_map_cat *cat,
		     struct znp_map_err *e)
{
	char line[PATH_MAX + 64], leftover[ZNP_DM_NAME_MAX];
	struct znp_dm_info info;
	uint64_t start = 0;
	uint32_t ver[3];
	size_t tl = 0;
	bool dm_usable;
	int ret;

	e->subject = NULL;
	ret = znp_dm_target_find(cat->target, sizeof(cat->target), ver);
	dm_usable = !ret;
	if (ret) {
		ret = znp_map_dm_target_error(ret, e);
		if (!c->dry_run)
			return ret;
		znp_strlcpy(cat->note, e->why, sizeof(cat->note));
		*e = (struct znp_map_err){ 0 };
		znp_strlcpy(cat->target, "po2zone", sizeof(cat->target));
	}
	for (unsigned int i = 0; i < cat->n; i++) {
		const struct znp_dev *d = cat->dev[i];

		e->subject = cat->arg[i];
		ret = znp_map_dm_check_free(c, kname_of(d), cat->uuid, cat->backing[i], dm_usable,
					    leftover, sizeof(leftover), e);
		if (ret > 0)
			return znp_map_fail(e, ZNP_MAP_REFUSED, -EEXIST, "already mapped by this "
					    "tool");
		if (ret)
			return ret;
		cat->t[i].start = start;
		if (znp_dm_table_len(&d->geom, &cat->t[i].len) ||
		    cat->t[i].len > UINT64_MAX - start)
			return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -EOVERFLOW, "mapped size does "
					    "not fit 64 bits");
		start += cat->t[i].len;
		znp_strlcpy(cat->t[i].target, cat->target, sizeof(cat->t[i].target));
		if (znp_strlcpy(cat->t[i].dev, cat->backing[i], sizeof(cat->t[i].dev)))
			return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENAMETOOLONG, "device path too "
					    "long for a table: %s", cat->backing[i]);
		/* as the single-device map: a path the table cannot carry (a space) */
		ret = znp_dm_table_format(line, sizeof(line), &cat->t[i]);
		if (ret)
			return znp_map_fail(e, ZNP_MAP_UNSUITABLE, ret, "cannot build the table: %s",
					    znp_strerror(ret));
		tl += snprintf(cat->table + tl, sizeof(cat->table) - tl, "%s%s", i ? "\n" : "",
			       line);
	}
	e->subject = NULL;
	cat->len = start;
	if (dm_usable && !znp_dm_get(c->name, &info))
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EEXIST, "a device-mapper device named %s "
				    "exists already (choose another name with --name)", c->name);
	/* the mapped device's geometry: the first device's, with every device's zones */
	cat->geom = cat->dev[0]->geom;
	cat->geom.nr_zones = 0;
	cat->geom.nlbas = 0;
	for (unsigned int i = 0; i < cat->n; i++) {
		cat->geom.nr_zones += cat->dev[i]->geom.nr_zones;
		cat->geom.nlbas += cat->dev[i]->geom.nlbas;
	}
	return 0;
}

int znp_map_cat_create(const struct znp_map_ctx *c, struct znp_map_cat *cat,
		       struct znp_map_err *e)
{
	struct znp_dm_create_req req = {
		.name = c->name, .uuid = cat->uuid, .table = cat->t[0],
		.more = &cat->t[1], .nr_more = cat->n - 1,
	};
	struct znp_dm_info info;
	int ret = znp_dm_create(&req, &info);

	e->subject = NULL;
	if (ret)
		return znp_map_fail(e, ZNP_MAP_ERRNO, ret, "cannot create %s: %s%s%s", c->name,
				    ret == -EEXIST ? "name or UUID in use" : znp_strerror(ret),
				    *znp_dm_last_error() ? ": " : "", znp_dm_last_error());
	snprintf(cat->dm_kname, sizeof(cat->dm_kname), "dm-%" PRIu32, info.minor);
	return 0;
}
