// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map --ublk: serve a npo2 namespace as a power-of-2 zoned ublk device
 * (the server is src/ublk/; these files are its life around it).
 *
 * 1. Refuse what cannot be served (check verdicts, geometry), before
 *    anything changes (cmd_ublkmap_refuse.c).
 * 2. Take the namespace's lock in /run/zns-npo2 (svc.h): a second server on
 *    the same namespace is refused with the first one's PID and device,
 *    before anything is recorded.
 * 3. The ublk driver: probe it, `modprobe ublk_drv` when it is not loaded
 *    (cmd_ublkmap_refuse.c).
 * 4. A record of a device that is still there and QUIESCED (its server was
 *    killed): take it back with user recovery; a stale record is dropped.
 * 5. Unless --foreground, fork: the child serves as a daemon (new session,
 *    stdio on /dev/null, logging to syslog), the parent waits on a pipe
 *    until the device is live (or the child failed) and prints the result.
 * 6. Once live: with --persist, the entry in the mapping file (if that
 *    fails, the device is stopped and deleted: not mapped); then the record
 *    (PID, ublk device id, namespace identity and geometry). SIGTERM/SIGINT
 *    stop the device; after a clean stop (also STOP_DEV from `unmap`) the
 *    device is deleted and the record removed.
 *    (2 to 6: cmd_ublkmap_serve.c)
 *
 * Every refusal is logged (stderr and syslog) with its reason.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_map.h"
#include "cmd_ublk.h"
#include "cmd_ublkmap.h"
#include "dm.h"

void umap_say(struct umap *m, int prio, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	syslog(prio, "%s: %s", m->o->args[0], buf);
	if (!m->daemon && prio <= LOG_WARNING)
		znp_cli_err(m->cli, m->o->args[0], "%s", buf);
	else if (!m->daemon && (m->o->verbose || m->o->foreground))
		fprintf(m->cli->err, "%s: %s: %s\n", m->cli->prog, m->o->args[0], buf);
}

int umap_refuse(struct umap *m, int code, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	umap_say(m, LOG_ERR, "%s", buf);
	if (m->report_fd >= 0) {
		dprintf(m->report_fd, "E %d %s\n", code, buf);
		close(m->report_fd);
		m->report_fd = -1;
	}
	return code;
}

/* ---- map --ublk --name NAME without a device ---------------------------- */

struct by_name {
	const char *name;
	struct znp_dmconf_entry e;
	bool found;
	char ng[PATH_MAX];
	const struct znp_cli *cli;
};

static int by_name_cb(unsigned int lineno, const struct znp_dmconf_entry *e, const char *why,
		      void *arg)
{
	struct by_name *b = arg;

	if (e && !strcmp(e->name, b->name)) {
		b->e = *e;
		b->found = true;
		return 1;
	}
	return 0;
}

static int by_ident_cb(const struct znp_scan_entry *se, void *arg)
{
	struct by_name *b = arg;
	char ident[ZNP_IDENT_MAX];

	if (se->ns.ng_name[0] && !znp_ident_from_ns(&se->ns, ident, sizeof(ident)) &&
	    !strcmp(ident, b->e.ident)) {
		znp_dev_path(&b->cli->env, b->ng, sizeof(b->ng), se->ns.ng_name);
		return 1;
	}
	return 0;
}

/*
 * `map --ublk --name NAME` without a device (the systemd unit): the
 * namespace recorded under NAME in the mapping file, found by identity.
 * Return: 0 with b->ng set, or an exit code (error printed and logged).
 */
