// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map --ublk: serve a npo2 namespace as a power-of-2 zoned ublk device. The
 * life cycle is src/map/'s (map.h: plan and refuse, lock, driver, recovery,
 * create, record, undo); here are the arguments, the printing and logging,
 * and the daemon (cmd_ublkmap_daemon.c).
 *
 * 1. Refuse what cannot be served (check verdicts, geometry), before
 *    anything changes.
 * 2. Take the namespace's lock in /run/zns-npo2 (svc.h): a second server on
 *    the same namespace is refused with the first one's PID and device.
 * 3. The ublk driver: probe it, `modprobe ublk_drv` when it is not loaded.
 * 4. A record of a device that is still there and QUIESCED (its server was
 *    killed): take it back with user recovery; a stale record is dropped.
 * 5. Unless --foreground, fork: the child serves as a daemon (new session,
 *    stdio on /dev/null, logging to syslog), the parent waits on a pipe
 *    until the device is live (or the child failed) and prints the result.
 * 6. Once live: with --persist, the entry in the mapping file (if that
 *    fails, the device is stopped and deleted: not mapped); then the record.
 * 7. SIGTERM or SIGINT: a device nobody holds is stopped and deleted; a
 *    mounted or open one is never deleted: the server parks it, quiesced,
 *    for the next server (map/ublk-serve.c, src/ublk/README.md).
 *
 * Every refusal is logged (stderr and syslog; under systemd, whose journal
 * is stderr, syslog only: one line each) with its reason.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cmd_map.h"
#include "cmd_ublkmap.h"

/*
 * The systemd unit's form, `map --ublk --name NAME` without a device: *@o
 * becomes a copy of it whose device is the ng node of the namespace
 * recorded under --name. Return: 0 or the exit code (said and logged).
 */
static int use_recorded(const struct znp_cli *cli, const struct znp_opts **o)
{
	static struct znp_opts o2;
	static char ng[PATH_MAX];
	struct znp_map_err e = { 0 };
	struct znp_map_ctx c;

	if (!(*o)->name) {
		znp_cli_err(cli, "map", "missing argument <device> (or --name of a "
			    "recorded ublk mapping)");
		return ZNP_EXIT_USAGE;
	}
	znp_cli_map_ctx(cli, *o, &c);
	if (znp_map_ublk_recorded(&c, (*o)->name, ng, sizeof(ng), &e)) {
		syslog(LOG_ERR, "%s: %s", (*o)->name, e.why);
		return znp_cli_map_fail(cli, (*o)->name, &e);
	}
	o2 = **o;
	o2.args[0] = ng;
	o2.nargs = 1;
	*o = &o2;
	return 0;
}

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

/* The view printed for the namespace's server. */
static void view_init(struct ublkmap *m)
{
	const struct znp_opts *o = m->o;
	const struct znp_map_ublk *u = &m->u;

	m->v = (struct znp_map_ublk_view){
		.device = o->args[0], .ns = &u->dev->ns, .geom = &u->dev->geom, .ident = u->ident,
		.name = o->name ? o->name : "", .dev_id = -1, .zone_sectors = u->g.zone_sectors,
		.zone_cap_sectors = u->g.zone_cap_sectors, .dev_sectors = u->g.dev_sectors,
		.queues = u->queues, .depth = u->depth,
		.foreground = o->foreground, .dry_run = o->dry_run, .persisted = o->persist,
		.config = m->c.config,
	};
}

/*
 * Is stderr systemd's journal stream ($JOURNAL_STREAM is its "device:inode")?
 * Then syslog reaches the journal already, with the message's priority.
 */
static bool stderr_is_journal(const struct znp_cli *cli)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
	       !fstat(fileno(cli->err), &st) && st.st_dev == dev && st.st_ino == ino;
}

/*
 * Benchmark hook (meson -Dtest_hooks=true only): ZNP_UBLK_USER_COPY=1 moves
 * the data by user copy where the driver offers zero copy (the baseline
 * bench/ublk-bench.sh measures zero copy against).
 */
static bool user_copy_asked(void)
{
#ifdef ZNP_TEST_HOOKS
	const char *v = getenv("ZNP_UBLK_USER_COPY");

	return v && *v && strcmp(v, "0");
#else
	return false;
#endif
}

int znp_cmd_map_ublk(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	static struct ublkmap m;
	struct znp_map_err e = { 0 };
	struct znp_dev *dev;
	int ret;

	openlog("nvme-zns-npo2", LOG_PID, LOG_DAEMON);
	if (!o->nargs) {
		ret = use_recorded(cli, &o);
		if (ret)
			return ret;
	}
	m = (struct ublkmap){ .cli = cli, .o = o, .p = p, .report_fd = -1,
			      .journal = stderr_is_journal(cli) };
	znp_cli_map_ctx(cli, o, &m.c);
	ret = check_args(cli, o);
	if (ret)
		return ret;
	ret = znp_cli_open_dev(cli, o, ZNP_OPEN_WRITE | ZNP_CLI_FULL_CAP, false, &dev);
	if (ret)
		return ret;
	m.u.nr_queues = o->queues;
	m.u.queue_depth = o->queue_depth;
	m.u.user_copy = user_copy_asked();
	m.u.dev_id_wanted = znp_opt_given(o, ZNP_O_UBLK_ID) ? (int)o->ublk_id : -1;
	m.u.recover = o->recover;
	if (znp_map_ublk_plan(&m.c, dev, &m.u, &e)) {
		ret = znp_ublkmap_refuse(&m, &e);
		goto out;
	}
	view_init(&m);
	if (o->dry_run) {
		/* what the real run refuses before it loads or creates anything */
		if (znp_map_ublk_kernel_check(&m.c, &e)) {
			ret = znp_ublkmap_refuse(&m, &e);
			goto out;
		}
		p->ops->map_ublk(p, &m.v);
		ret = ZNP_EXIT_OK;
		goto out;
	}
	if (o->persist && znp_map_ublk_config(&m.u, &e)) {
		ret = znp_cli_map_fail(cli, o->args[0], &e);
		goto out;
	}
	/* lock, driver, recovery; then create, record, undo: the daemon or the foreground */
	ret = znp_ublkmap_start(&m);
out:
	if (m.u.dirfd >= 0)
		close(m.u.dirfd);
	znp_dev_close(dev);
	return ret;
}
