// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ublk route before serving: what cannot be served (the verdict table,
 * the geometry, the identity), the namespace recorded under a name, the
 * namespace's lock, the ublk driver, and recovery of a quiesced device.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "map-priv.h"

void znp_map_ublk_say(const struct znp_map_ublk_hooks *h, int prio, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (h && h->say)
		h->say(h->arg, prio, false, buf);
}

/* ---- the namespace recorded under a name ---------------------------------- */

struct by_name {
	const char *name;
	struct znp_dmconf_entry ent;
	bool found;
	char *ng;
	size_t size;
	const struct znp_env *env;
};

static int by_name_cb(unsigned int lineno, const struct znp_dmconf_entry *ent, const char *why,
		      void *arg)
{
	struct by_name *b = arg;

	if (ent && !strcmp(ent->name, b->name)) {
		b->ent = *ent;
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
	    !strcmp(ident, b->ent.ident)) {
		znp_dev_path(b->env, b->ng, b->size, se->ns.ng_name);
		return 1;
	}
	return 0;
}

int znp_map_ublk_recorded(const struct znp_map_ctx *c, const char *name, char *ng, size_t size,
			  struct znp_map_err *e)
{
	struct by_name b = { .name = name, .ng = ng, .size = size, .env = c->env };
	char *buf;
	size_t len;
	int ret;

	e->subject = name;
	ret = znp_dmconf_read(c->config, &buf, &len);
	if (ret)
		return znp_map_fail(e, ZNP_MAP_ERRNO, ret, "cannot read %s: %s", c->config,
				    znp_strerror(ret));
	ret = znp_dmconf_parse(buf, len, by_name_cb, &b);
	free(buf);
	if (ret < 0)		/* -ENOMEM: a failure, not "no such mapping" */
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot parse %s: %s", c->config,
				    znp_strerror(ret));
	if (!b.found || !b.ent.ublk)
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENOENT, "no ublk mapping of this name "
				    "in %s", c->config);
	ng[0] = '\0';
	ret = znp_scan(c->env, by_ident_cb, &b);
	if (ret < 0)		/* sysfs unreadable, ENOMEM: not "not present" */
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot list the NVMe namespaces: %s",
				    znp_strerror(ret));
	if (!ng[0])
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENOENT, "namespace %s is not present",
				    b.ent.ident);
	e->subject = NULL;
	return 0;
}

/* ---- plan ------------------------------------------------------------------- */

/* u->config: the mapping file as an absolute path (the daemon records it after chdir("/")). */
int znp_map_ublk_config(struct znp_map_ublk *u, struct znp_map_err *e)
{
	const char *conf = u->c->config;
	char cwd[PATH_MAX];

	if (conf[0] == '/' ? znp_strlcpy(u->config, conf, sizeof(u->config)) :
	    !getcwd(cwd, sizeof(cwd)) ||
	    snprintf(u->config, sizeof(u->config), "%s/%s", cwd, conf) >= (int)sizeof(u->config))
		return znp_map_fail(e, ZNP_MAP_USAGE, -ENAMETOOLONG, "--config '%s': path too long",
				    conf);
	return 0;
}

int znp_map_ublk_plan(const struct znp_map_ctx *c, struct znp_dev *dev, struct znp_map_ublk *u,
		      struct znp_map_err *e)
{
	const char *why = NULL;
	int ret;