static int recorded_ng(const struct znp_cli *cli, const struct znp_opts *o, struct by_name *b)
{
	char *buf;
	size_t len;
	int ret;

	b->name = o->name;
	b->cli = cli;
	ret = znp_dmconf_read(znp_map_config(o), &buf, &len);
	if (ret) {
		znp_cli_err(cli, o->name, "cannot read %s: %s", znp_map_config(o), znp_strerror(ret));
		syslog(LOG_ERR, "%s: cannot read %s: %s", o->name, znp_map_config(o),
		       znp_strerror(ret));
		return znp_cli_exit(cli, ret);
	}
	ret = znp_dmconf_parse(buf, len, by_name_cb, b);
	free(buf);
	if (ret < 0) {		/* -ENOMEM: a failure, not "no such mapping" */
		znp_cli_err(cli, o->name, "cannot parse %s: %s", znp_map_config(o),
			    znp_strerror(ret));
		syslog(LOG_ERR, "%s: cannot parse %s: %s", o->name, znp_map_config(o),
		       znp_strerror(ret));
		return ZNP_EXIT_FAILED;
	}
	if (!b->found || !b->e.ublk) {
		znp_cli_err(cli, o->name, "no ublk mapping of this name in %s", znp_map_config(o));
		syslog(LOG_ERR, "%s: no ublk mapping of this name in %s", o->name,
		       znp_map_config(o));
		return ZNP_EXIT_UNSUITABLE;
	}
	b->ng[0] = '\0';
	ret = znp_scan(&cli->env, by_ident_cb, b);
	if (ret < 0) {		/* sysfs unreadable, ENOMEM: not "not present" */
		znp_cli_err(cli, o->name, "cannot list the NVMe namespaces: %s", znp_strerror(ret));
		syslog(LOG_ERR, "%s: cannot list the NVMe namespaces: %s", o->name,
		       znp_strerror(ret));
		return ZNP_EXIT_FAILED;
	}
	if (!b->ng[0]) {
		znp_cli_err(cli, o->name, "namespace %s is not present", b->e.ident);
		syslog(LOG_ERR, "%s: namespace %s is not present", o->name, b->e.ident);
		return ZNP_EXIT_UNSUITABLE;
	}
	return 0;
}

/*
 * The systemd unit's form: *@o becomes a copy of it whose device is the ng
 * node of the namespace recorded under --name. Return: 0 or the exit code.
 */
static int use_recorded(const struct znp_cli *cli, const struct znp_opts **o)
{
	static struct znp_opts o2;
	static struct by_name b;
	int ret;

	if (!(*o)->name) {
		znp_cli_err(cli, "map", "missing argument <device> (or --name of a "
			    "recorded ublk mapping)");
		return ZNP_EXIT_USAGE;
	}
	ret = recorded_ng(cli, *o, &b);
	if (ret)
		return ret;
	o2 = **o;
	o2.args[0] = b.ng;
	o2.nargs = 1;
	*o = &o2;
	return 0;
}

/* ---- the command ----------------------------------------------------------- */

/* The ranges of --ublk-id, --queues, --queue-depth. Return: 0 or exit 2. */
static int check_args(const struct znp_cli *cli, const struct znp_opts *o)
{
	if (znp_opt_given(o, ZNP_O_UBLK_ID) && o->ublk_id > INT32_MAX - 1) {
		znp_cli_err(cli, o->args[0], "--ublk-id too large");
		return ZNP_EXIT_USAGE;
	}
	if (o->queues > ZNP_UBLK_MAX_QUEUES || (znp_opt_given(o, ZNP_O_QUEUES) && !o->queues)) {
		znp_cli_err(cli, o->args[0], "--queues must be 1 to %d", ZNP_UBLK_MAX_QUEUES);
		return ZNP_EXIT_USAGE;
	}
	if (o->queue_depth > ZNP_UBLK_MAX_DEPTH ||
	    (znp_opt_given(o, ZNP_O_QUEUE_DEPTH) && !o->queue_depth)) {
		znp_cli_err(cli, o->args[0], "--queue-depth must be 1 to %d", ZNP_UBLK_MAX_DEPTH);
		return ZNP_EXIT_USAGE;
	}
	return 0;
}

