// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map DEV1 DEV2...: one dm-po2zone mapping that concatenates several npo2
 * zoned namespaces, one po2zone target per device, in the order given (the
 * kernel target works at any table offset that is a multiple of its
 * power-of-2 zone size). Every device must be one `map` accepts on its own,
 * and all must have the same LBA size, zone size and zone capacity: a
 * device-mapper device has one zone size. Needs --name; --persist records
 * single-device mappings only. The UUID is ZNPO2-cat:<name>.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_map.h"
#include "dm.h"

#define CAT_MAX	ZNP_MAX_ARGS

struct cat {
	struct znp_dev *dev[CAT_MAX];
	char backing[CAT_MAX][PATH_MAX];
	struct znp_dm_table t[CAT_MAX];
	unsigned int n;
};

/* Open and check every device; 0 or an exit code (reported). */
static int cat_open(struct map_ctx *m, struct cat *c)
{
	const struct znp_opts *o = m->o;
	const struct znp_geom *g0 = NULL;
	unsigned int i, j;
	int ret;

	for (i = 0; i < (unsigned int)o->nargs; i++) {
		struct znp_opts oi = *o;
		const struct znp_geom *g;
		const char *kname;

		oi.args[0] = o->args[i];
		oi.nargs = 1;
		ret = znp_cli_open_dev(m->cli, &oi, ZNP_CLI_FULL_CAP, false, &c->dev[i]);
		if (ret)
			return ret;
		c->n = i + 1;
		ret = znp_map_check_dev(m, c->dev[i]);
		if (ret)
			goto err;
		kname = znp_dev_is_nvme(c->dev[i]) ? c->dev[i]->ns.blk_name : c->dev[i]->name;
		if (!kname[0] || znp_dev_path(&m->cli->env, c->backing[i], PATH_MAX, kname)) {
			snprintf(m->err, sizeof(m->err), "no block device to map");
			ret = ZNP_EXIT_UNSUITABLE;
			goto err;
		}
		for (j = 0; j < i; j++) {
			if (!strcmp(c->backing[j], c->backing[i])) {
				snprintf(m->err, sizeof(m->err), "given twice (%s is %s too)",
					 c->backing[i], o->args[j]);
				ret = ZNP_EXIT_USAGE;
				goto err;
			}
		}
		g = &c->dev[i]->geom;
		if (!g0) {
			g0 = g;
		} else if (g->lba_size != g0->lba_size || g->zone_size != g0->zone_size ||
			   g->zone_cap != g0->zone_cap) {
			snprintf(m->err, sizeof(m->err), "LBA size %" PRIu32 ", zone size 0x%" PRIx64
				 ", capacity 0x%" PRIx64 " LBAs differ from %s (%" PRIu32 ", 0x%" PRIx64
				 ", 0x%" PRIx64 "): a mapping has one zone geometry",
				 g->lba_size, g->zone_size, g->zone_cap, o->args[0],
				 g0->lba_size, g0->zone_size, g0->zone_cap);
			ret = ZNP_EXIT_UNSUITABLE;
			goto err;
		}
	}
	return 0;
err:
	znp_cli_err(m->cli, o->args[i], "%s", m->err);
	return ret;
}

/* "a b c" of @n strings of stride @stride into @buf */
static void join(char *buf, size_t size, const char *first, size_t stride, unsigned int n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? " " : "", first + i * stride);
}

/*
 * The UUID of a concatenation; 0 or an exit code. (No --persist, no --ublk,
 * a --name: the command table's rules for several devices.)
 */
static int cat_args(const struct znp_cli *cli, const struct znp_opts *o, char *uuid, size_t size)
{
	if (snprintf(uuid, size, ZNP_DM_UUID_PREFIX "cat:%s", o->name) >= (int)size) {
		znp_cli_err(cli, "map", "--name '%s' is too long", o->name);
		return ZNP_EXIT_USAGE;
	}
	return 0;
}

/*
 * One po2zone target per device, back to back, into c->t and the table text;
 * *end is the mapping's length in sectors. 0 or an exit code (reported).
 */