	u->c = c;
	u->dev = dev;
	u->dirfd = u->lockfd = u->recover_id = u->dev_id = -1;
	ret = znp_map_refuse(c, ZNP_MAP_VIA_UBLK, dev, e);
	if (ret)
		return ret;
	ret = znp_ublk_geom_from_dev(dev, &u->g, &why);
	if (ret)
		return znp_map_fail(e, ZNP_MAP_ERRNO, ret, "cannot be served through ublk: %s",
				    why ? why : znp_strerror(ret));
	if (znp_ident_from_ns(&dev->ns, u->ident, sizeof(u->ident)))
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENODATA, "no stable identity (NGUID, "
				    "EUI-64 or serial number): the namespace's lock and record are "
				    "keyed by it");
	u->queues = u->nr_queues ? u->nr_queues : znp_ublk_default_queues();
	u->depth = u->queue_depth ? u->queue_depth : ZNP_UBLK_DEF_DEPTH;
	u->rec = (struct znp_ublk_rec){
		.nsid = dev->ns.nsid, .lba_size = dev->geom.lba_size,
		.zone_size = dev->geom.zone_size, .zone_cap = dev->geom.zone_cap,
		.nr_zones = u->g.nr_zones, .po2_zone_sectors = u->g.zone_sectors,
		.persist = c->persist, .fingerprint = znp_ublk_ns_fingerprint(dev, &u->g),
	};
	znp_strlcpy(u->rec.ident, u->ident, sizeof(u->rec.ident));
	znp_strlcpy(u->rec.ng, dev->ns.ng_name, sizeof(u->rec.ng));
	if (c->name)
		znp_strlcpy(u->rec.name, c->name, sizeof(u->rec.name));
	return 0;
}

/* ---- prepare: lock, driver, recovery ---------------------------------------- */

static int modprobe_ublk(void)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		execlp("modprobe", "modprobe", "-q", "ublk_drv", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -ECHILD;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -ENOENT;
}

int znp_map_ublk_kernel_check(const struct znp_map_ctx *c, struct znp_map_err *e)
{
	bool fake = c->env->sysfs_root || c->env->dev_root;
	struct znp_ublk_route_info r;
	struct utsname un;

	znp_map_ublk_route(c, &r);
	if (r.route == ZNP_ROUTE_NO_ZONED)
		return znp_map_fail(e, ZNP_MAP_UNSUPPORTED, -EOPNOTSUPP, "the ublk driver lacks "
				    "zoned devices, user copy or user recovery (features 0x%"
				    PRIx64 "; needs Linux >= 6.6)", r.features);
	if (r.route != ZNP_ROUTE_ABSENT)
		return 0;
	/* an emulated system's tree: its kernel is not the running one */
	if (fake || uname(&un))
		snprintf(un.release, sizeof(un.release), "?");
	return znp_map_fail(e, ZNP_MAP_UNSUPPORTED, -ENOENT, "this kernel (%s) has no ublk "
			    "driver: the ublk route needs Linux >= 6.6 built with ublk_drv "
			    "(CONFIG_BLK_DEV_UBLK); %s", un.release, ZNP_UBLK_KERNEL_HINT);
}

/* The ublk driver, loaded when missing. */
static int need_driver(const struct znp_map_ublk_hooks *h, struct znp_map_err *e)
{
	uint64_t feat = 0;
	int ret = znp_ublk_probe(&feat);

	if (ret == -ENOENT) {
		znp_map_ublk_say(h, LOG_NOTICE, "loading ublk_drv");
		if (!modprobe_ublk()) {
			for (int i = 0; i < 40 && (ret = znp_ublk_probe(&feat)) == -ENOENT; i++)
				usleep(50000);	/* the control node appears */
		}
	}
	if (ret == -ENOENT)
		return znp_map_fail(e, ZNP_MAP_UNSUPPORTED, ret, "the kernel has no ublk driver "
				    "(/dev/ublk-control missing, `modprobe ublk_drv` failed)");
	if (ret == -EACCES || ret == -EPERM)
		return znp_map_fail(e, ZNP_MAP_REFUSED, ret, "no access to /dev/ublk-control: a "
				    "ublk server needs root (CAP_SYS_ADMIN)");
	if (ret == -EOPNOTSUPP)
		return znp_map_fail(e, ZNP_MAP_UNSUPPORTED, ret, "the ublk driver lacks zoned "
				    "devices, user copy or user recovery (features 0x%" PRIx64
				    "; needs Linux >= 6.6)", feat);
	if (ret)
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot ask the ublk driver for its "
				    "features: %s", znp_strerror(ret));
	return 0;
}

