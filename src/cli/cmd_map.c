// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map: dm-po2zone mappings of npo2 zoned namespaces (unmap and status are in
 * cmd_unmap.c).
 *
 * `map` refuses whatever `check` would not call mappable, then creates the
 * mapping through libdevmapper (dm.c: complete or not at all). `map
 * --persist` records it in the mapping file by the namespace's stable
 * identity; `map --restore` maps every recorded namespace present, found by
 * that identity, never by instance names (they change between boots).
 *
 * Test hook (undocumented for users, documented in tests/vm/README.md):
 * ZNP_TEST_MAP_KILL_AT=N makes `map` SIGKILL itself right before creation
 * step N (1 create, 2 load, 3 resume, 4 rename: enum znp_dm_step; 5 record
 * in the mapping file), to prove that no half-made mapping survives.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_map.h"
#include "dm.h"
#include "dmconf.h"
#include "sysfs.h"

#define STEP_PERSIST	ZNP_DM_STEP_NR	/* after the four dm steps */
#define MAP_ALREADY	(-1)		/* map_dev(): mapped already, by us, as asked */

const char *znp_map_config(const struct znp_opts *o)
{
	return o->config ? o->config : ZNP_DMCONF_PATH;
}

__attribute__((format(printf, 3, 4)))
static int fail(struct map_ctx *m, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return code;
}

static int kill_hook(enum znp_dm_step step, void *arg)
{
	if (*(const int *)arg == (int)step)
		raise(SIGKILL);
	return 0;
}

static int kill_at(void)
{
	const char *v = getenv("ZNP_TEST_MAP_KILL_AT");

	return v ? atoi(v) : 0;
}

/* The refusal for a check verdict other than mappable; 0 when mappable. */
static int refuse_verdict(struct map_ctx *m, const struct znp_dev *dev,
			  const struct znp_check_result *r)
{
	const struct znp_geom *g = &dev->geom;

	switch (r->verdict) {
	case ZNP_V_MAPPABLE:
		break;
	case ZNP_V_PO2:
		return fail(m, ZNP_EXIT_UNSUITABLE, "zone size 0x%" PRIx64
			    " LBAs is a power of 2: nothing to do (no mapping needed)", g->zone_size);
	case ZNP_V_NEEDS_KERNEL:
		return fail(m, ZNP_EXIT_UNSUPPORTED, "kernel lacks npo2 support: it hid the block "
			    "device of this npo2 namespace (boot a kernel with kernel-patches/)");
	case ZNP_V_CAP_LT_SIZE:
		return fail(m, ZNP_EXIT_UNSUITABLE, "zone capacity 0x%" PRIx64
			    " < zone size 0x%" PRIx64 " LBAs: dm-po2zone needs capacity == size",
			    g->zone_cap, g->zone_size);
	case ZNP_V_CAP_VARIES:
		return fail(m, ZNP_EXIT_UNSUITABLE, "%s", znp_verdict_text(r->verdict));
	case ZNP_V_NOT_ZNS:
		return fail(m, ZNP_EXIT_UNSUITABLE, "not a zoned namespace or zoned block device");
	}
	if (r->reasons & ZNP_R_SMALL_LAST_ZONE)
		return fail(m, ZNP_EXIT_UNSUITABLE, "the last zone is smaller than the others: "
			    "dm-po2zone maps whole zones only");
	return 0;
}

static int target_error(struct map_ctx *m, int ret)
{
	if (ret == -ENODEV)
		return fail(m, ZNP_EXIT_UNSUPPORTED, "device-mapper is not available (kernel "
			    "without it, or no access to /dev/mapper/control)");
	if (ret == -EOPNOTSUPP)
		return fail(m, ZNP_EXIT_UNSUPPORTED, "the kernel has no dm-po2zone target: "
			    "build it with kernel-patches/ (CONFIG_DM_PO2ZONE)");
	return fail(m, ZNP_EXIT_FAILED, "cannot list device-mapper targets: %s",
		    znp_strerror(ret));
}