static int cat_plan(struct map_ctx *m, struct cat *c, const char *uuid, const char *target,
		    bool dm_usable, char *table, size_t size, uint64_t *end)
{
	char line[PATH_MAX + 64];
	uint64_t start = 0;
	size_t tl = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < c->n; i++) {
		const struct znp_dev *d = c->dev[i];
		const char *kname = znp_dev_is_nvme(d) ? d->ns.blk_name : d->name;
		const char *arg = m->o->args[i];

		m->err[0] = '\0';
		ret = znp_map_check_free(m, kname, uuid, c->backing[i], dm_usable);
		if (ret) {
			znp_cli_err(m->cli, arg, "%s", m->err);
			return ret;
		}
		c->t[i].start = start;
		if (znp_dm_table_len(&d->geom, &c->t[i].len) ||
		    c->t[i].len > UINT64_MAX - start) {
			znp_cli_err(m->cli, arg, "mapped size does not fit 64 bits");
			return ZNP_EXIT_UNSUITABLE;
		}
		start += c->t[i].len;
		znp_strlcpy(c->t[i].target, target, sizeof(c->t[i].target));
		if (znp_strlcpy(c->t[i].dev, c->backing[i], sizeof(c->t[i].dev))) {
			znp_cli_err(m->cli, arg, "device path too long for a table: %s",
				    c->backing[i]);
			return ZNP_EXIT_UNSUITABLE;
		}
		/* as the single-device map: a path the table cannot carry (a space) */
		ret = znp_dm_table_format(line, sizeof(line), &c->t[i]);
		if (ret) {
			znp_cli_err(m->cli, arg, "cannot build the table: %s", znp_strerror(ret));
			return ZNP_EXIT_UNSUITABLE;
		}
		tl += snprintf(table + tl, size - tl, "%s%s", i ? "\n" : "", line);
	}
	*end = start;
	return 0;
}

/* The mapped device's geometry: the first device's, with every device's zones. */
static void cat_geom(const struct cat *c, struct znp_geom *geom)
{
	*geom = c->dev[0]->geom;
	geom->nr_zones = 0;
	geom->nlbas = 0;
	for (unsigned int i = 0; i < c->n; i++) {
		geom->nr_zones += c->dev[i]->geom.nr_zones;
		geom->nlbas += c->dev[i]->geom.nlbas;
	}
}

/* Create the device of the plan; 0 or an exit code (reported). */
static int cat_create(const struct map_ctx *m, const struct cat *c, const char *uuid,
		      struct znp_dm_info *info)
{
	struct znp_dm_create_req req = {
		.name = m->o->name, .uuid = uuid, .table = c->t[0],
		.more = &c->t[1], .nr_more = c->n - 1,
	};
	int ret = znp_dm_create(&req, info);

	if (!ret)
		return 0;
	znp_cli_err(m->cli, "map", "cannot create %s: %s%s%s", m->o->name,
		    ret == -EEXIST ? "name or UUID in use" : znp_strerror(ret),
		    *znp_dm_last_error() ? ": " : "", znp_dm_last_error());
	return znp_cli_exit(m->cli, ret);
}

int znp_map_concat(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct map_ctx m = { .cli = cli, .o = o, .p = p, .name = o->name };
	char uuid[ZNP_DM_UUID_MAX], dmk[32];
	char table[CAT_MAX * (PATH_MAX + 64)], devices[CAT_MAX * PATH_MAX];
	char backings[CAT_MAX * (PATH_MAX + 1)];
	char target[ZNP_DM_TARGET_MAX];
	struct znp_dm_info info;
	struct znp_geom geom;
	struct cat c = { 0 };
	uint64_t len = 0;
	uint32_t ver[3];
	bool dm_usable;
	unsigned int i;
	int ret;

	ret = cat_args(cli, o, uuid, sizeof(uuid));
	if (ret)
		return ret;
	ret = cat_open(&m, &c);
	if (ret)
		goto out;

	ret = znp_dm_target_find(target, sizeof(target), ver);
	dm_usable = !ret;
	if (ret) {
		ret = znp_map_target_error(&m, ret);
		if (!o->dry_run) {
			znp_cli_err(cli, "map", "%s", m.err);
			goto out;
		}
		fprintf(cli->err, "%s: map: note: %s\n", cli->prog, m.err);
		znp_strlcpy(target, "po2zone", sizeof(target));
	}
	ret = cat_plan(&m, &c, uuid, target, dm_usable, table, sizeof(table), &len);
	if (ret)
		goto out;
	if (dm_usable && !znp_dm_get(o->name, &info)) {
		znp_cli_err(cli, "map", "a device-mapper device named %s exists already "
			    "(choose another name with --name)", o->name);
		ret = ZNP_EXIT_REFUSED;
		goto out;
	}

	cat_geom(&c, &geom);
	devices[0] = '\0';
	for (i = 0; i < c.n; i++)
		snprintf(devices + strlen(devices), sizeof(devices) - strlen(devices), "%s%s",
			 i ? " " : "", o->args[i]);
	join(backings, sizeof(backings), c.backing[0], PATH_MAX, c.n);

	struct znp_map_view v = {
		.device = devices, .backing = backings, .geom = &geom, .name = o->name,
		.uuid = uuid, .target = target, .table = table, .table_len = len,
		.dry_run = o->dry_run, .config = znp_map_config(o),
	};

	if (!o->dry_run) {
		ret = cat_create(&m, &c, uuid, &info);
		if (ret)
			goto out;
		snprintf(dmk, sizeof(dmk), "dm-%" PRIu32, info.minor);
		v.dm_kname = dmk;
	}
	p->ops->map(p, &v);
	ret = 0;
out:
	for (i = 0; i < c.n; i++)
		znp_dev_close(c.dev[i]);
	return ret;
}
