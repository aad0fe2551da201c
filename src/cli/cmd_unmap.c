// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unmap, status: the dm-po2zone mappings made by `map` (recognised by their
 * UUID prefix; see src/dm/dm.h), found by name, device-mapper node, or the
 * device they map.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cmd.h"
#include "cmd_map.h"
#include "cmd_ublk.h"

/* Backing device of a po2 mapping: its kernel name, else the table's text. */
static void backing_of(const struct znp_env *env, const struct znp_dm_info *d, char *buf,
		       size_t size)
{
	unsigned int maj, min;
	char extra;

	buf[0] = '\0';
	if (!d->nr_targets || !d->table.dev[0])
		return;
	if (sscanf(d->table.dev, "%u:%u%c", &maj, &min, &extra) != 2 ||
	    znp_blk_kname(env, maj, min, buf, size))
		znp_strlcpy(buf, d->table.dev, size);
}

struct find_holder {
	struct znp_holder ours, other;
};

static int find_holder_cb(const struct znp_holder *h, void *arg)
{
	struct find_holder *f = arg;

	if (znp_dm_uuid_is_ours(h->dm_uuid) && !f->ours.kname[0])
		f->ours = *h;
	else if (h->dm_name[0] && !f->other.kname[0])
		f->other = *h;
	return 0;
}

/*
 * The mapping @arg means: a mapping name, /dev/mapper/NAME or /dev/dm-N, or
 * a device (namespace, null_blk) it maps. Prints the error itself.
 * Return: 0 with @name set, or an exit code.
 */
static int resolve_mapping(const struct znp_cli *cli, const char *arg, char *name, size_t size)
{
	struct find_holder fh = { 0 };
	struct znp_dm_info info;
	struct znp_dev *dev;
	const char *why, *kname;
	struct stat st;
	int ret;

	if (!strchr(arg, '/')) {
		ret = znp_dm_get(arg, &info);
		if (!ret)
			return znp_strlcpy(name, arg, size) ? ZNP_EXIT_USAGE : 0;
		if (ret == -ENODEV) {
			znp_cli_err(cli, arg, "device-mapper is not available");
			return ZNP_EXIT_UNSUPPORTED;
		}
		znp_cli_err(cli, arg, "no such mapping");
		return ZNP_EXIT_UNSUITABLE;
	}
	if (stat(arg, &st)) {
		znp_cli_err(cli, arg, "no such device or mapping");
		return ZNP_EXIT_UNSUITABLE;
	}
	if (S_ISBLK(st.st_mode) &&
	    !znp_blk_dm_name(&cli->env, major(st.st_rdev), minor(st.st_rdev), name, size))
		return 0;	/* a device-mapper device */
	ret = znp_dev_open(&cli->env, arg, 0, &dev, &why);
	if (ret) {
		znp_cli_err(cli, arg, "%s", why ? why : znp_strerror(ret));
		return znp_exit_from_ret(ret);
	}
	kname = znp_dev_is_nvme(dev) ? dev->ns.blk_name : dev->name;
	znp_blk_holders(&cli->env, kname, find_holder_cb, &fh);
	znp_dev_close(dev);
	if (fh.ours.kname[0])
		return znp_strlcpy(name, fh.ours.dm_name, size) ? ZNP_EXIT_FAILED : 0;
	if (fh.other.kname[0])
		znp_cli_err(cli, arg, "mapped by %s, which is not a mapping made by this tool",
			    fh.other.dm_name);
	else
		znp_cli_err(cli, arg, "is not mapped");
	return ZNP_EXIT_UNSUITABLE;
}

