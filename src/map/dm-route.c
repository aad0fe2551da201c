// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The dm route: plan a dm-po2zone mapping (refusal by verdict, name, UUID,
 * table), check what is there already (holders, the target, leftovers of
 * an interrupted map, the name), then create it through libdevmapper
 * (src/dm/dm.c: complete or not at all) and record it with --persist; a
 * mapping that cannot be recorded is removed again.
 *
 * Test hook: c->kill_at = N makes the process SIGKILL itself right before
 * creation step N (1 create, 2 load, 3 resume, 4 rename: enum znp_dm_step;
 * 5 record in the mapping file), to prove that no half-made mapping
 * survives (tests/vm/patched-map/README.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "map-priv.h"

#define STEP_PERSIST	ZNP_DM_STEP_NR	/* after the four dm steps */

static int kill_hook(enum znp_dm_step step, void *arg)
{
	if (*(const int *)arg == (int)step)
		raise(SIGKILL);
	return 0;
}

struct holder_scan {
	const char *uuid;
	struct znp_holder found;
	int kind;			/* 0 none, 1 our mapping (this uuid), 2 other holder */
};

static int holder_cb(const struct znp_holder *h, void *arg)
{
	struct holder_scan *s = arg;

	if (znp_dm_name_is_creating(h->dm_name) && znp_dm_uuid_is_ours(h->dm_uuid))
		return 0;	/* an interrupted map: removed below */
	s->found = *h;
	s->kind = !strcmp(h->dm_uuid, s->uuid) ? 1 : 2;
	return 1;
}

/* Who holds the device already (sysfs: works without device-mapper access)? */
static int check_holders(const struct znp_map_ctx *c, const char *kname, const char *uuid,
			 struct znp_map_err *e)
{
	struct holder_scan hs = { .uuid = uuid };

	znp_blk_holders(c->env, kname, holder_cb, &hs);
	if (hs.kind == 1)
		return 1;
	if (hs.kind == 2 && znp_dm_uuid_is_ours(hs.found.dm_uuid))
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EBUSY, "already mapped as %s "
				    "(/dev/mapper/%s)", hs.found.dm_name, hs.found.dm_name);
	if (hs.kind == 2)
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EBUSY, "in use by %s%s%s%s",
				    hs.found.kname, hs.found.dm_name[0] ?
				    " (device-mapper device " : "", hs.found.dm_name,
				    hs.found.dm_name[0] ? ")" : "");
	return 0;
}

/*
 * The UUID in device-mapper (a mapping of ours, or the leftover of an
 * interrupted map, removed here), then whether the block device is free.
 * The O_EXCL open is a probe for the error message, closed at once: it
 * cannot be held, since the table load claims the device exclusively
 * itself. A mount that slips in between makes that load fail with EBUSY,
 * which znp_map_dm_create() refuses the same way.
 * Return: 0, 1 (ours already), or a negative errno with @e.
 */
static int check_unused(const struct znp_map_ctx *c, const char *uuid, const char *backing,
			bool dm_usable, char *leftover, size_t lsize, struct znp_map_err *e)
{
	struct znp_dm_info info;
	int fd, ret;

	if (dm_usable) {
		ret = znp_dm_find_uuid(uuid, &info);
		if (!ret && !znp_dm_name_is_creating(info.name))
			return 1;
		if (!ret && !c->dry_run) {
			ret = znp_dm_remove_leftover(uuid, leftover, lsize);
			if (ret < 0)
				return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot remove %s, left "
						    "by an interrupted map: %s", info.name,
						    znp_strerror(ret));
		} else if (ret && ret != -ENXIO) {
			return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot list device-mapper "
					    "devices: %s", znp_strerror(ret));
		}
	}
	fd = open(backing, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY) {
		char why[512];
		struct stat st;

		if (stat(backing, &st))
			snprintf(why, sizeof(why), "in use");
		else
			znp_blk_why_busy(c->env, st.st_rdev, why, sizeof(why));
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EBUSY, "block device %s is %s", backing,
				    why);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/* Identity, UUID and name of the mapping. */
