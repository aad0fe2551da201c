// SPDX-License-Identifier: GPL-2.0-or-later
/* A recorded ublk server and its device: is it the one recorded, is it alive. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"
#include "svc.h"

/* ---- the recorded server ------------------------------------------------ */

int znp_ublk_server_pidfd(const char *proc, const struct znp_ublk_rec *r, int *pidfd)
{
	uint64_t start;
	int fd, ret;

	if (!r->pid_start)
		return -ENODATA;	/* a record from before start times were kept */
	fd = (int)syscall(SYS_pidfd_open, r->pid, 0);
	if (fd < 0)
		return -errno;
	/* the pidfd pins the process: a match now is the recorded server until it exits */
	ret = znp_proc_start(proc, r->pid, &start);
	if (!ret && start != r->pid_start)
		ret = -ESTALE;
	if (ret) {
		close(fd);
		return ret;
	}
	*pidfd = fd;
	return 0;
}

int znp_pidfd_signal(int pidfd, int sig)
{
	return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) ? -errno : 0;
}

/* ---- health ----------------------------------------------------------------- */

enum znp_ublk_health znp_ublk_health(bool lock_held, const struct znp_ublk_presence *pr)
{
	bool exists = pr->cdev || pr->disk;

	if (pr->state != ZNP_SVC_S_UNKNOWN)
		exists = true;
	if (lock_held)
		return exists ? ZNP_UBLK_ALIVE : ZNP_UBLK_STARTING;
	if (!exists)
		return ZNP_UBLK_MISSING;
	if (pr->state == ZNP_SVC_S_QUIESCED ||
	    (pr->state == ZNP_SVC_S_UNKNOWN && pr->disk) ||
	    (pr->state == ZNP_SVC_S_LIVE))	/* server just died, not yet quiesced */
		return ZNP_UBLK_DEAD_QUIESCED;
	return ZNP_UBLK_DEAD;
}

const char *znp_ublk_health_name(enum znp_ublk_health h)
{
	switch (h) {
	case ZNP_UBLK_ALIVE:
		return "alive";
	case ZNP_UBLK_DEAD_QUIESCED:
		return "dead-quiesced";
	case ZNP_UBLK_DEAD:
		return "dead";
	case ZNP_UBLK_MISSING:
		return "missing";
	case ZNP_UBLK_STARTING:
		return "starting";
	}
	return "unknown";
}

void znp_ublk_presence(const char *sysfs_root, int dev_id, struct znp_ublk_presence *pr)
{
	char path[PATH_MAX];
	const char *root = sysfs_root ? sysfs_root : "/sys";

	pr->state = ZNP_SVC_S_UNKNOWN;
	snprintf(path, sizeof(path), "%s/class/ublk-char/ublkc%d", root, dev_id);
	pr->cdev = !access(path, F_OK);
	snprintf(path, sizeof(path), "%s/block/ublkb%d", root, dev_id);
	pr->disk = !access(path, F_OK);
}