int znp_cmd_unmap(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	char name[ZNP_DM_NAME_MAX], backing[ZNP_DM_DEV_MAX], mnt[512], lockwhy[PATH_MAX + 96];
	struct znp_unmap_view v = { .dry_run = o->dry_run, .config = znp_map_config(o) };
	struct znp_dm_info info;
	const char *ident;
	int ret;

	if (znp_cli_ublk_names(cli, o->args[0]))
		return znp_cli_ublk_unmap(cli, o, p);
	ret = resolve_mapping(cli, o->args[0], name, sizeof(name));
	if (ret)
		return ret;
	ret = znp_dm_get(name, &info);
	if (ret) {
		if (ret == -ENODEV) {
			znp_cli_err(cli, name, "device-mapper is not available");
			return ZNP_EXIT_UNSUPPORTED;
		}
		znp_cli_err(cli, name, "%s", ret == -ENXIO ? "no such mapping" : znp_strerror(ret));
		return znp_exit_from_ret(ret);
	}
	if (!znp_dm_uuid_is_ours(info.uuid)) {
		znp_cli_err(cli, name, "not a mapping made by this tool (UUID '%s'): not removed",
			    info.uuid);
		return ZNP_EXIT_UNSUITABLE;
	}
	backing_of(&cli->env, &info, backing, sizeof(backing));
	v.name = name;
	v.backing = backing[0] ? backing : NULL;
	if (info.open_count > 0 && !o->force) {
		znp_blk_mount_point(info.major, info.minor, mnt, sizeof(mnt));
		znp_cli_err(cli, name, "in use (open count %d%s%s): not removed; unmount or close "
			    "it, or use --force to remove it at its last close", info.open_count,
			    mnt[0] ? ", mounted on " : "", mnt);
		return ZNP_EXIT_REFUSED;
	}
	if (!o->dry_run) {
		ret = znp_dm_remove(name, o->force);
		if (ret < 0) {
			znp_cli_err(cli, name, "cannot remove: %s%s%s", znp_strerror(ret),
				    *znp_dm_last_error() ? ": " : "", znp_dm_last_error());
			return ret == -EBUSY ? ZNP_EXIT_REFUSED : ZNP_EXIT_FAILED;
		}
		v.deferred = ret == 1;
		ident = znp_dm_uuid_ident(info.uuid);
		if (znp_ident_valid(ident)) {
			ret = znp_dmconf_drop(znp_map_config(o), ident, NULL);
			if (ret < 0) {
				p->ops->unmap(p, &v);
				znp_cli_err(cli, name, "removed, but cannot update %s: %s",
					    znp_map_config(o), znp_cli_conf_strerror(znp_map_config(o),
					    ret, lockwhy, sizeof(lockwhy)));
				return ZNP_EXIT_FAILED;
			}
			v.forgotten = ret == 1;
		}
	}
	p->ops->unmap(p, &v);
	return ZNP_EXIT_OK;
}

struct status_ctx {
	const struct znp_cli *cli;
	struct znp_print *p;
	char *conf;			/* mapping file contents, or NULL */
	size_t conf_len;
};

struct ident_match {
	const char *ident;
	bool found;
};

static int conf_has_cb(unsigned int lineno, const struct znp_dmconf_entry *e,
		       const char *why, void *arg)
{
	struct ident_match *m = arg;

	if (e && !strcmp(e->ident, m->ident))
		m->found = true;
	return m->found;
}

static int status_one(const struct znp_dm_info *d, void *arg)
{
	struct status_ctx *s = arg;
	struct znp_status_row r = { .dm = d };
	char backing[ZNP_DM_DEV_MAX];
	struct znp_ns_info ns = { 0 };
	struct ident_match im;

	if (!znp_dm_uuid_is_ours(d->uuid))
		return 0;
	backing_of(&s->cli->env, d, backing, sizeof(backing));
	r.backing = backing[0] ? backing : NULL;
	if (!znp_ns_from_blk(&s->cli->env, backing, &ns))
		r.ns = &ns;
	r.ident = znp_dm_uuid_ident(d->uuid);
	if (s->conf && znp_ident_valid(r.ident)) {
		im = (struct ident_match){ .ident = r.ident };
		znp_dmconf_parse(s->conf, s->conf_len, conf_has_cb, &im);
		r.persisted = im.found;
	}
	s->p->ops->status_row(s->p, &r);
	return 0;
}

int znp_cmd_status(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct status_ctx s = { .cli = cli, .p = p };
	char name[ZNP_DM_NAME_MAX];
	struct znp_dm_info info;
	bool dm_ok = true;
	int ret;

	if (o->nargs && znp_cli_ublk_names(cli, o->args[0])) {
		p->ops->status_begin(p);
		znp_cli_ublk_status(cli, p, o->args[0]);
		p->ops->status_end(p);
		return ZNP_EXIT_OK;
	}
	if (o->nargs) {
		ret = resolve_mapping(cli, o->args[0], name, sizeof(name));
		if (ret)
			return ret;
		if (znp_dm_get(name, &info) || !znp_dm_uuid_is_ours(info.uuid)) {
			znp_cli_err(cli, name, "not a mapping made by this tool");
			return ZNP_EXIT_UNSUITABLE;
		}
	} else if (znp_dm_list(NULL, NULL) == -ENODEV) {	/* is device-mapper usable? */
		dm_ok = false;
	}
	if (!dm_ok && !znp_cli_ublk_status(cli, NULL, NULL)) {
		znp_cli_err(cli, "status", "device-mapper is not available (kernel without it, "
			    "or no access to /dev/mapper/control)");
		return ZNP_EXIT_UNSUPPORTED;
	}
	if (znp_dmconf_read(znp_map_config(o), &s.conf, &s.conf_len))
		s.conf = NULL;
	p->ops->status_begin(p);
	/* one mapping: the one just read, not every device-mapper device again */
	ret = 0;
	if (dm_ok)
		ret = o->nargs ? status_one(&info, &s) : znp_dm_list(status_one, &s);
	if (!o->nargs)
		znp_cli_ublk_status(cli, p, NULL);	/* the ublk mappings after the dm ones */
	p->ops->status_end(p);
	free(s.conf);
	if (ret)
		return znp_cli_fail(cli, "status", "cannot list device-mapper devices", ret);
	return ZNP_EXIT_OK;
}