static int plan_names(const struct znp_map_ctx *c, const struct znp_dev *dev,
		      struct znp_map_plan *pl, struct znp_map_err *e)
{
	int ret = pl->ns ? znp_ident_from_ns(pl->ns, pl->ident, sizeof(pl->ident)) : 0;

	if (ret && ret != -ENODATA)
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot build its identity: %s",
				    znp_strerror(ret));
	if (c->persist && !pl->ident[0])
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENODATA, "--persist needs a stable "
				    "identity (an NVMe namespace with an NGUID, EUI-64 or serial "
				    "number)");
	if (pl->ident[0])
		ret = znp_dm_uuid(pl->ident, pl->uuid, sizeof(pl->uuid));
	else
		ret = snprintf(pl->uuid, sizeof(pl->uuid), ZNP_DM_UUID_PREFIX "dev:%s",
			       pl->kname) >= (int)sizeof(pl->uuid) ? -ENAMETOOLONG : 0;
	if (!ret)
		ret = c->name ? znp_strlcpy(pl->name, c->name, sizeof(pl->name))
			      : znp_dm_default_name(pl->ns, dev->name, pl->name, sizeof(pl->name));
	if (ret)
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot name the mapping: %s",
				    znp_strerror(ret));
	return 0;
}

/* The pure plan: refusal by verdict, name, UUID and table. */
static int plan(const struct znp_map_ctx *c, const struct znp_dev *dev,
		struct znp_map_plan *pl, struct znp_map_err *e)
{
	int ret;

	pl->ns = znp_dev_is_nvme(dev) ? &dev->ns : NULL;
	ret = znp_map_refuse(c, ZNP_MAP_VIA_DM, dev, e);
	if (ret)
		return ret;
	pl->kname = pl->ns ? pl->ns->blk_name : dev->name;
	if (!pl->kname[0] || znp_dev_path(c->env, pl->backing, sizeof(pl->backing), pl->kname))
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENODEV, "no block device to map");
	ret = plan_names(c, dev, pl, e);
	if (ret)
		return ret;
	pl->req.name = pl->name;
	pl->req.uuid = pl->uuid;
	if (znp_dm_table_len(&dev->geom, &pl->req.table.len))
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -EOVERFLOW, "mapped size does not fit "
				    "64 bits");
	if (znp_strlcpy(pl->req.table.dev, pl->backing, sizeof(pl->req.table.dev)))
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENAMETOOLONG, "device path too long "
				    "for a table: %s", pl->backing);
	return 0;
}

/*
 * What is there already: holders, the dm-po2zone target (its name goes
 * into the table), leftovers, the name. Fills @pl->table.
 */
static int check(const struct znp_map_ctx *c, struct znp_map_plan *pl, struct znp_map_err *e)
{
	struct znp_dm_info info;
	uint32_t ver[3];
	bool dm_usable;
	int ret;

	ret = check_holders(c, pl->kname, pl->uuid, e);
	if (ret)
		return ret;
	ret = znp_dm_target_find(pl->req.table.target, sizeof(pl->req.table.target), ver);
	dm_usable = !ret;
	if (ret && !c->dry_run)
		return znp_map_dm_target_error(ret, e);
	if (ret) {
		/* a dry run changes nothing: show the command, say what is missing */
		znp_map_dm_target_error(ret, e);
		znp_strlcpy(pl->note, e->why, sizeof(pl->note));
		*e = (struct znp_map_err){ 0 };
		znp_strlcpy(pl->req.table.target, "po2zone", sizeof(pl->req.table.target));
	}
	ret = check_unused(c, pl->uuid, pl->backing, dm_usable, pl->leftover,
			   sizeof(pl->leftover), e);
	if (ret)
		return ret;
	if (dm_usable && !znp_dm_get(pl->name, &info))
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EEXIST, "a device-mapper device named %s "
				    "exists already (choose another name with --name)", pl->name);
	ret = znp_dm_table_format(pl->table, sizeof(pl->table), &pl->req.table);
	if (ret)
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, ret, "cannot build the table: %s",
				    znp_strerror(ret));
	return 0;
}

