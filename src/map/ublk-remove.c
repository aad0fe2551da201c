// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unmap of a ublk mapping: refuse a device in use (unless --force), write
 * back the page cache, STOP_DEV (the server's run loop ends, it deletes the
 * device and its record), wait for the server to leave (SIGTERM to a
 * server that does not), DEL_DEV, then forget the record and the entry in
 * the mapping file.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "map.h"

#define UNMAP_WAIT_MS	10000	/* for the server to leave after STOP_DEV */

/*
 * Is the block device in use, or not provably unused
 * (znp_blk_prove_unused(), the check the server's SIGTERM makes too)?
 * When it is free, *@excl is it opened O_EXCL: kept open until STOP_DEV, so
 * that nothing mounts or claims it between this check and the stop;
 * otherwise -1.
 */
static bool is_busy(const struct znp_map_ctx *c, const char *dev, char *why, size_t size,
		    int *excl)
{
	char path[PATH_MAX];
	int ret;

	*excl = -1;
	if (znp_dev_path(c->env, path, sizeof(path), dev))
		return false;
	ret = znp_blk_prove_unused(c->env, path, excl, why, size);
	if (ret == -ENOENT || !ret)
		return false;	/* free, or no block device left (stopped) */
	if (ret != -EBUSY)
		snprintf(why, size, "cannot tell whether it is in use: %s", znp_strerror(ret));
	return true;
}

/*
 * Is the recorded device id still this mapping's device (its flags and the
 * fingerprint in the record)? When not, @why says whose it looks like.
 */
static bool is_ours(const struct znp_map_ublk_found *f, char *why, size_t size)
{
	struct znp_ublk_info info;
	int ret;

	if (!f->rec.fingerprint) {
		snprintf(why, size, "its record has no fingerprint to tell it by");
		return false;
	}
	ret = znp_ublk_dev_is_ours(f->rec.dev_id, f->rec.fingerprint, &info);
	if (!ret || ret == -ENODEV || ret == -ENOENT)
		return true;	/* gone meanwhile, or no driver (no control node): nothing to stop */
	if (ret == -EPERM)
		snprintf(why, size, "a ublk device of another program or namespace: flags 0x%"
			 PRIx64 ", fingerprint %" PRIu64 ", recorded %" PRIu64, info.flags,
			 info.srv_flags, f->rec.fingerprint);
	else
		snprintf(why, size, "cannot ask the driver about it: %s", znp_strerror(ret));
	return false;
}

/* Write back what the page cache holds for the device before it goes (through @fd if >= 0). */
static void sync_dev(const struct znp_map_ctx *c, const char *dev, int fd)
{
	char path[PATH_MAX];

	if (fd >= 0) {
		fsync(fd);
		return;
	}
	if (znp_dev_path(c->env, path, sizeof(path), dev))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static bool wait_unlocked(int dirfd, const char *ident, int ms)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	for (int t = 0; t < ms; t += 50) {
		if (znp_ns_lock_held(dirfd, ident) <= 0)
			return true;
		nanosleep(&ts, NULL);
	}
	return znp_ns_lock_held(dirfd, ident) <= 0;
}

/*
 * SIGTERM to the record's server, only when its pid still is that server
 * (pidfd + start time): a stale pid may be anyone's process now.
 */
static void stop_server(const char *name, const struct znp_ublk_rec *r,
			void (*warn)(const char *, const char *, void *), void *arg)
{
	int pidfd, ret = znp_ublk_server_pidfd("/proc", r, &pidfd);
	char msg[256];

	if (!ret) {
		ret = znp_pidfd_signal(pidfd, SIGTERM);
		close(pidfd);
	}
	if (!ret || ret == -ESRCH || !warn)
		return;
	snprintf(msg, sizeof(msg), "not signalling recorded server pid %ld: %s", (long)r->pid,
		 ret == -ESTALE ? "that pid is another process now (stale record)" :
		 ret == -ENODATA ? "the record has no start time to check it by" :
		 znp_strerror(ret));
	warn(name, msg, arg);
}

/*
 * TRY_STOP_DEV where the driver has it (7.x): the stop happens only if
 * nobody has the device open, in-kernel openers included (a loop device or
 * an nvmet export, which is_busy() cannot see). Our own O_EXCL hold
 * (*@excl) is an opener too: it goes first. Return: 0 stopped, -EBUSY in
 * use (nothing changed), -EOPNOTSUPP no TRY_STOP_DEV (STOP_DEV then),
 * -errno.
 */
static int safe_stop(const struct znp_map_ublk_found *f, int *excl)
{
	uint64_t feat = 0;
	int ret = znp_ublk_probe(&feat);

	if ((ret && ret != -EOPNOTSUPP) || !(feat & ZNP_UBLK_F_SAFE_STOP_DEV))
		return -EOPNOTSUPP;
	if (*excl >= 0) {
		close(*excl);
		*excl = -1;
	}
	return znp_ublk_dev_try_stop(f->rec.dev_id, 1000);
}

