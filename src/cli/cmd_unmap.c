// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unmap: remove a mapping made by `map`, dm-po2zone or ublk, found by
 * name, node, or the device it maps, on the route that has it
 * (src/map/map.h: znp_map_find(), the route's remove), and forget it in
 * the mapping file. `status` is in cmd_status.c.
 */
#include "cmd.h"
#include "cmd_map.h"

static void warn(const char *subject, const char *msg, void *arg)
{
	znp_cli_err(arg, subject, "%s", msg);
}

int znp_cmd_unmap(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct znp_unmap_view v = { .dry_run = o->dry_run, .config = znp_cli_map_config(o) };
	struct znp_map_removed r = { 0 };
	struct znp_map_err e = { 0 };
	struct znp_map_found f;
	struct znp_map_ctx c;
	int ret;

	znp_cli_map_ctx(cli, o, &c);
	if (znp_map_find(&c, o->args[0], &f, &e))
		return znp_cli_map_fail(cli, o->args[0], &e);
	ret = f.route->remove(&c, &f, warn, (void *)cli, &r, &e);
	v.name = r.name;
	v.backing = r.backing[0] ? r.backing : NULL;
	v.ublk = f.route->via == ZNP_MAP_VIA_UBLK;
	v.deferred = r.deferred;
	v.forgotten = r.forgotten;
	if (ret && r.removed)
		p->ops->unmap(p, &v);	/* removed, but the mapping file says otherwise */
	if (ret)
		return znp_cli_map_fail(cli, r.name, &e);
	p->ops->unmap(p, &v);
	return ZNP_EXIT_OK;
}