/* The state directory and the namespace's lock. */
static int lock_ns(struct znp_map_ublk *u, struct znp_map_err *e)
{
	const char *dir = u->c->run_dir;
	struct znp_ublk_rec old;
	int ret;

	mkdir("/run", 0755);
	u->dirfd = znp_run_dir_open(dir, true);
	if (u->dirfd < 0)
		return znp_map_fail(e, ZNP_MAP_FAILED, u->dirfd, "unsafe or unusable state "
				    "directory %s: %s", dir, znp_strerror(u->dirfd));
	ret = znp_ns_lock(u->dirfd, u->rec.ident, &u->lockfd);
	if (ret == -EBUSY) {
		if (!znp_ublk_rec_get(u->dirfd, u->rec.ident, &old))
			return znp_map_fail(e, ZNP_MAP_REFUSED, ret, "already served by server pid "
					    "%ld as /dev/ublkb%d: refusing a second server on this "
					    "namespace", (long)old.pid, old.dev_id);
		return znp_map_lock_busy(u->c, u->dirfd, u->rec.ident, e);
	}
	if (ret)
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot lock the namespace in %s: %s",
				    dir, znp_strerror(ret));
	return 0;
}

/*
 * Devices a server added for this namespace and was killed (SIGKILL, the
 * only signal not held from before ADD_DEV on) before it recorded them:
 * this namespace's fingerprint, never started (state dead), no record.
 * We hold the namespace's lock, so no server of ours is between ADD_DEV
 * and START_DEV on it; a quiesced or live device is never one of these.
 * Deleted, so that a crash loop does not pile them up. @keep: the
 * recorded id (handled by the caller), or -1.
 */
static void sweep_unrecorded(const struct znp_map_ublk *u, const struct znp_map_ublk_hooks *h,
			     int keep)
{
	const char *root = u->c->env->sysfs_root ? u->c->env->sysfs_root : "/sys";
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/class/ublk-char", root);
	dp = opendir(dir);
	if (!dp)
		return;		/* no ublk device at all */
	while ((d = readdir(dp))) {
		struct znp_ublk_info info;
		char *end;
		long id;
		int ret;

		if (strncmp(d->d_name, "ublkc", 5))
			continue;
		id = strtol(d->d_name + 5, &end, 10);
		if (*end || end == d->d_name + 5 || id < 0 || id > INT32_MAX || id == keep)
			continue;
		if (znp_ublk_dev_is_ours((int)id, u->rec.fingerprint, &info) ||
		    info.state != ZNP_UBLK_S_DEAD)
			continue;
		znp_map_ublk_say(h, LOG_NOTICE, "deleting /dev/ublkb%ld: added for this namespace "
				 "by a server killed before it recorded it, never started", id);
		ret = znp_ublk_dev_del((int)id, u->rec.fingerprint);
		if (ret && ret != -ENODEV)
			znp_map_ublk_say(h, LOG_WARNING, "cannot delete /dev/ublkb%ld: %s", id,
					 znp_strerror(ret));
	}
	closedir(dp);
}

/*
 * --recover, or a record of this namespace: take back its quiesced device
 * (u->recover_id), refuse a live one, drop one in any other state.
 */
static int pick_recovery(struct znp_map_ublk *u, const struct znp_map_ublk_hooks *h,
			 struct znp_map_err *e)
{
	struct znp_ublk_rec old;
	struct znp_ublk_info info;
	int ret;

