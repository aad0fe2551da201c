// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ublk route's serving: create (or take back) the device, and once it
 * is live, record it: the --persist entry in the mapping file first (if
 * that fails, the device is stopped and deleted: not mapped), then the
 * run-time record. After a clean stop (SIGTERM, or STOP_DEV from `unmap`)
 * the device is deleted and the record removed; a device in use stays,
 * quiesced, for the next server.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "map-priv.h"

/* the served device, for znp_map_ublk_stop() from a signal handler */
static _Atomic(struct znp_ublk_server *) the_server;
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "a signal handler reads the_server");
/* a stop signal came before the server was recorded: it stops once it runs */
static atomic_bool stop_early;

void znp_map_ublk_stop(void)
{
	struct znp_ublk_server *srv = atomic_load(&the_server);

	if (srv)
		znp_ublk_server_stop(srv);
	else
		atomic_store(&stop_early, true);
}

struct serving {
	struct znp_map_ublk *u;
	const struct znp_map_ublk_hooks *h;
	struct znp_map_err *e;
	bool hold_err;			/* the server library's errors wait for the one line */
	char lib_err[400];		/* ... the first of them */
	bool undo;			/* --persist failed once live */
};

static void server_log(void *arg, int prio, const char *fmt, ...)
{
	struct serving *s = arg;
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (s->hold_err && prio <= LOG_ERR) {
		/* while creating or taking back: the reason goes into the one error line */
		if (s->h->say)
			s->h->say(s->h->arg, prio, true, buf);
		if (!s->lib_err[0])
			znp_strlcpy(s->lib_err, buf, sizeof(s->lib_err));
		return;
	}
	if (s->h->say)
		s->h->say(s->h->arg, prio, false, buf);
}

/* The record of this server and its device. Return: 0 or -errno (said). */
static int write_record(struct serving *s, int dev_id)
{
	struct znp_map_ublk *u = s->u;
	int ret;

	u->rec.dev_id = dev_id;
	u->rec.pid = getpid();
	u->rec.started = (uint64_t)time(NULL);
	ret = znp_ublk_rec_put(u->dirfd, &u->rec);
	if (ret)
		znp_map_ublk_say(s->h, LOG_ERR, "cannot write the record in %s: %s (status and "
				 "unmap will not find /dev/ublkb%d)", u->c->run_dir,
				 znp_strerror(ret), dev_id);
	return ret;
}

/* --persist: the entry in the mapping file. Return: 0 or a negative errno with s->e. */
static int persist(struct serving *s)
{
	struct znp_map_ublk *u = s->u;
	const struct znp_dev *dev = u->dev;
	struct znp_dmconf_entry ent = { .lba_size = dev->geom.lba_size,
		.zone_size = dev->geom.zone_size, .nr_zones = dev->geom.nr_zones,
		.ublk = true };
	char lockwhy[PATH_MAX + 96];
	int ret;

	snprintf(ent.name, sizeof(ent.name), "%s", u->c->name ? u->c->name : "");
	if (!ent.name[0])
		znp_dm_default_name(&dev->ns, dev->name, ent.name, sizeof(ent.name));
	znp_strlcpy(u->rec.name, ent.name, sizeof(u->rec.name));
	znp_strlcpy(ent.ident, u->ident, sizeof(ent.ident));
	ret = znp_dmconf_put(u->config, &ent);
	if (ret)
		return znp_map_fail(s->e, ZNP_MAP_FAILED, ret, "cannot record it in %s: %s; not "
				    "mapped", u->config, znp_map_conf_strerror(u->config, ret,
				    lockwhy, sizeof(lockwhy)));
	return 0;
}

static void on_ready(void *arg, int dev_id)
{
	struct serving *s = arg;
	struct znp_map_ublk *u = s->u;

	/* create, record, and undo when the record fails */
	if (u->c->persist && persist(s)) {
		s->undo = true;
		s->e->told = true;
		if (s->h->refused)
			s->h->refused(s->h->arg, s->e);
		znp_ublk_server_stop(atomic_load(&the_server));
		return;
	}
	u->live = true;
	write_record(s, dev_id);
	znp_map_ublk_say(s->h, LOG_NOTICE, "%s /dev/ublkb%d, server pid %ld",
			 u->recovered ? "took back" : "serving", dev_id, (long)getpid());
	u->dev_id = dev_id;
	if (s->h->live)
		s->h->live(s->h->arg, u);
}

/* After the server stopped: delete the device and drop its record. */
static void delete_dev(struct serving *s, int dev_id)
{
	int ret = znp_ublk_dev_del(dev_id, s->u->rec.fingerprint);

	/* -EPERM: the id is another program's device already (ours was deleted) */
	if (ret && ret != -ENODEV && ret != -EPERM)
		znp_map_ublk_say(s->h, LOG_ERR, "cannot delete /dev/ublkb%d: %s", dev_id,
				 znp_strerror(ret));
	znp_ublk_rec_drop(s->u->dirfd, s->u->rec.ident);
}

