// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map --restore: map every namespace recorded in the mapping file that is
 * present, found by its stable identity (src/map/restore.c), through the
 * route its entry names: dm-po2zone here, ublk through its server
 * (cmd_ublk.c). One result per entry is printed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_map.h"

struct restore_ctx {
	const struct znp_cli *cli;
	const struct znp_opts *o;
	struct znp_print *p;
	int first_fail;			/* exit code of the first failure */
};

static void restore_result(struct restore_ctx *r, struct znp_restore_entry *re, int code)
{
	r->p->ops->restore_entry(r->p, re);
	if (code && !r->first_fail)
		r->first_fail = code;
	if (code)
		znp_cli_err(r->cli, re->name ? re->name : znp_cli_map_config(r->o), "%s",
			    re->error);
}

/* The dm route: plan and create as `map` does, quietly. Return: exit code. */
static int restore_dm(struct restore_ctx *r, struct znp_dev *dev, const char *name,
		      struct znp_restore_entry *re, char *msg, size_t size)
{
	struct znp_map_plan pl = { 0 };
	struct znp_map_err err = { 0 };
	struct znp_map_ctx c;
	int ret;

	znp_cli_map_ctx(r->cli, r->o, &c);
	c.name = name;
	c.persist = false;
	ret = znp_map_dm_plan(&c, dev, &pl, &err);
	if (pl.note[0])
		fprintf(r->cli->err, "%s: %s: note: %s\n", r->cli->prog, r->o->args[0], pl.note);
	if (!ret && !r->o->dry_run)
		ret = znp_map_dm_create(&c, dev, &pl, &err);
	if (ret > 0) {
		re->result = "already-mapped";
		return 0;
	}
	if (!ret) {
		re->result = r->o->dry_run ? "would-map" : "mapped";
		return 0;
	}
	snprintf(msg, size, "%s", err.why);
	re->error = msg;
	return znp_cli_map_exit(r->cli, &err);
}

static int restore_entry(const struct znp_map_restore_item *it, void *arg)
{
	struct restore_ctx *r = arg;
	struct znp_restore_entry re = { .line = it->line };
	const struct znp_dmconf_entry *e = it->ent;
	char msg[520];
	struct znp_dev *dev;
	const char *dwhy;
	int ret;

	if (!e) {
		snprintf(msg, sizeof(msg), "%s line %u: %s", znp_cli_map_config(r->o), it->line,
			 it->why);
		re.result = "invalid";
		re.error = msg;
		restore_result(r, &re, ZNP_EXIT_FAILED);
		return 0;
	}
	re.name = e->name;
	re.ident = e->ident;
	if (!it->ns) {
		re.result = "missing";
		re.error = "namespace not present: skipped";
		restore_result(r, &re, 0);
		return 0;
	}
	re.device = it->path;
	re.result = "failed";
	if (it->geom_differs) {
		snprintf(msg, sizeof(msg), "geometry differs from the recorded one (LBA size %"
			 PRIu32 ", zone size %" PRIu64 ", %" PRIu64 " zones): not mapped",
			 it->ns->geom.lba_size, it->ns->geom.zone_size, it->ns->geom.nr_zones);
		re.error = msg;
		restore_result(r, &re, ZNP_EXIT_UNSUITABLE);
		return 0;
	}
	ret = znp_dev_open(&r->cli->env, it->path, 0, &dev, &dwhy);
	if (!ret) {
		ret = znp_dev_probe_flags(dev, ZNP_PROBE_FULL_CAP);
		if (ret == -EMEDIUMTYPE)
			ret = 0;
		if (ret)
			znp_dev_close(dev);
	}
	if (ret) {
		snprintf(msg, sizeof(msg), "%s", dwhy ? dwhy : znp_strerror(ret));
		re.error = msg;
		restore_result(r, &re, znp_cli_exit(r->cli, ret));
		return 0;
	}
	if (e->ublk) {
		znp_dev_close(dev);
		ret = znp_cli_ublk_restore(r->cli, r->o, e->name, it->path, &re.result, msg,
					   sizeof(msg));
		if (ret)
			re.error = msg;
		restore_result(r, &re, ret);
		return 0;
	}
	ret = restore_dm(r, dev, e->name, &re, msg, sizeof(msg));
	znp_dev_close(dev);
	restore_result(r, &re, ret);
	return 0;
}

int znp_map_restore(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct restore_ctx r = { .cli = cli, .o = o, .p = p };
	const char *conf = znp_cli_map_config(o);
	struct znp_map_present present;
	char target[ZNP_DM_TARGET_MAX];
	struct znp_map_ctx c;
	uint32_t ver[3];
	char *buf = NULL;
	size_t len = 0;
	int ret;

	znp_cli_map_ctx(cli, o, &c);
	ret = znp_dmconf_read(conf, &buf, &len);
	if (ret == -ENOENT) {
		p->ops->restore_begin(p, conf);
		p->ops->restore_no_file(p, conf, o->dry_run);
		p->ops->restore_end(p);
		return ZNP_EXIT_OK;	/* nothing recorded */
	}
	if (ret)
		return znp_cli_fail(cli, conf, "cannot read the mapping file", ret);
	ret = znp_dm_target_find(target, sizeof(target), ver);
	if (ret && !o->dry_run && !znp_map_conf_only_ublk(buf, len)) {
		struct znp_map_err e = { 0 };

		znp_map_dm_target_error(ret, &e);
		free(buf);
		return znp_cli_map_fail(cli, "map", &e);
	}
	ret = znp_map_present_scan(&c, &present);
	if (ret) {
		free(buf);
		znp_map_present_free(&present);
		return znp_cli_fail(cli, "map", "cannot list NVMe namespaces", ret);
	}
	p->ops->restore_begin(p, conf);
	ret = znp_map_restore_each(&c, &present, buf, len, restore_entry, &r);
	p->ops->restore_end(p);
	free(buf);
	znp_map_present_free(&present);
	if (ret < 0)	/* -ENOMEM: entries after the failure were not looked at */
		return znp_cli_fail(cli, conf, "cannot go through the mapping file", ret);
	return r.first_fail;
}