/* Stop and delete the device of @f (in use: the check is the caller's). */
static int stop_dev(const struct znp_map_ctx *c, int dirfd, const struct znp_map_ublk_found *f,
		    int excl, const char *name,
		    void (*warn)(const char *, const char *, void *), void *arg,
		    struct znp_map_err *e)
{
	const char *dev = f->device;
	int ret;

	/* a device whose server is gone takes no flush: it would wait for the next server */
	if (f->health == ZNP_UBLK_ALIVE)
		sync_dev(c, dev, excl);
	if (!c->force) {
		ret = safe_stop(f, &excl);
		if (ret == -EBUSY)
			return znp_map_fail(e, ZNP_MAP_REFUSED, ret, "/dev/%s is in use (open in "
					    "the kernel: a loop device, an nvmet export, a mount; "
					    "TRY_STOP_DEV refused): not unmapped; close it, or use "
					    "--force (its users then get I/O errors)", dev);
	} else {
		ret = -EOPNOTSUPP;
	}
	/* STOP_DEV: the server's run loop ends, it deletes the device and its record */
	if (ret == -EOPNOTSUPP)
		ret = znp_ublk_dev_stop(f->rec.dev_id, f->rec.fingerprint);
	/* free now: the server's DEL_DEV waits for the device's last opener */
	if (excl >= 0)
		close(excl);
	if (ret && ret != -ENODEV)
		return znp_map_fail(e, ZNP_MAP_ERRNO, ret, "cannot stop /dev/%s: %s", dev,
				    znp_strerror(ret));
	if (f->health == ZNP_UBLK_ALIVE && !wait_unlocked(dirfd, f->rec.ident, UNMAP_WAIT_MS))
		stop_server(name, &f->rec, warn, arg);
	if (!wait_unlocked(dirfd, f->rec.ident, UNMAP_WAIT_MS))
		/* DEL_DEV would wait for the hung server; its record and lock stay */
		return znp_map_fail(e, ZNP_MAP_FAILED, -EBUSY, "the server of /dev/%s (pid %ld in "
				    "its record) still holds the namespace's lock in %s: stopped, "
				    "not removed", dev, (long)f->rec.pid, c->run_dir);
	ret = znp_ublk_dev_del(f->rec.dev_id, f->rec.fingerprint);
	if (ret && ret != -ENODEV && ret != -EPERM)	/* -EPERM: deleted, the id reused */
		return znp_map_fail(e, ZNP_MAP_ERRNO, ret, "cannot remove /dev/%s: %s", dev,
				    znp_strerror(ret));
	return 0;
}

int znp_map_ublk_remove(const struct znp_map_ctx *c, const struct znp_map_ublk_found *f,
			void (*warn)(const char *subject, const char *msg, void *arg), void *arg,
			struct znp_map_removed *out, struct znp_map_err *e)
{
	char why[600];
	int dirfd, ret, excl = -1;
	bool foreign = false;

	snprintf(out->name, sizeof(out->name), "%s", f->rec.name[0] ? f->rec.name : f->device);
	znp_strlcpy(out->backing, f->rec.ng, sizeof(out->backing));
	e->subject = out->name;
	dirfd = znp_run_dir_open(c->run_dir, false);
	if (dirfd < 0)
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, dirfd, "is not a ublk mapping of this "
				    "tool");
	/* a recorded id may be another program's device now: never touched */
	if (f->health != ZNP_UBLK_MISSING && !is_ours(f, why, sizeof(why))) {
		if (!c->force) {
			close(dirfd);
			return znp_map_fail(e, ZNP_MAP_REFUSED, -EPERM, "/dev/%s is not the device "
					    "of this mapping (%s): left alone; `unmap --force` forgets "
					    "the mapping without touching it", f->device, why);
		}
		if (warn) {
			char msg[1024];

			snprintf(msg, sizeof(msg), "/dev/%s is not the device of this mapping (%s): "
				 "left alone, only the mapping is forgotten", f->device, why);
			warn(out->name, msg, arg);
		}
		foreign = true;
	} else if (f->health != ZNP_UBLK_MISSING && is_busy(c, f->device, why, sizeof(why), &excl) &&
	    !c->force) {
		close(dirfd);
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EBUSY, "/dev/%s is in use (%s): not "
				    "unmapped; unmount or close it, or use --force (its users then "
				    "get I/O errors)", f->device, why);
	}
	if (c->dry_run) {
		if (excl >= 0)
			close(excl);
		close(dirfd);
		return 0;
	}
	ret = f->health != ZNP_UBLK_MISSING && !foreign ?
		stop_dev(c, dirfd, f, excl, out->name, warn, arg, e) : 0;
	if (ret) {
		close(dirfd);
		return ret;
	}
	ret = znp_ublk_forget(dirfd, f->rec.ident);
	close(dirfd);
	if (ret && ret != -ENOENT)
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "removed, but cannot remove its record "
				    "in %s: %s", c->run_dir, ret == -EBUSY ? "a server holds the "
				    "namespace's lock again" : znp_strerror(ret));
	out->removed = true;
	return znp_map_forget(c, f->rec.ident, out, e);
}