/* How the run ended. Return: 0 or a negative errno with s->e. */
static int after_run(struct serving *s, int ret, bool parked, int dev_id)
{
	struct znp_map_ublk *u = s->u;

	if (s->undo) {
		/* stopped by on_ready(): not recorded in the mapping file, so not mapped */
		if (parked) {
			znp_map_ublk_say(s->h, LOG_NOTICE, "/dev/ublkb%d is in use: it stays, "
					 "quiesced, for the next server", dev_id);
			return s->e->ret < 0 ? s->e->ret : -EIO;
		}
		delete_dev(s, dev_id);
		return s->e->ret < 0 ? s->e->ret : -EIO;
	}
	if (!u->live) {
		/* never started: create() deleted it; a recovered one stays quiesced */
		if (u->recover_id < 0)
			znp_ublk_rec_drop(u->dirfd, u->rec.ident);
		return znp_map_fail(s->e, ZNP_MAP_ERRNO, ret ? ret : -EIO, "cannot start "
				    "/dev/ublkb%d: %s", dev_id, znp_strerror(ret ? ret : -EIO));
	}
	if (!ret && parked) {
		/* in use: kept with its record, the next `map --ublk` takes it back */
		znp_map_ublk_say(s->h, LOG_NOTICE, "server of /dev/ublkb%d stopped; the device is "
				 "in use and stays, quiesced, for the next server", dev_id);
		return 0;
	}
	if (ret) {
		/* the device stays (quiesced): a new `map --ublk` takes it back */
		znp_map_ublk_say(s->h, LOG_ERR, "server of /dev/ublkb%d failed: %s; the device is "
				 "kept for a restart", dev_id, znp_strerror(ret));
		s->e->told = true;	/* said: the exit code alone */
		return znp_map_fail(s->e, ZNP_MAP_FAILED, ret, "server failed");
	}
	delete_dev(s, dev_id);
	znp_map_ublk_say(s->h, LOG_NOTICE, "stopped /dev/ublkb%d", dev_id);
	return 0;
}

int znp_map_ublk_serve(struct znp_map_ublk *u, const struct znp_map_ublk_hooks *h,
		       struct znp_map_err *e)
{
	struct serving s = { .u = u, .h = h, .e = e };
	struct znp_ublk_opts uo = {
		.journal_fd = znp_ublk_journal_open(u->dirfd, u->rec.ident),
		.dev_id = u->dev_id_wanted,
		.nr_queues = u->nr_queues, .queue_depth = u->queue_depth,
		.geom = &u->g, .log = server_log, .log_arg = &s, .user_copy = u->user_copy,
	};
	struct znp_ublk_server *srv = NULL;
	bool parked;
	int ret, dev_id;

	if (uo.journal_fd < 0)
		return znp_map_fail(e, ZNP_MAP_FAILED, uo.journal_fd, "cannot open the append "
				    "journal in %s: %s", u->c->run_dir, znp_strerror(uo.journal_fd));
	/*
	 * The stop signals are caught from here on, before ADD_DEV: one that
	 * comes between ADD_DEV and the record would otherwise end the process
	 * and leave a device no record names. It is held until the server
	 * runs (only this thread exists until then), which then stops (and
	 * deletes or parks) the device the usual way.
	 */
	atomic_store(&stop_early, false);
	if (h->running)
		h->running(h->arg);
	s.hold_err = true;
	ret = u->recover_id >= 0 ? znp_ublk_server_recover(u->dev, u->recover_id, &uo, &srv)
				 : znp_ublk_server_create(u->dev, &uo, &srv);
	s.hold_err = false;
	if (ret) {
		close(uo.journal_fd);
		return znp_map_fail(e, ZNP_MAP_ERRNO, ret, "cannot %s the ublk device: %s",
				    u->recover_id >= 0 ? "take back" : "create",
				    s.lib_err[0] ? s.lib_err : znp_strerror(ret));
	}
	dev_id = znp_ublk_server_dev_id(srv);
	u->queues = znp_ublk_server_nr_queues(srv);	/* the kernel's count (recovery too) */
	/*
	 * Recorded before START_DEV: a server killed while starting leaves a
	 * record, so the next one deletes the half-made device instead of
	 * leaving it behind (a crash loop would pile them up).
	 */
	if (u->recover_id < 0 && write_record(&s, dev_id)) {
		znp_ublk_server_free(srv);
		close(uo.journal_fd);
		return znp_map_fail(e, ZNP_MAP_FAILED, -EIO, "cannot record /dev/ublkb%d in %s",
				    dev_id, u->c->run_dir);
	}
	atomic_store(&the_server, srv);
	if (atomic_exchange(&stop_early, false))
		znp_ublk_server_stop(srv);
	ret = znp_ublk_server_run(srv, on_ready, &s);
	atomic_store(&the_server, NULL);
	parked = znp_ublk_server_parked(srv);
	znp_ublk_server_free(srv);
	close(uo.journal_fd);
	return after_run(&s, ret, parked, dev_id);
}