struct holder_scan {
	const char *uuid;
	struct znp_holder found;
	int kind;			/* 0 none, 1 our mapping (this uuid), 2 other holder */
};

static int holder_cb(const struct znp_holder *h, void *arg)
{
	struct holder_scan *s = arg;

	if (znp_dm_name_is_creating(h->dm_name) && znp_dm_uuid_is_ours(h->dm_uuid))
		return 0;	/* an interrupted map: removed below */
	s->found = *h;
	s->kind = !strcmp(h->dm_uuid, s->uuid) ? 1 : 2;
	return 1;
}

/* Who holds the device already (sysfs: works without device-mapper access)? */
static int check_holders(struct map_ctx *m, const char *kname, const char *uuid)
{
	struct holder_scan hs = { .uuid = uuid };

	znp_blk_holders(&m->cli->env, kname, holder_cb, &hs);
	if (hs.kind == 1)
		return MAP_ALREADY;
	if (hs.kind == 2 && znp_dm_uuid_is_ours(hs.found.dm_uuid))
		return fail(m, ZNP_EXIT_REFUSED, "already mapped as %s (/dev/mapper/%s)",
			    hs.found.dm_name, hs.found.dm_name);
	if (hs.kind == 2)
		return fail(m, ZNP_EXIT_REFUSED, "in use by %s%s%s%s", hs.found.kname,
			    hs.found.dm_name[0] ? " (device-mapper device " : "",
			    hs.found.dm_name, hs.found.dm_name[0] ? ")" : "");
	return 0;
}

/*
 * The UUID in device-mapper (a mapping of ours, or the leftover of an
 * interrupted map, removed here), then exclusive use of the block device.
 */
static int check_unused(struct map_ctx *m, const char *uuid, const char *backing,
			bool dm_usable, char *leftover, size_t lsize)
{
	struct znp_dm_info info;
	int fd, ret;

	if (dm_usable) {
		ret = znp_dm_find_uuid(uuid, &info);
		if (!ret && !znp_dm_name_is_creating(info.name))
			return MAP_ALREADY;
		if (!ret && !m->o->dry_run) {
			ret = znp_dm_remove_leftover(uuid, leftover, lsize);
			if (ret < 0)
				return fail(m, ZNP_EXIT_FAILED, "cannot remove %s, left by an "
					    "interrupted map: %s", info.name, znp_strerror(ret));
		} else if (ret && ret != -ENXIO) {
			return fail(m, ZNP_EXIT_FAILED, "cannot list device-mapper devices: %s",
				    znp_strerror(ret));
		}
	}
	fd = open(backing, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0 && errno == EBUSY)
		return fail(m, ZNP_EXIT_REFUSED, "block device %s is in use (mounted or held)",
			    backing);
	if (fd >= 0)
		close(fd);
	return 0;
}

/*
 * Create the mapping, then record it with --persist; a mapping that cannot
 * be recorded is removed again. Return: 0 or -errno, *recorded set.
 */
