// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map: dm-po2zone mappings of npo2 zoned namespaces. The life cycle (plan,
 * refuse, create, record, undo) is the library's (src/map/map.h); here are
 * the arguments and the printing; what the mapping commands share is in
 * cmd_mapctx.c. Restore is in cmd_map_restore.c, several devices in
 * cmd_mapcat.c, --ublk in cmd_ublkmap.c: this file calls them, none of
 * them calls back.
 */
#include <stdio.h>

#include "cmd.h"
#include "cmd_map.h"

static int map_one(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct znp_map_plan pl = { 0 };
	struct znp_map_err e = { 0 };
	struct znp_map_ctx c;
	struct znp_dev *dev;
	int ret;

	znp_cli_map_ctx(cli, o, &c);
	ret = znp_cli_open_dev(cli, o, ZNP_CLI_FULL_CAP, false, &dev);
	if (ret)
		return ret;
	ret = znp_map_dm_plan(&c, dev, &pl, &e);
	if (pl.note[0])
		fprintf(cli->err, "%s: %s: note: %s\n", cli->prog, o->args[0], pl.note);
	if (ret > 0) {
		char holder[ZNP_DM_NAME_MAX];

		znp_map_dm_holder(&c, pl.kname, holder, sizeof(holder));
		znp_map_fail(&e, ZNP_MAP_REFUSED, 0, "already mapped as %s",
			     holder[0] ? holder : "a mapping of this tool");
		ret = -1;
	}
	if (!ret && !o->dry_run)
		ret = znp_map_dm_create(&c, dev, &pl, &e);
	if (ret) {
		ret = znp_cli_map_fail(cli, o->args[0], &e);
	} else {
		struct znp_map_view v = {
			.device = o->args[0], .backing = pl.backing, .ns = pl.ns, .geom = &dev->geom,
			.name = pl.name, .uuid = pl.uuid, .ident = pl.ident[0] ? pl.ident : NULL,
			.target = pl.req.table.target, .table = pl.table,
			.table_len = pl.req.table.len, .leftover = pl.leftover[0] ? pl.leftover : NULL,
			.dry_run = o->dry_run, .persisted = o->persist, .config = c.config,
			.dm_kname = pl.dm_kname[0] ? pl.dm_kname : NULL,
		};

		p->ops->map(p, &v);
	}
	znp_dev_close(dev);
	return ret;
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
