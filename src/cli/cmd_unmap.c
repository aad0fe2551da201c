// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unmap: remove a mapping made by `map` (dm-po2zone, or ublk: cmd_ublk.c),
 * found by name, node, or the device it maps (src/map/map.h), and forget
 * it in the mapping file. `status` is in cmd_status.c.
 */
#include "cmd.h"
#include "cmd_map.h"

int znp_cmd_unmap(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct znp_unmap_view v = { .dry_run = o->dry_run, .config = znp_cli_map_config(o) };
	struct znp_map_dm_removed r = { 0 };
	struct znp_map_ublk_found f;
	struct znp_map_err e = { 0 };
	char name[ZNP_DM_NAME_MAX];
	struct znp_map_ctx c;
	int ret;

	znp_cli_map_ctx(cli, o, &c);
	ret = znp_map_ublk_find(&c, o->args[0], &f, &e);
	if (ret < 0) {
		znp_cli_map_fail(cli, o->args[0], &e);
		return ZNP_EXIT_FAILED;		/* the records cannot be read */
	}
	if (ret)
		return znp_cli_ublk_unmap(cli, o, p, &f);
	if (znp_map_dm_find(&c, o->args[0], name, sizeof(name), &e))
		return znp_cli_map_fail(cli, o->args[0], &e);
	ret = znp_map_dm_remove(&c, name, &r, &e);
	v.name = name;
	v.backing = r.backing[0] ? r.backing : NULL;
	v.deferred = r.deferred;
	v.forgotten = r.forgotten;
	if (ret && r.removed)
		p->ops->unmap(p, &v);	/* removed, but the mapping file says otherwise */
	if (ret)
		return znp_cli_map_fail(cli, name, &e);
	p->ops->unmap(p, &v);
	return ZNP_EXIT_OK;
}
