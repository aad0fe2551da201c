// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map: dm-po2zone mappings of npo2 zoned namespaces (unmap and status are in
 * cmd_unmap.c).
 *
 * `map` refuses whatever `check` would not call mappable, then creates the
 * mapping through libdevmapper (dm.c: complete or not at all). `map
 * --persist` records it in the mapping file by the namespace's stable
 * identity; `map --restore` maps every recorded namespace present, found by
 * that identity, never by instance names (they change between boots).
 *
 * Test hook (-Dtest_hooks=true; documented in tests/vm/patched-map/README.md):
 * ZNP_TEST_MAP_KILL_AT=N makes `map` SIGKILL itself right before creation
 * step N (1 create, 2 load, 3 resume, 4 rename: enum znp_dm_step; 5 record
 * in the mapping file), to prove that no half-made mapping survives.
 * Restore is in cmd_map_restore.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_map.h"
#include "cmd_ublk.h"

#define STEP_PERSIST	ZNP_DM_STEP_NR	/* after the four dm steps */

const char *znp_map_config(const struct znp_opts *o)
{
	return o->config ? o->config : ZNP_DMCONF_PATH;
}

int znp_map_fail(struct map_ctx *m, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return code;
}

static int kill_hook(enum znp_dm_step step, void *arg)
{
	if (*(const int *)arg == (int)step)
		raise(SIGKILL);
	return 0;
}

static int kill_at(void)
{
#ifdef ZNP_TEST_HOOKS
	const char *v = getenv("ZNP_TEST_MAP_KILL_AT");

	return v ? atoi(v) : 0;
#else
	return 0;
#endif
}

/* The refusal for a check verdict other than mappable; 0 when mappable. */
static int refuse_verdict(struct map_ctx *m, const struct znp_dev *dev,
			  const struct znp_check_result *r)
{
	static const char no_npo2_kernel[] = "kernel lacks npo2 support: it hid the block "
		"device of this npo2 namespace (boot a kernel with kernel-patches/)";
	const struct znp_geom *g = &dev->geom;

	switch (r->verdict) {
	case ZNP_V_MAPPABLE:
		break;
	case ZNP_V_PO2:
		return znp_map_fail(m, ZNP_EXIT_UNSUITABLE, "zone size 0x%" PRIx64
			    " LBAs is a power of 2: nothing to do (no mapping needed)", g->zone_size);
	case ZNP_V_METADATA:
		if (!(r->reasons & ZNP_R_BLK_HIDDEN))
			return znp_map_fail(m, ZNP_EXIT_UNSUITABLE, "the kernel gives the block "
				    "device no capacity for this LBA format (%u bytes of metadata per "
				    "LBA, %s%s)", g->md_bytes, g->md_extended ? "extended LBA" :
				    "separate", g->pi_type ? ", protection information" : "");
		return znp_map_fail(m, ZNP_EXIT_UNSUPPORTED, "%s", no_npo2_kernel);
	case ZNP_V_NEEDS_KERNEL:
	case ZNP_V_UBLK:
		return znp_map_fail(m, ZNP_EXIT_UNSUPPORTED, "%s", no_npo2_kernel);
	case ZNP_V_CAP_LT_SIZE:
		return znp_map_fail(m, ZNP_EXIT_UNSUITABLE, "zone capacity 0x%" PRIx64
			    " < zone size 0x%" PRIx64 " LBAs: dm-po2zone needs capacity == size",
			    g->zone_cap, g->zone_size);
	case ZNP_V_CAP_VARIES:
		return znp_map_fail(m, ZNP_EXIT_UNSUITABLE, "%s", znp_verdict_text(r->verdict));
	case ZNP_V_NOT_ZNS:
		return znp_map_fail(m, ZNP_EXIT_UNSUITABLE, "not a zoned namespace or zoned block device");
	}
	if (r->reasons & ZNP_R_SMALL_LAST_ZONE)
		return znp_map_fail(m, ZNP_EXIT_UNSUITABLE, "the last zone is smaller than the others: "
			    "dm-po2zone maps whole zones only");
	return 0;
}