int znp_map_dm_check_free(const struct znp_map_ctx *c, const char *kname, const char *uuid,
			  const char *backing, bool dm_usable, char *leftover, size_t lsize,
			  struct znp_map_err *e)
{
	int ret = check_holders(c, kname, uuid, e);

	return ret ? ret : check_unused(c, uuid, backing, dm_usable, leftover, lsize, e);
}

int znp_map_dm_plan(const struct znp_map_ctx *c, const struct znp_dev *dev,
		    struct znp_map_plan *pl, struct znp_map_err *e)
{
	int ret = plan(c, dev, pl, e);

	return ret ? ret : check(c, pl, e);
}

/* Record the created mapping; undo it when that fails. Return: 0 or a negative errno with @e. */
static int record_entry(const struct znp_map_ctx *c, const struct znp_dev *dev,
			const struct znp_map_plan *pl, struct znp_map_err *e)
{
	struct znp_dmconf_entry ent = { .lba_size = dev->geom.lba_size,
		.zone_size = dev->geom.zone_size, .nr_zones = dev->geom.nr_zones };
	char lockwhy[PATH_MAX + 96];
	int ret, rm;

	znp_strlcpy(ent.name, pl->name, sizeof(ent.name));
	znp_strlcpy(ent.ident, pl->ident, sizeof(ent.ident));
	ret = znp_dmconf_put(c->config, &ent);
	if (!ret)
		return 0;
	rm = znp_dm_remove(pl->req.name, false);
	if (rm < 0)
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot record it in %s: %s; and "
				    "cannot remove it again (%s): still mapped as %s", c->config,
				    znp_map_conf_strerror(c->config, ret, lockwhy, sizeof(lockwhy)),
				    znp_strerror(rm), pl->req.name);
	return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot record it in %s: %s; not mapped",
			    c->config, znp_map_conf_strerror(c->config, ret, lockwhy,
			    sizeof(lockwhy)));
}

int znp_map_dm_create(const struct znp_map_ctx *c, const struct znp_dev *dev,
		      struct znp_map_plan *pl, struct znp_map_err *e)
{
	struct znp_dm_info info;
	sigset_t block, old;
	int at = c->kill_at, lockfd, ret;

	/* no server starts, no command claims the namespace while it is made */
	ret = znp_map_lock_ns(c, pl->ident, &lockfd, e);
	if (ret)
		return ret;
	pl->req.before_step = at ? kill_hook : NULL;
	pl->req.arg = &at;
	/* Only SIGKILL may interrupt the steps; its leftover is cleaned up later. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old);
	/* create, then record, then undo on failure */
	ret = znp_dm_create(&pl->req, &info);
	if (!ret && c->persist) {
		kill_hook(STEP_PERSIST, &at);
		ret = record_entry(c, dev, pl, e);
	} else if (ret == -EEXIST) {
		ret = znp_map_fail(e, ZNP_MAP_REFUSED, ret, "cannot create %s: name or identity "
				   "in use (%s)", pl->name, znp_dm_last_error());
	} else if (ret) {
		ret = znp_map_fail(e, ZNP_MAP_ERRNO, ret, "cannot create %s: %s%s%s", pl->name,
				   znp_strerror(ret), *znp_dm_last_error() ? ": " : "",
				   znp_dm_last_error());
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	znp_ns_unlock(lockfd);
	if (ret)
		return ret;
	snprintf(pl->dm_kname, sizeof(pl->dm_kname), "dm-%" PRIu32, info.minor);
	return 0;
}

void znp_map_dm_holder(const struct znp_map_ctx *c, const char *kname, char *buf, size_t size)
{
	struct znp_holder h = { 0 };

	buf[0] = '\0';
	if (!znp_blk_po2_holder(c->env, kname, &h))
		return;
	znp_strlcpy(buf, h.dm_name, size);
}