static int create(struct map_ctx *m, struct znp_dm_create_req *req,
		  const struct znp_dmconf_entry *e, struct znp_dm_info *info)
{
	sigset_t block, old;
	int at = kill_at(), ret;

	req->before_step = at ? kill_hook : NULL;
	req->arg = &at;
	/* Only SIGKILL may interrupt the steps; its leftover is cleaned up later. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old);
	ret = znp_dm_create(req, info);
	if (ret) {
		m->err[0] = '\0';
	} else if (m->persist) {
		kill_hook(STEP_PERSIST, &at);
		ret = znp_dmconf_put(znp_map_config(m->o), e);
		if (ret) {
			snprintf(m->err, sizeof(m->err), "cannot record it in %s: %s; not mapped",
				 znp_map_config(m->o), znp_strerror(ret));
			znp_dm_remove(req->name, false);
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/*
 * Map an opened, probed device. Return: 0, MAP_ALREADY (mapped by us with
 * this identity), or an exit code with m->err set.
 */
static int map_dev(struct map_ctx *m, struct znp_dev *dev)
{
	const struct znp_ns_info *ns = znp_dev_is_nvme(dev) ? &dev->ns : NULL;
	char ident[ZNP_IDENT_MAX] = "", uuid[ZNP_DM_UUID_MAX], name[ZNP_DM_NAME_MAX];
	char backing[PATH_MAX], table[PATH_MAX + 64], leftover[ZNP_DM_NAME_MAX] = "";
	struct znp_dm_create_req req = { 0 };
	struct znp_check_result res;
	struct znp_dm_info info;
	const char *kname;
	uint32_t ver[3];
	bool dm_usable;
	int ret;

	ret = znp_check(ns, &dev->geom, dev->is_zoned, &res);
	if (ret)
		return fail(m, ZNP_EXIT_FAILED, "cannot decide: %s", znp_strerror(ret));
	ret = refuse_verdict(m, dev, &res);
	if (ret)
		return ret;
	kname = ns ? ns->blk_name : dev->name;
	if (!kname[0] || znp_dev_path(&m->cli->env, backing, sizeof(backing), kname))
		return fail(m, ZNP_EXIT_UNSUITABLE, "no block device to map");
	if (ns && (ret = znp_ident_from_ns(ns, ident, sizeof(ident))) && ret != -ENODATA)
		return fail(m, ZNP_EXIT_FAILED, "cannot build its identity: %s", znp_strerror(ret));
	if (m->persist && !ident[0])
		return fail(m, ZNP_EXIT_UNSUITABLE, "--persist needs a stable identity (an NVMe "
			    "namespace with an NGUID, EUI-64 or serial number)");
	if (ident[0])
		ret = znp_dm_uuid(ident, uuid, sizeof(uuid));
	else
		ret = snprintf(uuid, sizeof(uuid), ZNP_DM_UUID_PREFIX "dev:%s", kname) >=
		      (int)sizeof(uuid) ? -ENAMETOOLONG : 0;
	if (!ret)
		ret = m->name ? znp_strlcpy(name, m->name, sizeof(name))
			      : znp_dm_default_name(ns, dev->name, name, sizeof(name));
	if (ret)
		return fail(m, ZNP_EXIT_FAILED, "cannot name the mapping: %s", znp_strerror(ret));

	req.name = name;
	req.uuid = uuid;
	ret = znp_dm_table_len(&dev->geom, &req.table.len);
	if (ret)
		return fail(m, ZNP_EXIT_UNSUITABLE, "mapped size does not fit 64 bits");
	if (znp_strlcpy(req.table.dev, backing, sizeof(req.table.dev)))
		return fail(m, ZNP_EXIT_UNSUITABLE, "device path too long for a table: %s", backing);
	ret = check_holders(m, kname, uuid);
	if (ret)
		return ret;
	ret = znp_dm_target_find(req.table.target, sizeof(req.table.target), ver);
	dm_usable = !ret;
	if (ret && !m->o->dry_run)
		return target_error(m, ret);
	if (ret) {
		/* a dry run changes nothing: show the command, say what is missing */
		target_error(m, ret);
		fprintf(m->cli->err, "%s: %s: note: %s\n", m->cli->prog, m->o->args[0], m->err);
		znp_strlcpy(req.table.target, "po2zone", sizeof(req.table.target));
	}
	ret = check_unused(m, uuid, backing, dm_usable, leftover, sizeof(leftover));
	if (ret)
		return ret;
	if (dm_usable && !znp_dm_get(name, &info))
		return fail(m, ZNP_EXIT_REFUSED, "a device-mapper device named %s exists already "
			    "(choose another name with --name)", name);
	znp_dm_table_format(table, sizeof(table), &req.table);

	struct znp_map_view v = {
		.device = m->o->nargs ? m->o->args[0] : dev->path, .backing = backing, .ns = ns,
		.geom = &dev->geom, .name = name, .uuid = uuid, .ident = ident[0] ? ident : NULL,
		.target = req.table.target, .table = table, .table_len = req.table.len,
		.leftover = leftover[0] ? leftover : NULL, .dry_run = m->o->dry_run,
		.persisted = m->persist, .config = znp_map_config(m->o),
	};
	char dmk[32];

	if (!m->o->dry_run) {
		struct znp_dmconf_entry e = { .lba_size = dev->geom.lba_size,
			.zone_size = dev->geom.zone_size, .nr_zones = dev->geom.nr_zones };

		znp_strlcpy(e.name, name, sizeof(e.name));
		znp_strlcpy(e.ident, ident, sizeof(e.ident));
		ret = create(m, &req, &e, &info);
		if (ret && m->err[0])
			return ZNP_EXIT_FAILED;
		if (ret == -EEXIST)
			return fail(m, ZNP_EXIT_REFUSED, "cannot create %s: name or identity in use "
				    "(%s)", name, znp_dm_last_error());
		if (ret)
			return fail(m, ret == -EBUSY ? ZNP_EXIT_REFUSED : ZNP_EXIT_FAILED,
				    "cannot create %s: %s%s%s", name, znp_strerror(ret),
				    *znp_dm_last_error() ? ": " : "", znp_dm_last_error());
		snprintf(dmk, sizeof(dmk), "dm-%" PRIu32, info.minor);
		v.dm_kname = dmk;
	}
	if (!m->quiet)
		m->p->ops->map(m->p, &v);
	return 0;
}

static int map_one(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct map_ctx m = { .cli = cli, .o = o, .p = p, .name = o->name, .persist = o->persist };
	struct znp_dev *dev;
	int ret;

	ret = znp_cli_open_dev(cli, o, ZNP_CLI_FULL_CAP, false, &dev);
	if (ret)
		return ret;
	ret = map_dev(&m, dev);
	if (ret == MAP_ALREADY) {
		struct znp_holder h = { 0 };
		const char *kname = znp_dev_is_nvme(dev) ? dev->ns.blk_name : dev->name;

		if (!znp_blk_po2_holder(&cli->env, kname, &h))
			znp_strlcpy(h.dm_name, "a mapping of this tool", sizeof(h.dm_name));
		ret = fail(&m, ZNP_EXIT_REFUSED, "already mapped as %s", h.dm_name);
	}
	if (ret)
		znp_cli_err(cli, o->args[0], "%s", m.err);
	znp_dev_close(dev);
	return ret;
}

/* ---- map --restore ------------------------------------------------------ */

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

	if (r->nr_ns == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct ns_found *v = realloc(r->ns, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->ns = v;
		r->cap = cap;
	}
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
		znp_cli_err(r->cli, re->name ? re->name : znp_map_config(r->o), "%s", re->error);
}

static int restore_entry(unsigned int lineno, const struct znp_dmconf_entry *e,
			 const char *why, void *arg)
{
	struct restore_ctx *r = arg;
	struct znp_restore_entry re = { .line = lineno };
	struct map_ctx m = { .cli = r->cli, .o = r->o, .p = r->p, .quiet = true };
	const struct ns_found *f = NULL;
	char path[PATH_MAX], msg[400];
	struct znp_dev *dev;
	const char *dwhy;
	int ret;

	if (!e) {
		snprintf(msg, sizeof(msg), "%s line %u: %s", znp_map_config(r->o), lineno, why);
		re.result = "invalid";
		re.error = msg;
		restore_result(r, &re, ZNP_EXIT_FAILED);
		return 0;
	}
	re.name = e->name;
	re.ident = e->ident;
	for (size_t i = 0; i < r->nr_ns && !f; i++)
		if (!strcmp(r->ns[i].ident, e->ident))
			f = &r->ns[i];
	if (!f) {
		re.result = "missing";
		re.error = "namespace not present: skipped";
		restore_result(r, &re, 0);
		return 0;
	}
	znp_dev_path(&r->cli->env, path, sizeof(path),
		     f->ns.blk_visible && f->ns.blk_name[0] ? f->ns.blk_name : f->ns.ng_name);
	re.device = path;
	re.result = "failed";
	if (f->ok && ((e->lba_size && e->lba_size != f->geom.lba_size) ||
		      (e->zone_size && e->zone_size != f->geom.zone_size) ||
		      (e->nr_zones && e->nr_zones != f->geom.nr_zones))) {
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
		restore_result(r, &re, znp_exit_from_ret(ret));
		return 0;
	}
	m.name = e->name;
	ret = map_dev(&m, dev);
	znp_dev_close(dev);
	if (ret == MAP_ALREADY) {
		re.result = "already-mapped";
		ret = 0;
	} else if (!ret) {
		re.result = r->o->dry_run ? "would-map" : "mapped";
	} else {
		snprintf(msg, sizeof(msg), "%s", m.err);
		re.error = msg;
	}
	restore_result(r, &re, ret);
	return 0;
}

static int map_restore(const struct znp_cli *cli, const struct znp_opts *o,
		       struct znp_print *p)
{
	struct restore_ctx r = { .cli = cli, .o = o, .p = p };
	const char *conf = znp_map_config(o);
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
	if (ret && !o->dry_run) {
		struct map_ctx m = { 0 };

		ret = target_error(&m, ret);
		znp_cli_err(cli, "map", "%s", m.err);
		free(buf);
		return ret;
	}
	ret = znp_scan(&cli->env, collect_ns, &r);
	if (ret) {
		free(buf);
		free(r.ns);
		return znp_cli_fail(cli, "map", "cannot list NVMe namespaces", ret);
	}
	p->ops->restore_begin(p, conf);
	znp_dmconf_parse(buf, len, restore_entry, &r);
	p->ops->restore_end(p);
	free(buf);
	free(r.ns);
	return r.first_fail;
}

/* ---- shared with map of several devices (cmd_mapcat.c) ------------------ */

int znp_map_check_dev(struct map_ctx *m, const struct znp_dev *dev)
{
	const struct znp_ns_info *ns = znp_dev_is_nvme(dev) ? &dev->ns : NULL;
	struct znp_check_result res;
	int ret;

	ret = znp_check(ns, &dev->geom, dev->is_zoned, &res);
	if (ret)
		return fail(m, ZNP_EXIT_FAILED, "cannot decide: %s", znp_strerror(ret));
	return refuse_verdict(m, dev, &res);
}

int znp_map_target_error(struct map_ctx *m, int ret)
{
	return target_error(m, ret);
}

int znp_map_check_free(struct map_ctx *m, const char *kname, const char *uuid,
		       const char *backing, bool dm_usable)
{
	char leftover[ZNP_DM_NAME_MAX];
	int ret;

	ret = check_holders(m, kname, uuid);
	if (!ret)
		ret = check_unused(m, uuid, backing, dm_usable, leftover, sizeof(leftover));
	return ret == MAP_ALREADY ? fail(m, ZNP_EXIT_REFUSED, "already mapped by this tool") : ret;
}

int znp_cmd_map(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	const char *why;

	if (o->restore && (o->nargs || o->name || o->persist)) {
		znp_cli_err(cli, "map", "--restore takes no device, --name or --persist");
		return ZNP_EXIT_USAGE;
	}
	if (o->restore)
		return map_restore(cli, o, p);
	if (!o->nargs) {
		znp_cli_err(cli, "map", "missing argument <device> (or --restore)");
		return ZNP_EXIT_USAGE;
	}
	if (o->name && (why = znp_dm_name_invalid(o->name))) {
		znp_cli_err(cli, o->args[0], "invalid --name '%s': %s", o->name, why);
		return ZNP_EXIT_USAGE;
	}
	if (o->nargs > 1)
		return znp_map_concat(cli, o, p);
	return map_one(cli, o, p);
}
