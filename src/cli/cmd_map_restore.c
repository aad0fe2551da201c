// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map --restore: map every namespace recorded in the mapping file that is
 * present, found by its stable identity (never by instance names, which
 * change between boots).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_map.h"

struct ns_found {
	struct znp_ns_info ns;
	char ident[ZNP_IDENT_MAX];
	struct znp_geom geom;
	bool ok;			/* probed and zoned */
};

struct restore_ctx {
	const struct znp_cli *cli;
	const struct znp_opts *o;
	struct znp_print *p;
	struct ns_found *ns;
	size_t nr_ns, cap;
	int first_fail;			/* exit code of the first failure */
};

static int collect_ns(const struct znp_scan_entry *e, void *arg)
{
	struct restore_ctx *r = arg;
	struct ns_found *f;

	f = znp_grow(r->ns, &r->cap, r->nr_ns, sizeof(*f), 16);
	if (!f)
		return -ENOMEM;
	r->ns = f;
	f = &r->ns[r->nr_ns++];
	memset(f, 0, sizeof(*f));
	f->ns = e->ns;
	f->geom = e->geom;
	f->ok = !e->probe_ret && e->is_zoned;
	if (znp_ident_from_ns(&e->ns, f->ident, sizeof(f->ident)))
		f->ident[0] = '\0';
	return 0;
}

static void restore_result(struct restore_ctx *r, struct znp_restore_entry *re, int code)
{
	r->p->ops->restore_entry(r->p, re);
	if (code && !r->first_fail)
		r->first_fail = code;
	if (code)
		znp_cli_err(r->cli, re->name ? re->name : znp_cli_map_config(r->o), "%s", re->error);
}

/* The namespace present with identity @ident, or NULL. */
static const struct ns_found *restore_find(const struct restore_ctx *r, const char *ident)
{
	for (size_t i = 0; i < r->nr_ns; i++)
		if (!strcmp(r->ns[i].ident, ident))
			return &r->ns[i];
	return NULL;
}

/* A recorded geometry value (0: not recorded) that the namespace no longer has. */
static bool geom_differs(const struct znp_dmconf_entry *e, const struct znp_geom *g)
{
	return (e->lba_size && e->lba_size != g->lba_size) ||
	       (e->zone_size && e->zone_size != g->zone_size) ||
	       (e->nr_zones && e->nr_zones != g->nr_zones);
}

static int restore_entry(unsigned int lineno, const struct znp_dmconf_entry *e,
			 const char *why, void *arg)
{
	struct restore_ctx *r = arg;
	struct znp_restore_entry re = { .line = lineno };
	struct znp_map_plan pl = { 0 };
	struct znp_map_err err = { 0 };
	struct znp_map_ctx c;
	const struct ns_found *f;
	char path[PATH_MAX], msg[520];
	struct znp_dev *dev;
	const char *dwhy;
	int ret;

	if (!e) {
		snprintf(msg, sizeof(msg), "%s line %u: %s", znp_cli_map_config(r->o), lineno, why);
		re.result = "invalid";
		re.error = msg;
		restore_result(r, &re, ZNP_EXIT_FAILED);
		return 0;
	}
	re.name = e->name;
	re.ident = e->ident;
	f = restore_find(r, e->ident);
	if (!f) {
		re.result = "missing";
		re.error = "namespace not present: skipped";
		restore_result(r, &re, 0);
		return 0;
	}
	znp_dev_path(&r->cli->env, path, sizeof(path),
		     !e->ublk && f->ns.blk_visible && f->ns.blk_name[0] ? f->ns.blk_name
								  : f->ns.ng_name);
	re.device = path;
	re.result = "failed";
	if (f->ok && geom_differs(e, &f->geom)) {
		snprintf(msg, sizeof(msg), "geometry differs from the recorded one (LBA size %"
			 PRIu32 ", zone size %" PRIu64 ", %" PRIu64 " zones): not mapped",
			 f->geom.lba_size, f->geom.zone_size, f->geom.nr_zones);
		re.error = msg;
		restore_result(r, &re, ZNP_EXIT_UNSUITABLE);
		return 0;
	}
	ret = znp_dev_open(&r->cli->env, path, 0, &dev, &dwhy);
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
		ret = znp_cli_ublk_restore(r->cli, r->o, e->name, path, &re.result, msg,
					   sizeof(msg));
		if (ret)
			re.error = msg;
		restore_result(r, &re, ret);
		return 0;
	}
	znp_cli_map_ctx(r->cli, r->o, &c);
	c.name = e->name;
	c.persist = false;
	ret = znp_map_dm_plan(&c, dev, &pl, &err);
	if (pl.note[0])
		fprintf(r->cli->err, "%s: %s: note: %s\n", r->cli->prog, r->o->args[0], pl.note);
	if (!ret && !r->o->dry_run)
		ret = znp_map_dm_create(&c, dev, &pl, &err);
	znp_dev_close(dev);
	if (ret > 0) {
		re.result = "already-mapped";
		ret = 0;
	} else if (!ret) {
		re.result = r->o->dry_run ? "would-map" : "mapped";
	} else {
		snprintf(msg, sizeof(msg), "%s", err.why);
		re.error = msg;
		ret = znp_cli_map_exit(r->cli, &err);
	}
	restore_result(r, &re, ret);
	return 0;
}

static int only_ublk_cb(unsigned int lineno, const struct znp_dmconf_entry *e,
			const char *why, void *arg)
{
	if (e && !e->ublk)
		*(bool *)arg = false;
	return 0;
}

/* Does the mapping file record only ublk mappings (no dm target needed)? */
static bool only_ublk(const char *buf, size_t len)
{
	bool only = true;

	znp_dmconf_parse(buf, len, only_ublk_cb, &only);
	return only;
}

int znp_map_restore(const struct znp_cli *cli, const struct znp_opts *o,
		       struct znp_print *p)
{
	struct restore_ctx r = { .cli = cli, .o = o, .p = p };
	const char *conf = znp_cli_map_config(o);
	char target[ZNP_DM_TARGET_MAX];
	uint32_t ver[3];
	char *buf = NULL;
	size_t len = 0;
	int ret;

	ret = znp_dmconf_read(conf, &buf, &len);
	if (ret == -ENOENT) {
		p->ops->restore_begin(p, conf);
		p->ops->restore_end(p);
		return ZNP_EXIT_OK;	/* nothing recorded */
	}
	if (ret)
		return znp_cli_fail(cli, conf, "cannot read the mapping file", ret);
	ret = znp_dm_target_find(target, sizeof(target), ver);
	if (ret && !o->dry_run && !only_ublk(buf, len)) {
		struct znp_map_err e = { 0 };

		znp_map_dm_target_error(ret, &e);
		free(buf);
		return znp_cli_map_fail(cli, "map", &e);
	}
	ret = znp_scan(&cli->env, collect_ns, &r);
	if (ret) {
		free(buf);
		free(r.ns);
		return znp_cli_fail(cli, "map", "cannot list NVMe namespaces", ret);
	}
	p->ops->restore_begin(p, conf);
	ret = znp_dmconf_parse(buf, len, restore_entry, &r);
	p->ops->restore_end(p);
	free(buf);
	free(r.ns);
	if (ret < 0)	/* -ENOMEM: entries after the failure were not looked at */
		return znp_cli_fail(cli, conf, "cannot go through the mapping file", ret);
	return r.first_fail;
}
