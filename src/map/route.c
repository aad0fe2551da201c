// SPDX-License-Identifier: GPL-2.0-or-later
/* The two routes behind one interface (map.h: struct znp_map_route). */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map-priv.h"

static int dm_refuse(const struct znp_map_ctx *c, const struct znp_dev *dev,
		     struct znp_map_err *e)
{
	return znp_map_refuse(c, ZNP_MAP_VIA_DM, dev, e);
}

static int dm_find(const struct znp_map_ctx *c, const char *arg, struct znp_map_found *f,
		   struct znp_map_err *e)
{
	int ret = znp_map_dm_find(c, arg, f->name, sizeof(f->name), e);

	f->route = &znp_map_route_dm;
	return ret ? ret : 1;
}

static int dm_serving(const struct znp_map_ctx *c, const struct znp_dev *dev,
		      struct znp_map_found *f, struct znp_map_err *e)
{
	f->route = &znp_map_route_dm;
	return znp_map_dm_serving(c, dev, f->name, sizeof(f->name));
}

static int dm_remove(const struct znp_map_ctx *c, const struct znp_map_found *f,
		     znp_map_warn_fn *warn, void *arg, struct znp_map_removed *out,
		     struct znp_map_err *e)
{
	return znp_map_dm_remove(c, f->name, out, e);
}

static int ublk_refuse(const struct znp_map_ctx *c, const struct znp_dev *dev,
		       struct znp_map_err *e)
{
	return znp_map_refuse(c, ZNP_MAP_VIA_UBLK, dev, e);
}

static int ublk_find(const struct znp_map_ctx *c, const char *arg, struct znp_map_found *f,
		     struct znp_map_err *e)
{
	f->route = &znp_map_route_ublk;
	return znp_map_ublk_find(c, arg, &f->ublk, e);
}

static int ublk_serving(const struct znp_map_ctx *c, const struct znp_dev *dev,
			struct znp_map_found *f, struct znp_map_err *e)
{
	f->route = &znp_map_route_ublk;
	return znp_map_ublk_serving(c, dev, &f->ublk, e);
}

static int ublk_remove(const struct znp_map_ctx *c, const struct znp_map_found *f,
		       znp_map_warn_fn *warn, void *arg, struct znp_map_removed *out,
		       struct znp_map_err *e)
{
	return znp_map_ublk_remove(c, &f->ublk, warn, arg, out, e);
}

const struct znp_map_route znp_map_route_dm = {
	.name = "dm", .via = ZNP_MAP_VIA_DM,
	.refuse = dm_refuse, .find = dm_find, .serving = dm_serving, .remove = dm_remove,
};

const struct znp_map_route znp_map_route_ublk = {
	.name = "ublk", .via = ZNP_MAP_VIA_UBLK,
	.refuse = ublk_refuse, .find = ublk_find, .serving = ublk_serving, .remove = ublk_remove,
};

/* The order both questions ask the routes in: a ublk record, then device-mapper. */
static const struct znp_map_route *const order[] = {
	&znp_map_route_ublk, &znp_map_route_dm,
};

int znp_map_find(const struct znp_map_ctx *c, const char *arg, struct znp_map_found *f,
		 struct znp_map_err *e)
{
	for (unsigned int i = 0; i < ZNP_ARRAY_SIZE(order); i++) {
		int ret = order[i]->find(c, arg, f, e);

		if (ret)
			return ret < 0 ? ret : 0;
	}
	/* not reached: the dm route refuses what it does not find */
	return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENXIO, "no such mapping");
}

/* Open and probe @path for its identity. Return: 0 with @dev, else 1 (cannot be told). */
static int open_ns(const struct znp_map_ctx *c, const char *path, struct znp_dev **dev)
{
	const char *why;
	int ret;

	if (znp_dev_open(c->env, path, 0, dev, &why))
		return 1;
	/* the identity (NGUID, EUI-64) is the Identify's: probe, no zone report */
	ret = znp_dev_probe_flags(*dev, ZNP_PROBE_DEFER_CAP);
	if (ret && ret != -EMEDIUMTYPE && znp_dev_is_nvme(*dev)) {
		/* cannot be told: the caller's own open and probe say why */
		znp_dev_close(*dev);
		return 1;
	}
	return 0;
}

static int serving(const struct znp_map_ctx *c, const struct znp_dev *dev,
		   struct znp_map_found *f, struct znp_map_err *e)
{
	int ret = 0;

	for (unsigned int i = 0; i < ZNP_ARRAY_SIZE(order) && !ret; i++) {
		*f = (struct znp_map_found){ .route = order[i] };
		ret = order[i]->serving(c, dev, f, e);
	}
	return ret;
}

