// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status [<mapping|device>]: the mappings made by `map`, dm-po2zone ones
 * first, then the ublk ones (src/map/map.h finds and describes them).
 */
#include <errno.h>

#include "cmd.h"
#include "cmd_map.h"

static void dm_row(const struct znp_map_dm_row *d, void *arg)
{
	struct znp_print *p = arg;
	struct znp_status_row r = { .dm = d->dm, .ns = d->ns, .backing = d->backing,
		.ident = d->ident, .persisted = d->persisted };

	p->ops->status_row(p, &r);
}

struct bad_rec {
	const struct znp_cli *cli;
	const char *run_dir;
};

static void bad_record(const char *file, const char *why, void *arg)
{
	const struct bad_rec *b = arg;

	znp_cli_err(b->cli, file, "unreadable ublk mapping record in %s: %s", b->run_dir, why);
}

struct status_args {
	struct znp_print *p;
	struct bad_rec bad;
};

static void ublk_row_s(const struct znp_map_ublk_found *f, void *arg)
{
	znp_cli_ublk_status_row(((struct status_args *)arg)->p, f);
}

static void bad_record_s(const char *file, const char *why, void *arg)
{
	bad_record(file, why, &((struct status_args *)arg)->bad);
}

int znp_cmd_status(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct status_args sa = { .p = p, .bad = { .cli = cli } };
	struct znp_map_ublk_found f;
	struct znp_map_err e = { 0 };
	char name[ZNP_DM_NAME_MAX];
	struct znp_dm_info info;
	bool dm_ok = true, ublk_failed = false;
	struct znp_map_ctx c;
	int ret;

	znp_cli_map_ctx(cli, o, &c);
	sa.bad.run_dir = c.run_dir;
	ret = o->nargs ? znp_map_ublk_find(&c, o->args[0], &f, &e) : 0;
	if (ret < 0) {
		znp_cli_map_fail(cli, o->args[0], &e);
		return ZNP_EXIT_FAILED;		/* the records cannot be read */
	}
	if (ret) {
		p->ops->status_begin(p);
		znp_cli_ublk_status_row(p, &f);
		p->ops->status_end(p);
		return ZNP_EXIT_OK;
	}
	if (o->nargs) {
		if (znp_map_dm_find(&c, o->args[0], name, sizeof(name), &e))
			return znp_cli_map_fail(cli, o->args[0], &e);
		if (znp_dm_get(name, &info) || !znp_dm_uuid_is_ours(info.uuid)) {
			znp_cli_err(cli, name, "not a mapping made by this tool");
			return ZNP_EXIT_UNSUITABLE;
		}
	} else if (znp_dm_list(NULL, NULL) == -ENODEV) {	/* is device-mapper usable? */
		dm_ok = false;
	}
	if (!dm_ok && !znp_map_ublk_status(&c, NULL, NULL, NULL, &e)) {
		znp_cli_err(cli, "status", "device-mapper is not available (kernel without it, "
			    "or no access to /dev/mapper/control)");
		return ZNP_EXIT_UNSUPPORTED;
	}
	p->ops->status_begin(p);
	ret = dm_ok ? znp_map_dm_status(&c, o->nargs ? &info : NULL, dm_row, p) : 0;
	/* the ublk mappings after the dm ones */
	if (!o->nargs && znp_map_ublk_status(&c, ublk_row_s, bad_record_s, &sa, &e) < 0) {
		znp_cli_map_fail(cli, "status", &e);
		ublk_failed = true;
	}
	p->ops->status_end(p);
	if (ublk_failed)
		return ZNP_EXIT_FAILED;	/* the records cannot be read (said) */
	if (ret)
		return znp_cli_fail(cli, "status", "cannot list device-mapper devices", ret);
	return ZNP_EXIT_OK;
}