/* The view printed and the record written for the namespace's server. */
static void serve_init(struct serve *s, struct znp_dev *dev, const struct znp_ublk_geom *g,
		       const char *ident)
{
	const struct znp_opts *o = s->m->o;

	s->dev = dev;
	s->g = g;
	s->v = (struct znp_map_ublk_view){
		.device = o->args[0], .ns = &dev->ns, .geom = &dev->geom, .ident = ident,
		.name = o->name ? o->name : "", .dev_id = -1, .zone_sectors = g->zone_sectors,
		.zone_cap_sectors = g->zone_cap_sectors, .dev_sectors = g->dev_sectors,
		.queues = o->queues ? o->queues : znp_ublk_default_queues(),
		.depth = o->queue_depth ? o->queue_depth : ZNP_UBLK_DEF_DEPTH,
		.foreground = o->foreground, .dry_run = o->dry_run, .persisted = o->persist,
		.config = znp_map_config(o),
	};
	s->rec = (struct znp_ublk_rec){
		.nsid = dev->ns.nsid, .lba_size = dev->geom.lba_size,
		.zone_size = dev->geom.zone_size, .zone_cap = dev->geom.zone_cap,
		.nr_zones = g->nr_zones, .po2_zone_sectors = g->zone_sectors,
		.persist = o->persist,
	};
	znp_strlcpy(s->rec.ident, ident, sizeof(s->rec.ident));
	znp_strlcpy(s->rec.ng, dev->ns.ng_name, sizeof(s->rec.ng));
	if (o->name)
		znp_strlcpy(s->rec.name, o->name, sizeof(s->rec.name));
}

int umap_persist(struct serve *s)
{
	const struct znp_opts *o = s->m->o;
	const struct znp_dev *dev = s->dev;
	struct znp_dmconf_entry e = { .lba_size = dev->geom.lba_size,
		.zone_size = dev->geom.zone_size, .nr_zones = dev->geom.nr_zones,
		.ublk = true };
	char lockwhy[PATH_MAX + 96];
	int ret;

	snprintf(e.name, sizeof(e.name), "%s", o->name ? o->name : "");
	if (!e.name[0])
		znp_dm_default_name(&dev->ns, dev->name, e.name, sizeof(e.name));
	znp_strlcpy(s->rec.name, e.name, sizeof(s->rec.name));
	znp_strlcpy(e.ident, s->v.ident, sizeof(e.ident));
	ret = znp_dmconf_put(s->config, &e);
	if (ret)
		return umap_refuse(s->m, ZNP_EXIT_FAILED, "cannot record it in %s: %s; not mapped",
				   s->config, znp_cli_conf_strerror(s->config, ret, lockwhy,
				   sizeof(lockwhy)));
	return 0;
}

/* s->config: the mapping file as an absolute path. Return: 0 or the exit code. */
static int config_path(struct serve *s)
{
	const char *c = znp_map_config(s->m->o);
	char cwd[PATH_MAX];

	if (c[0] == '/' ? znp_strlcpy(s->config, c, sizeof(s->config)) :
	    !getcwd(cwd, sizeof(cwd)) ||
	    snprintf(s->config, sizeof(s->config), "%s/%s", cwd, c) >= (int)sizeof(s->config)) {
		znp_cli_err(s->m->cli, s->m->o->args[0], "--config '%s': path too long", c);
		return ZNP_EXIT_USAGE;
	}
	return 0;
}

int znp_cmd_map_ublk(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct umap m = { .cli = cli, .o = o, .p = p, .report_fd = -1 };
	struct serve s = { .m = &m, .dirfd = -1 };
	struct znp_ublk_geom g;
	char ident[ZNP_IDENT_MAX];
	struct znp_dev *dev;
	int ret;

	openlog("nvme-zns-npo2", LOG_PID, LOG_DAEMON);
	if (!o->nargs) {
		ret = use_recorded(cli, &o);
		if (ret)
			return ret;
		m.o = o;
	}
	ret = check_args(cli, o);
	if (ret)
		return ret;
	ret = znp_cli_open_dev(cli, o, ZNP_OPEN_WRITE | ZNP_CLI_FULL_CAP, false, &dev);
	if (ret)
		return ret;
	ret = umap_check_dev(&m, dev, &g, ident, sizeof(ident));
	if (ret)
		goto out;
	serve_init(&s, dev, &g, ident);
	if (o->dry_run) {
		p->ops->map_ublk(p, &s.v);
		ret = ZNP_EXIT_OK;
		goto out;
	}
	/* lock, driver, create, then record (--persist): cmd_ublkmap_serve.c */
	ret = o->persist ? config_path(&s) : 0;
	if (!ret)
		ret = umap_start(&s);
out:
	if (s.dirfd >= 0)
		close(s.dirfd);
	znp_dev_close(dev);
	return ret;
}