int znp_map_target_error(struct map_ctx *m, int ret)
{
	if (ret == -ENODEV)
		return znp_map_fail(m, ZNP_EXIT_UNSUPPORTED, "device-mapper is not available (kernel "
			    "without it, or no access to /dev/mapper/control)");
	if (ret == -EOPNOTSUPP)
		return znp_map_fail(m, ZNP_EXIT_UNSUPPORTED, "the kernel has no dm-po2zone target: "
			    "build it with kernel-patches/ (CONFIG_DM_PO2ZONE)");
	return znp_map_fail(m, ZNP_EXIT_FAILED, "cannot list device-mapper targets: %s",
		    znp_strerror(ret));
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
static int check_holders(struct map_ctx *m, const char *kname, const char *uuid)
{
	struct holder_scan hs = { .uuid = uuid };

	znp_blk_holders(&m->cli->env, kname, holder_cb, &hs);
	if (hs.kind == 1)
		return MAP_ALREADY;
	if (hs.kind == 2 && znp_dm_uuid_is_ours(hs.found.dm_uuid))
		return znp_map_fail(m, ZNP_EXIT_REFUSED, "already mapped as %s (/dev/mapper/%s)",
			    hs.found.dm_name, hs.found.dm_name);
	if (hs.kind == 2)
		return znp_map_fail(m, ZNP_EXIT_REFUSED, "in use by %s%s%s%s", hs.found.kname,
			    hs.found.dm_name[0] ? " (device-mapper device " : "",
			    hs.found.dm_name, hs.found.dm_name[0] ? ")" : "");
	return 0;
}

/*
 * The UUID in device-mapper (a mapping of ours, or the leftover of an
 * interrupted map, removed here), then whether the block device is free.
 * The O_EXCL open is a probe for the error message, closed at once: it
 * cannot be held, since the table load claims the device exclusively
 * itself. A mount that slips in between makes that load fail with EBUSY,
 * which map_apply() refuses the same way (exit 4).
 */
static int check_unused(struct map_ctx *m, const char *uuid, const char *backing,
			bool dm_usable, char *leftover, size_t lsize)
{
	struct znp_dm_info info;
	int fd, ret;

	if (dm_usable) {
		ret = znp_dm_find_uuid(uuid, &info);
		if (!ret && !znp_dm_name_is_creating(info.name))
			return MAP_ALREADY;
		if (!ret && !m->o->dry_run) {
			ret = znp_dm_remove_leftover(uuid, leftover, lsize);
			if (ret < 0)
				return znp_map_fail(m, ZNP_EXIT_FAILED, "cannot remove %s, left by an "
					    "interrupted map: %s", info.name, znp_strerror(ret));
		} else if (ret && ret != -ENXIO) {
			return znp_map_fail(m, ZNP_EXIT_FAILED, "cannot list device-mapper devices: %s",
				    znp_strerror(ret));
		}
	}
	fd = open(backing, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY)
		return znp_map_fail(m, ZNP_EXIT_REFUSED, "block device %s is in use (mounted or held)",
			    backing);
	if (fd >= 0)
		close(fd);
	return 0;
}

/*
 * Create the mapping, then record it with --persist; a mapping that cannot
 * be recorded is removed again. Return: 0 or -errno; m->err is set when
 * the mapping was created but could not be recorded.
 */
static int create(struct map_ctx *m, struct znp_dm_create_req *req,
		  const struct znp_dmconf_entry *e, struct znp_dm_info *info)
{
	char lockwhy[PATH_MAX + 96];
	sigset_t block, old;
	int at = kill_at(), ret, rm;

	req->before_step = at ? kill_hook : NULL;
	req->arg = &at;
	/* Only SIGKILL may interrupt the steps; its leftover is cleaned up later. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old);
	ret = znp_dm_create(req, info);
	if (ret) {
		m->err[0] = '\0';
	} else if (m->persist) {
		kill_hook(STEP_PERSIST, &at);
		ret = znp_dmconf_put(znp_map_config(m->o), e);
		rm = ret ? znp_dm_remove(req->name, false) : 0;
		if (ret && rm < 0)
			snprintf(m->err, sizeof(m->err), "cannot record it in %s: %s; and cannot "
				 "remove it again (%s): still mapped as %s",
				 znp_map_config(m->o), znp_cli_conf_strerror(znp_map_config(m->o), ret,
				 lockwhy, sizeof(lockwhy)), znp_strerror(rm),
				 req->name);
		else if (ret)
			snprintf(m->err, sizeof(m->err), "cannot record it in %s: %s; not mapped",
				 znp_map_config(m->o), znp_cli_conf_strerror(znp_map_config(m->o),
				 ret, lockwhy, sizeof(lockwhy)));
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/* What map creates: computed from the device alone, nothing sent. */
struct map_plan {
	const struct znp_ns_info *ns;	/* NULL: not NVMe */
	const char *kname;		/* block device to map (kernel name) */
	char ident[ZNP_IDENT_MAX];	/* "" when the device has none */
	char uuid[ZNP_DM_UUID_MAX];
	char name[ZNP_DM_NAME_MAX];
	char backing[PATH_MAX];
	char table[PATH_MAX + 64];	/* the table line, for the view */
	struct znp_dm_create_req req;
};

/* Identity, UUID and name of the mapping. */
static int plan_names(struct map_ctx *m, const struct znp_dev *dev, struct map_plan *pl)
{
	int ret = pl->ns ? znp_ident_from_ns(pl->ns, pl->ident, sizeof(pl->ident)) : 0;

	if (ret && ret != -ENODATA)
		return znp_map_fail(m, ZNP_EXIT_FAILED, "cannot build its identity: %s",
				    znp_strerror(ret));
	if (m->persist && !pl->ident[0])
		return znp_map_fail(m, ZNP_EXIT_UNSUITABLE, "--persist needs a stable identity "
				    "(an NVMe namespace with an NGUID, EUI-64 or serial number)");
	if (pl->ident[0])
		ret = znp_dm_uuid(pl->ident, pl->uuid, sizeof(pl->uuid));
	else
		ret = snprintf(pl->uuid, sizeof(pl->uuid), ZNP_DM_UUID_PREFIX "dev:%s",
			       pl->kname) >= (int)sizeof(pl->uuid) ? -ENAMETOOLONG : 0;
	if (!ret)
		ret = m->name ? znp_strlcpy(pl->name, m->name, sizeof(pl->name))
			      : znp_dm_default_name(pl->ns, dev->name, pl->name, sizeof(pl->name));
	if (ret)
		return znp_map_fail(m, ZNP_EXIT_FAILED, "cannot name the mapping: %s",
				    znp_strerror(ret));
	return 0;
}

/* The pure plan: refusal by verdict, name, UUID and table. */
static int map_plan(struct map_ctx *m, const struct znp_dev *dev, struct map_plan *pl)
{
	struct znp_check_result res;
	int ret;

	pl->ns = znp_dev_is_nvme(dev) ? &dev->ns : NULL;
	ret = znp_check(pl->ns, &dev->geom, dev->is_zoned, &res);
	if (ret)
		return znp_map_fail(m, ZNP_EXIT_FAILED, "cannot decide: %s", znp_strerror(ret));
	ret = refuse_verdict(m, dev, &res);
	if (ret)
		return ret;
	pl->kname = pl->ns ? pl->ns->blk_name : dev->name;
	if (!pl->kname[0] || znp_dev_path(&m->cli->env, pl->backing, sizeof(pl->backing),
					  pl->kname))
		return znp_map_fail(m, ZNP_EXIT_UNSUITABLE, "no block device to map");
	ret = plan_names(m, dev, pl);
	if (ret)
		return ret;
	pl->req.name = pl->name;
	pl->req.uuid = pl->uuid;
	if (znp_dm_table_len(&dev->geom, &pl->req.table.len))
		return znp_map_fail(m, ZNP_EXIT_UNSUITABLE, "mapped size does not fit 64 bits");
	if (znp_strlcpy(pl->req.table.dev, pl->backing, sizeof(pl->req.table.dev)))
		return znp_map_fail(m, ZNP_EXIT_UNSUITABLE, "device path too long for a table: %s",
				    pl->backing);
	return 0;
}

/*
 * What is there already: holders, the dm-po2zone target (its name goes
 * into the table), leftovers, the name. Fills @pl->table.
 */
static int map_check(struct map_ctx *m, struct map_plan *pl, char *leftover, size_t lsize)
{
	struct znp_dm_info info;
	uint32_t ver[3];
	bool dm_usable;
	int ret;

	ret = check_holders(m, pl->kname, pl->uuid);
	if (ret)
		return ret;
	ret = znp_dm_target_find(pl->req.table.target, sizeof(pl->req.table.target), ver);
	dm_usable = !ret;
	if (ret && !m->o->dry_run)
		return znp_map_target_error(m, ret);
	if (ret) {
		/* a dry run changes nothing: show the command, say what is missing */
		znp_map_target_error(m, ret);
		fprintf(m->cli->err, "%s: %s: note: %s\n", m->cli->prog, m->o->args[0], m->err);
		znp_strlcpy(pl->req.table.target, "po2zone", sizeof(pl->req.table.target));
	}
	ret = check_unused(m, pl->uuid, pl->backing, dm_usable, leftover, lsize);
	if (ret)
		return ret;
	if (dm_usable && !znp_dm_get(pl->name, &info))
		return znp_map_fail(m, ZNP_EXIT_REFUSED, "a device-mapper device named %s exists "
				    "already (choose another name with --name)", pl->name);
	ret = znp_dm_table_format(pl->table, sizeof(pl->table), &pl->req.table);
	if (ret)
		return znp_map_fail(m, ZNP_EXIT_UNSUITABLE, "cannot build the table: %s",
				    znp_strerror(ret));
	return 0;
}

/* Create (and record) the mapping; @dmk receives its kernel name. */
static int map_apply(struct map_ctx *m, const struct znp_dev *dev, struct map_plan *pl,
		     char *dmk, size_t dsize)
{
	struct znp_dmconf_entry e = { .lba_size = dev->geom.lba_size,
		.zone_size = dev->geom.zone_size, .nr_zones = dev->geom.nr_zones };
	struct znp_dm_info info;
	int ret;

	znp_strlcpy(e.name, pl->name, sizeof(e.name));
	znp_strlcpy(e.ident, pl->ident, sizeof(e.ident));
	ret = create(m, &pl->req, &e, &info);
	if (ret && m->err[0])
		return ZNP_EXIT_FAILED;
	if (ret == -EEXIST)
		return znp_map_fail(m, ZNP_EXIT_REFUSED, "cannot create %s: name or identity in "
				    "use (%s)", pl->name, znp_dm_last_error());
	if (ret)
		return znp_map_fail(m, znp_cli_exit(m->cli, ret),
				    "cannot create %s: %s%s%s", pl->name, znp_strerror(ret),
				    *znp_dm_last_error() ? ": " : "", znp_dm_last_error());
	snprintf(dmk, dsize, "dm-%" PRIu32, info.minor);
	return 0;
}

int znp_map_dev(struct map_ctx *m, struct znp_dev *dev)
{
	char leftover[ZNP_DM_NAME_MAX] = "", dmk[32] = "";
	struct map_plan pl = { 0 };
	int ret;

	ret = map_plan(m, dev, &pl);
	if (!ret)
		ret = map_check(m, &pl, leftover, sizeof(leftover));
	if (!ret && !m->o->dry_run)
		ret = map_apply(m, dev, &pl, dmk, sizeof(dmk));
	if (ret)
		return ret;
	if (!m->quiet) {
		struct znp_map_view v = {
			.device = m->o->nargs ? m->o->args[0] : dev->path,
			.backing = pl.backing, .ns = pl.ns, .geom = &dev->geom, .name = pl.name,
			.uuid = pl.uuid, .ident = pl.ident[0] ? pl.ident : NULL,
			.target = pl.req.table.target, .table = pl.table,
			.table_len = pl.req.table.len, .leftover = leftover[0] ? leftover : NULL,
			.dry_run = m->o->dry_run, .persisted = m->persist,
			.config = znp_map_config(m->o), .dm_kname = dmk[0] ? dmk : NULL,
		};

		m->p->ops->map(m->p, &v);
	}
	return 0;
}

static int map_one(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct map_ctx m = { .cli = cli, .o = o, .p = p, .name = o->name, .persist = o->persist };
	struct znp_dev *dev;
	int ret;

	ret = znp_cli_open_dev(cli, o, ZNP_CLI_FULL_CAP, false, &dev);
	if (ret)
		return ret;
	ret = znp_map_dev(&m, dev);
	if (ret == MAP_ALREADY) {
		struct znp_holder h = { 0 };
		const char *kname = znp_dev_is_nvme(dev) ? dev->ns.blk_name : dev->name;

		if (!znp_blk_po2_holder(&cli->env, kname, &h))
			znp_strlcpy(h.dm_name, "a mapping of this tool", sizeof(h.dm_name));
		ret = znp_map_fail(&m, ZNP_EXIT_REFUSED, "already mapped as %s", h.dm_name);
	}
	if (ret)
		znp_cli_err(cli, o->args[0], "%s", m.err);
	znp_dev_close(dev);
	return ret;
}

/* ---- shared with map of several devices (cmd_mapcat.c) ------------------ */

int znp_map_check_dev(struct map_ctx *m, const struct znp_dev *dev)
{
	const struct znp_ns_info *ns = znp_dev_is_nvme(dev) ? &dev->ns : NULL;
	struct znp_check_result res;
	int ret;

	ret = znp_check(ns, &dev->geom, dev->is_zoned, &res);
	if (ret)
		return znp_map_fail(m, ZNP_EXIT_FAILED, "cannot decide: %s", znp_strerror(ret));
	return refuse_verdict(m, dev, &res);
}

int znp_map_check_free(struct map_ctx *m, const char *kname, const char *uuid,
		       const char *backing, bool dm_usable)
{
	char leftover[ZNP_DM_NAME_MAX];
	int ret;

	ret = check_holders(m, kname, uuid);
	if (!ret)
		ret = check_unused(m, uuid, backing, dm_usable, leftover, sizeof(leftover));
	return ret == MAP_ALREADY ? znp_map_fail(m, ZNP_EXIT_REFUSED, "already mapped by this tool")
				  : ret;
}

int znp_cmd_map(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	const char *why;

	/* which options need --ublk, and what --restore excludes: map_rules (cmdtab.c) */
	if (o->restore)
		return znp_map_restore(cli, o, p);
	if (o->ublk)
		return znp_cmd_map_ublk(cli, o, p);	/* no device: --name of a recorded one */
	if (!o->nargs) {
		znp_cli_err(cli, "map", "missing argument <device> (or --restore)");
		return ZNP_EXIT_USAGE;
	}
	why = o->name ? znp_dm_name_invalid(o->name) : NULL;
	if (why) {
		znp_cli_err(cli, o->args[0], "invalid --name '%s': %s", o->name, why);
		return ZNP_EXIT_USAGE;
	}
	if (o->nargs > 1)
		return znp_map_concat(cli, o, p);
	return map_one(cli, o, p);
}
