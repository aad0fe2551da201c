// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map DEV1 DEV2...: one dm-po2zone mapping that concatenates several npo2
 * zoned namespaces (src/map/dm-cat.c plans and creates it). Needs --name;
 * --persist records single-device mappings only.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_map.h"

_Static_assert(ZNP_MAP_CAT_MAX >= ZNP_MAX_ARGS, "map takes ZNP_MAX_ARGS devices");

/* "a b c" of @n strings of stride @stride into @buf */
static void join(char *buf, size_t size, const char *first, size_t stride, unsigned int n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? " " : "", first + i * stride);
}

int znp_map_concat(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	static struct znp_map_cat cat;
	char devices[ZNP_MAP_CAT_MAX * PATH_MAX];
	char backings[ZNP_MAP_CAT_MAX * (PATH_MAX + 1)];
	struct znp_map_err e = { 0 };
	struct znp_map_ctx c;
	unsigned int i;
	int ret;

	memset(&cat, 0, sizeof(cat));
	znp_cli_map_ctx(cli, o, &c);
	if (znp_map_cat_begin(&c, &cat, &e))
		return znp_cli_map_fail(cli, "map", &e);
	for (i = 0; i < (unsigned int)o->nargs && i < ZNP_MAP_CAT_MAX; i++) {
		struct znp_opts oi = *o;

		oi.args[0] = o->args[i];
		oi.nargs = 1;
		cat.arg[i] = o->args[i];
		ret = znp_cli_open_dev(cli, &oi, ZNP_CLI_FULL_CAP, false, &cat.dev[i]);
		if (ret)
			goto out;
		cat.n = i + 1;
		if (znp_map_cat_check(&c, &cat, i, &e)) {
			ret = znp_cli_map_fail(cli, o->args[i], &e);
			goto out;
		}
	}
	ret = znp_map_cat_plan(&c, &cat, &e);
	if (cat.note[0])
		fprintf(cli->err, "%s: map: note: %s\n", cli->prog, cat.note);
	if (!ret && !o->dry_run)
		ret = znp_map_cat_create(&c, &cat, &e);
	if (ret) {
		ret = znp_cli_map_fail(cli, "map", &e);
		goto out;
	}
	devices[0] = '\0';
	for (i = 0; i < cat.n; i++)
		snprintf(devices + strlen(devices), sizeof(devices) - strlen(devices), "%s%s",
			 i ? " " : "", o->args[i]);
	join(backings, sizeof(backings), cat.backing[0], PATH_MAX, cat.n);

	struct znp_map_view v = {
		.device = devices, .backing = backings, .geom = &cat.geom, .name = o->name,
		.nr_devices = cat.n, .devices = o->args, .backings = cat.backing[0],
		.backing_stride = sizeof(cat.backing[0]),
		.uuid = cat.uuid, .target = cat.target, .table = cat.table, .table_len = cat.len,
		.dry_run = o->dry_run, .config = c.config,
		.dm_kname = cat.dm_kname[0] ? cat.dm_kname : NULL,
	};

	p->ops->map(p, &v);
	ret = 0;
out:
	for (i = 0; i < cat.n; i++)
		znp_dev_close(cat.dev[i]);
	return ret;
}
