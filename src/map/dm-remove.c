// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The dm route after creation: find the mapping an argument names (by
 * name, device-mapper node, or the device it maps), remove it and forget
 * it in the mapping file, list our mappings for `status`. Ours are
 * recognised by their UUID prefix (src/dm/dm.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "map.h"

/* Backing device of a po2 mapping: its kernel name, else the table's text. */
static void backing_of(const struct znp_env *env, const struct znp_dm_info *d, char *buf,
		       size_t size)
{
	unsigned int maj, min;
	char extra;

	buf[0] = '\0';
	if (!d->nr_targets || !d->table.dev[0])
		return;
	if (sscanf(d->table.dev, "%u:%u%c", &maj, &min, &extra) != 2 ||
	    znp_blk_kname(env, maj, min, buf, size))
		znp_strlcpy(buf, d->table.dev, size);
}

struct find_holder {
	struct znp_holder ours, other;
};

static int find_holder_cb(const struct znp_holder *h, void *arg)
{
	struct find_holder *f = arg;

	if (znp_dm_uuid_is_ours(h->dm_uuid) && !f->ours.kname[0])
		f->ours = *h;
	else if (h->dm_name[0] && !f->other.kname[0])
		f->other = *h;
	return 0;
}

/* Our mapping whose UUID carries the identity of namespace @dev. Return: 1 found (@name), 0 none. */
static int dm_by_ident(const struct znp_map_ctx *c, const struct znp_dev *dev, char *name,
		       size_t size)
{
	char ident[ZNP_IDENT_MAX], uuid[ZNP_DM_UUID_MAX];
	struct znp_dm_info info;

	/* a test tree (emulated namespaces) has nothing to do with this host's device-mapper */
	if (c->env->sysfs_root || c->env->dev_root || !znp_dev_is_nvme(dev))
		return 0;
	if (znp_ident_from_ns(&dev->ns, ident, sizeof(ident)) ||
	    znp_dm_uuid(ident, uuid, sizeof(uuid)) || znp_dm_find_uuid(uuid, &info))
		return 0;
	return !znp_strlcpy(name, info.name, size);
}

/* The holders of namespace @dev's block device (none when it is hidden). */
static void dm_holders(const struct znp_map_ctx *c, const struct znp_dev *dev,
		       struct find_holder *fh)
{
	const char *kname = znp_dev_is_nvme(dev) ? dev->ns.blk_name : dev->name;

	if (kname[0])
		znp_blk_holders(c->env, kname, find_holder_cb, fh);
}

int znp_map_dm_serving(const struct znp_map_ctx *c, const struct znp_dev *dev, char *name,
		       size_t size)
{
	struct find_holder fh = { 0 };

	if (dm_by_ident(c, dev, name, size))
		return 1;
	dm_holders(c, dev, &fh);
	return fh.ours.kname[0] && !znp_strlcpy(name, fh.ours.dm_name, size);
}

int znp_map_dm_find(const struct znp_map_ctx *c, const char *arg, char *name, size_t size,
		    struct znp_map_err *e)
{
	struct find_holder fh = { 0 };
	struct znp_dm_info info;
	struct znp_dev *dev;
	const char *why;
	struct stat st;
	int ret;

	e->subject = arg;
	if (!strchr(arg, '/')) {
		ret = znp_dm_get(arg, &info);
		if (!ret)
			return znp_strlcpy(name, arg, size) ?
				znp_map_fail(e, ZNP_MAP_USAGE, -ENAMETOOLONG, "name too long") : 0;
		if (ret == -ENODEV)
			return znp_map_fail(e, ZNP_MAP_UNSUPPORTED, ret, "device-mapper is not "
					    "available");
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, ret, "no such mapping");
	}
	if (stat(arg, &st))
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -errno, "no such device or mapping");
	if (S_ISBLK(st.st_mode) &&
	    !znp_blk_dm_name(c->env, major(st.st_rdev), minor(st.st_rdev), name, size))
		return 0;	/* a device-mapper device */
	ret = znp_dev_open(c->env, arg, 0, &dev, &why);
	if (ret)
		return znp_map_fail(e, ZNP_MAP_ERRNO, ret, "%s", why ? why : znp_strerror(ret));
	/* the identity (NGUID, EUI-64) is the Identify's; without it the holders still tell */
	znp_dev_probe_flags(dev, ZNP_PROBE_DEFER_CAP);
	ret = znp_map_dm_serving(c, dev, name, size);
	if (!ret)
		dm_holders(c, dev, &fh);
	znp_dev_close(dev);
	if (ret)
		return 0;
	if (fh.other.kname[0])
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENXIO, "mapped by %s, which is not a "
				    "mapping made by this tool", fh.other.dm_name);
	return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENXIO, "is not mapped");
}