int znp_map_serving(const struct znp_map_ctx *c, const char *path, struct znp_map_found *f,
		    struct znp_map_err *e)
{
	struct znp_dev *dev;
	int ret;

	e->subject = path;
	if (open_ns(c, path, &dev))
		return 0;
	ret = serving(c, dev, f, e);
	znp_dev_close(dev);
	return ret;
}

int znp_map_lock_busy(const struct znp_map_ctx *c, int dirfd, const char *ident,
		      struct znp_map_err *e)
{
	const char *proc = c->env && c->env->proc_root ? c->env->proc_root : "/proc";
	char locks[PATH_MAX];
	pid_t pid;

	snprintf(locks, sizeof(locks), "%s/locks", proc);
	pid = znp_ns_lock_holder(dirfd, ident, locks);
	if (pid <= 0)
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EBUSY, "the namespace's lock in %s is "
				    "held (a server starting, a mapping being made or a zone "
				    "command running): try again when it ends", c->run_dir);
	return znp_map_fail(e, ZNP_MAP_REFUSED, -EBUSY, "the namespace's lock in %s is held by "
			    "pid %ld (a server starting, a mapping being made or a zone command "
			    "running): try again when it ends", c->run_dir, (long)pid);
}

/*
 * The namespace @ident's lock in the state directory, exclusive or @shared
 * (a claim: not taken by a caller that cannot open the directory, as the
 * servers and their locks are root's). Return: 0 (*@lockfd, -1 when nothing
 * was taken) or a negative errno with @e.
 */
static int ns_lock(const struct znp_map_ctx *c, const char *ident, bool shared, int *lockfd,
		   struct znp_map_err *e)
{
	int dirfd, ret;

	*lockfd = -1;
	if (!ident[0])
		return 0;
	mkdir("/run", 0755);
	dirfd = znp_run_dir_open(c->run_dir, true);
	if (dirfd < 0 && shared && geteuid())
		return 0;
	if (dirfd < 0)
		return znp_map_fail(e, ZNP_MAP_FAILED, dirfd, "unsafe or unusable state "
				    "directory %s: %s", c->run_dir, znp_strerror(dirfd));
	ret = shared ? znp_ns_claim(dirfd, ident, lockfd) : znp_ns_lock(dirfd, ident, lockfd);
	if (ret == -EBUSY)
		znp_map_lock_busy(c, dirfd, ident, e);
	else if (ret)
		znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot lock the namespace in %s: %s",
			     c->run_dir, znp_strerror(ret));
	close(dirfd);
	return ret;
}

int znp_map_lock_ns(const struct znp_map_ctx *c, const char *ident, int *lockfd,
		    struct znp_map_err *e)
{
	return ns_lock(c, ident, false, lockfd, e);
}

/* The claim: the lock of @dev's namespace, shared. Return: 0 (*@claim) or -errno with @e. */
static int claim_lock(const struct znp_map_ctx *c, const struct znp_dev *dev, int *claim,
		      struct znp_map_err *e)
{
	char ident[ZNP_IDENT_MAX] = "";

	if (znp_dev_is_nvme(dev) && znp_ident_from_ns(&dev->ns, ident, sizeof(ident)))
		ident[0] = '\0';
	return ns_lock(c, ident, true, claim, e);
}

int znp_map_claim(const struct znp_map_ctx *c, const char *path, struct znp_map_found *f,
		  int *claim, struct znp_map_err *e)
{
	struct znp_dev *dev;
	int ret;

	*claim = -1;
	e->subject = path;
	if (open_ns(c, path, &dev))
		return 0;
	ret = claim_lock(c, dev, claim, e);
	if (ret == -EBUSY) {
		/* held exclusive: by the server that serves it, or by one starting */
		struct znp_map_err held = *e;

		*e = (struct znp_map_err){ .subject = path };
		ret = serving(c, dev, f, e);
		if (!ret) {
			*e = held;
			ret = -EBUSY;
		}
	} else if (!ret) {
		ret = serving(c, dev, f, e);
		if (ret) {
			znp_map_unclaim(*claim);
			*claim = -1;
		}
	}
	znp_dev_close(dev);
	return ret;
}

void znp_map_unclaim(int claim)
{
	znp_ns_unlock(claim);
}

const char *znp_map_found_name(const struct znp_map_found *f)
{
	if (f->route->via == ZNP_MAP_VIA_DM)
		return f->name;
	return f->ublk.rec.name[0] ? f->ublk.rec.name : f->ublk.device;
}

void znp_map_found_device(const struct znp_map_found *f, char *buf, size_t size)
{
	if (f->route->via == ZNP_MAP_VIA_DM)
		snprintf(buf, size, "/dev/mapper/%s", f->name);
	else
		snprintf(buf, size, "/dev/%s", f->ublk.device);
}