	if (u->recover) {
		/* explicit: take back --ublk-id, record or not */
		u->recover_id = u->dev_id_wanted;
		u->recovered = true;
		return 0;
	}
	/* a device left by a server that died: take it back */
	ret = znp_ublk_rec_get(u->dirfd, u->rec.ident, &old);
	if (ret == -ENOENT) {
		sweep_unrecorded(u, h, -1);
		return 0;	/* nothing recorded */
	}
	if (ret) {
		znp_map_ublk_say(h, LOG_WARNING, "ignoring an unreadable record: %s",
				 znp_strerror(ret));
		return 0;
	}
	sweep_unrecorded(u, h, old.dev_id);
	/*
	 * A device id is reused once its device is gone: the recorded id may
	 * be another program's device now, which is never taken back, stopped
	 * or deleted (DEL_DEV would also wait on its server).
	 */
	ret = znp_ublk_dev_is_ours(old.dev_id, u->rec.fingerprint, &info);
	if (ret == -EPERM) {
		znp_map_ublk_say(h, LOG_WARNING, "the record's /dev/ublkb%d is not this namespace's "
				 "device (flags 0x%" PRIx64 ", fingerprint %" PRIu64 ", this "
				 "namespace's %" PRIu64 "): left alone, record dropped",
				 old.dev_id, info.flags, info.srv_flags, u->rec.fingerprint);
		znp_ublk_rec_drop(u->dirfd, u->rec.ident);
		return 0;
	}
	/*
	 * The record's pid is the last server that went live; the driver's is
	 * the last that ended a start or recovery. They differ after a server
	 * died while taking the device back (before its record was written):
	 * the pid then proves nothing. What does: we hold the namespace's
	 * lock (no server of ours is alive on it), the driver's server is gone,
	 * and the recovery takes the device only if its fingerprint is this
	 * namespace's (ublk-recover.c). A live server at that pid is refused.
	 */
	if (!ret && info.state != ZNP_UBLK_S_DEAD && info.srv_pid > 0 && info.srv_pid != old.pid) {
		if (!kill(info.srv_pid, 0) || errno != ESRCH) {
			znp_map_ublk_release(u);
			return znp_map_fail(e, ZNP_MAP_REFUSED, -EBUSY, "the record of this "
					    "namespace names server pid %ld, but /dev/ublkb%d is "
					    "served by pid %ld, alive: stale record, not trusted",
					    (long)old.pid, old.dev_id, (long)info.srv_pid);
		}
		znp_map_ublk_say(h, LOG_NOTICE, "the record of this namespace names server pid "
				 "%ld, /dev/ublkb%d was last started by pid %ld (gone): taken back "
				 "only if it is this namespace's device", (long)old.pid, old.dev_id,
				 (long)info.srv_pid);
	}
	if (!ret && info.state == ZNP_UBLK_S_LIVE && info.srv_pid > 0 &&
	    kill(info.srv_pid, 0) && errno == ESRCH) {
		/* its server just left (parked or died): the driver is quiescing it */
		u->recover_id = old.dev_id;
		u->recovered = true;
		znp_map_ublk_say(h, LOG_NOTICE,
				 "/dev/ublkb%d: server pid %ld is gone: taking the device back",
				 old.dev_id, (long)old.pid);
		return 0;
	}
	if (!ret && info.state == ZNP_UBLK_S_QUIESCED) {
		u->recover_id = old.dev_id;
		u->recovered = true;
		znp_map_ublk_say(h, LOG_NOTICE,
				 "/dev/ublkb%d is quiesced (server pid %ld died): taking it back",
				 old.dev_id, (long)old.pid);
		return 0;
	}
	if (!ret && info.state == ZNP_UBLK_S_LIVE) {
		znp_map_ublk_release(u);
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EBUSY, "/dev/ublkb%d of this namespace is "
				    "live without its server's lock (pid %ld): not touched",
				    old.dev_id, (long)info.srv_pid);
	}
	if (!ret) {	/* added, never started or dead: delete it */
		znp_map_ublk_say(h, LOG_NOTICE, "deleting /dev/ublkb%d left in state %d",
				 old.dev_id, info.state);
		ret = znp_ublk_dev_del(old.dev_id, u->rec.fingerprint);
		if (ret && ret != -ENODEV)
			znp_map_ublk_say(h, LOG_WARNING, "cannot delete /dev/ublkb%d: %s",
					 old.dev_id, znp_strerror(ret));
	}
	/* the record goes; the lock file stays, and we hold it */
	znp_ublk_rec_drop(u->dirfd, u->rec.ident);
	return 0;
}

int znp_map_ublk_prepare(struct znp_map_ublk *u, const struct znp_map_ublk_hooks *h,
			 struct znp_map_err *e)
{
	/*
	 * the lock first: a namespace served already is refused before anything
	 * changes; a kernel without ublk_drv serves none
	 */
	int ret = znp_map_ublk_kernel_check(u->c, e);

	if (!ret)
		ret = lock_ns(u, e);

	if (!ret)
		ret = need_driver(h, e);
	if (!ret)
		ret = pick_recovery(u, h, e);
	return ret;
}

void znp_map_ublk_release(struct znp_map_ublk *u)
{
	if (u->lockfd >= 0)
		znp_ns_unlock(u->lockfd);
	u->lockfd = -1;
}
