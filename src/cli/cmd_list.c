// SPDX-License-Identifier: GPL-2.0-or-later
/* list: every ZNS namespace, including those with a hidden block device. */
#include <errno.h>
#include <limits.h>

#include "cmd.h"
#include "cmd_map.h"

struct list_ctx {
	const struct znp_cli *cli;
	struct znp_print *p;
	int probe_ret;		/* the first namespace that could not be probed */
};

static int list_one(const struct znp_scan_entry *e, void *arg)
{
	struct list_ctx *ctx = arg;
	struct znp_holder h;
	char ublk[32];
	struct znp_list_row r = {
		.ns = &e->ns,
		.geom = !e->probe_ret && e->is_zoned ? &e->geom : NULL,
		.is_zoned = e->is_zoned,
		.probe_ret = e->probe_ret,
		.mapped_as = NULL,
	};

	/*
	 * Conventional namespaces are left out; one that could not be probed is
	 * listed (with its error) unless it is known to be conventional: a
	 * failing Identify must not hide a ZNS namespace.
	 */
	if (!e->is_zoned && (!e->probe_ret || e->probe_ret == -EMEDIUMTYPE))
		return 0;
	char ng_path[PATH_MAX], blk_path[PATH_MAX];

	if (e->ns.ng_name[0] && !znp_dev_path(&ctx->cli->env, ng_path, sizeof(ng_path),
					       e->ns.ng_name))
		r.ng_path = ng_path;
	if (e->ns.blk_name[0] && !znp_dev_path(&ctx->cli->env, blk_path, sizeof(blk_path),
						e->ns.blk_name))
		r.blk_path = blk_path;
	/* our po2 mapping on top of the block device (sysfs holders) */
	if (e->ns.blk_name[0] && znp_blk_po2_holder(&ctx->cli->env, e->ns.blk_name, &h))
		r.mapped_as = h.dm_name;
	/* served through ublk (a record under /run/zns-npo2 whose device exists) */
	if (!r.mapped_as) {
		struct znp_map_ctx c;

		znp_cli_map_ctx(ctx->cli, NULL, &c);
		r.mapped_as = znp_map_ublk_mapped_as(&c, &e->ns, ublk, sizeof(ublk));
	}
	ctx->p->ops->list_row(ctx->p, &r);
	if (!r.geom) {
		/* listed with its error, and said on stderr: the list is incomplete */
		char node[PATH_MAX];
		const char *name = e->ns.ng_name[0] ? e->ns.ng_name : e->ns.blk_name;

		if (znp_dev_path(&ctx->cli->env, node, sizeof(node), name))
			znp_strlcpy(node, name, sizeof(node));
		znp_cli_err_ret(ctx->cli, e->probe_ret, node, "cannot probe the namespace: %s",
				znp_strerror(e->probe_ret));
		if (!ctx->probe_ret)
			ctx->probe_ret = e->probe_ret;
	}
	return 0;
}

int znp_cmd_list(const struct znp_cli *cli, const struct znp_opts *o,
		 struct znp_print *p)
{
	struct list_ctx ctx = { .cli = cli, .p = p };
	int ret;

	p->ops->list_begin(p);
	ret = znp_scan(&cli->env, list_one, &ctx);
	p->ops->list_end(p);
	if (ret)
		return znp_cli_fail(cli, cli->env.sysfs_root ? cli->env.sysfs_root : "/sys",
				    "cannot list NVMe namespaces", ret);
	return ctx.probe_ret ? znp_cli_exit(cli, ctx.probe_ret) : ZNP_EXIT_OK;
}
