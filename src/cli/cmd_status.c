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

/* The ublk rows (and the records that cannot be read) for znp_map_ublk_status(). */
struct ublk_rows {
	const struct znp_cli *cli;
	struct znp_print *p;
	const char *run_dir;
};

static void ublk_row(const struct znp_map_ublk_found *f, void *arg)
{
	znp_cli_ublk_status_row(((struct ublk_rows *)arg)->p, f);
}

static void bad_record(const char *file, const char *why, void *arg)
{
	const struct ublk_rows *u = arg;

	znp_cli_err(u->cli, file, "unreadable ublk mapping record in %s: %s", u->run_dir, why);
}

int znp_cmd_status(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct ublk_rows rows = { .cli = cli, .p = p };
	struct znp_map_ublk_found f;
	struct znp_map_err e = { 0 };
	char name[ZNP_DM_NAME_MAX];
	struct znp_dm_info info;
	bool dm_ok = true, ublk_failed = false;
	struct znp_map_ctx c;
	int ret;

	znp_cli_map_ctx(cli, o, &c);
	rows.run_dir = c.run_dir;
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
	if (!o->nargs && znp_map_ublk_status(&c, ublk_row, bad_record, &rows, &e) < 0) {
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