int znp_map_dm_remove(const struct znp_map_ctx *c, const char *name,
		      struct znp_map_removed *out, struct znp_map_err *e)
{
	char mnt[512];
	struct znp_dm_info dmi, *info = &dmi;
	const char *ident;
	int ret;

	znp_strlcpy(out->name, name, sizeof(out->name));
	e->subject = out->name;
	ret = znp_dm_get(name, info);
	if (ret == -ENODEV)
		return znp_map_fail(e, ZNP_MAP_UNSUPPORTED, ret, "device-mapper is not available");
	if (ret)
		return znp_map_fail(e, ZNP_MAP_ERRNO, ret, "%s", ret == -ENXIO ? "no such mapping" :
				    znp_strerror(ret));
	if (!znp_dm_uuid_is_ours(info->uuid))
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -EPERM, "not a mapping made by this "
				    "tool (UUID '%s'): not removed", info->uuid);
	backing_of(c->env, info, out->backing, sizeof(out->backing));
	if (info->open_count > 0 && !c->force) {
		char node[ZNP_DM_NAME_MAX + 16], nqn[256];

		snprintf(node, sizeof(node), "/dev/mapper/%s", name);
		if (!znp_map_export_holder(c, node, nqn, sizeof(nqn)))
			return znp_map_fail(e, ZNP_MAP_REFUSED, -EBUSY, "in use (open count %d, "
					    "exported by NVMe target subsystem %s namespace 1): not "
					    "removed; export --remove it first", info->open_count, nqn);
		znp_blk_mount_point(info->major, info->minor, mnt, sizeof(mnt));
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EBUSY, "in use (open count %d%s%s): not "
				    "removed; unmount or close it, or use --force to remove it at "
				    "its last close", info->open_count, mnt[0] ? ", mounted on " : "",
				    mnt);
	}
	if (c->dry_run)
		return 0;
	ret = znp_dm_remove(name, c->force);
	if (ret < 0)
		return znp_map_fail(e, ZNP_MAP_ERRNO, ret, "cannot remove: %s%s%s",
				    znp_strerror(ret), *znp_dm_last_error() ? ": " : "",
				    znp_dm_last_error());
	out->deferred = ret == 1;
	out->removed = true;
	ident = znp_dm_uuid_ident(info->uuid);
	if (!znp_ident_valid(ident))
		return 0;
	return znp_map_forget(c, ident, out, e);
}

struct status_ctx {
	const struct znp_map_ctx *c;
	char *conf;			/* mapping file contents, or NULL */
	size_t conf_len;
	void (*cb)(const struct znp_map_dm_row *r, void *arg);
	void *arg;
};

struct ident_match {
	const char *ident;
	bool found;
};

static int conf_has_cb(unsigned int lineno, const struct znp_dmconf_entry *ent,
		       const char *why, void *arg)
{
	struct ident_match *m = arg;

	if (ent && !strcmp(ent->ident, m->ident))
		m->found = true;
	return m->found;
}

static int status_one(const struct znp_dm_info *d, void *arg)
{
	struct status_ctx *s = arg;
	struct znp_map_dm_row r = { .dm = d };
	char backing[ZNP_DM_DEV_MAX];
	struct znp_ns_info ns = { 0 };
	struct ident_match im;

	if (!znp_dm_uuid_is_ours(d->uuid))
		return 0;
	backing_of(s->c->env, d, backing, sizeof(backing));
	r.backing = backing[0] ? backing : NULL;
	if (!znp_ns_from_blk(s->c->env, backing, &ns))
		r.ns = &ns;
	r.ident = znp_dm_uuid_ident(d->uuid);
	if (s->conf && znp_ident_valid(r.ident)) {
		im = (struct ident_match){ .ident = r.ident };
		znp_dmconf_parse(s->conf, s->conf_len, conf_has_cb, &im);
		r.persisted = im.found;
	}
	s->cb(&r, s->arg);
	return 0;
}

int znp_map_dm_status(const struct znp_map_ctx *c, const struct znp_dm_info *one,
		      void (*cb)(const struct znp_map_dm_row *r, void *arg), void *arg)
{
	struct status_ctx s = { .c = c, .cb = cb, .arg = arg };
	int ret;

	if (znp_dmconf_read(c->config, &s.conf, &s.conf_len))
		s.conf = NULL;
	/* one mapping: the one just read, not every device-mapper device again */
	ret = one ? status_one(one, &s) : znp_dm_list(status_one, &s);
	free(s.conf);
	return ret;
}
