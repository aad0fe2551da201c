// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map --ublk: what cannot be served (check verdicts, geometry, identity) and
 * the ublk driver it needs, decided before anything changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_ublkmap.h"

/* An LBA format with metadata or PI, named as Identify Namespace gives it. */
static int refuse_format(struct umap *m, const struct znp_geom *g)
{
	char pi[48] = "";

	if (g->pi_type)
		snprintf(pi, sizeof(pi), ", protection information type %u", g->pi_type);
	if (!g->md_bytes)
		return umap_refuse(m, ZNP_EXIT_UNSUITABLE, "the LBA format has protection "
				   "information type %u: the ublk server moves data only (no "
				   "metadata, no PI)", g->pi_type);
	return umap_refuse(m, ZNP_EXIT_UNSUITABLE, "the LBA format has %u bytes of metadata "
			   "per LBA (%s%s): the ublk server moves data only (no metadata, no PI)",
			   g->md_bytes, g->md_extended ? "extended LBA, interleaved with the data" :
			   "in a separate buffer", pi);
}

static int refuse_verdict(struct umap *m, const struct znp_dev *dev,
			  const struct znp_check_result *r)
{
	const struct znp_geom *g = &dev->geom;

	switch (r->verdict) {
	case ZNP_V_NEEDS_KERNEL:
	case ZNP_V_UBLK:
		break;
	case ZNP_V_MAPPABLE:
		if (m->o->force_ublk)
			break;
		return umap_refuse(m, ZNP_EXIT_REFUSED, "the kernel shows this namespace's block "
				   "device (npo2 kernel patches): map it with plain `map` "
				   "(dm-po2zone, cheaper), or add --force-ublk to serve it through "
				   "ublk anyway");
	case ZNP_V_PO2:
		return umap_refuse(m, ZNP_EXIT_UNSUITABLE, "zone size 0x%" PRIx64 " LBAs is a "
				   "power of 2: nothing to do (no mapping needed)", g->zone_size);
	case ZNP_V_CAP_LT_SIZE:
		return umap_refuse(m, ZNP_EXIT_UNSUITABLE, "zone capacity 0x%" PRIx64 " < zone "
				   "size 0x%" PRIx64 " LBAs: a po2 mapping needs capacity == size",
				   g->zone_cap, g->zone_size);
	case ZNP_V_CAP_VARIES:
		return umap_refuse(m, ZNP_EXIT_UNSUITABLE, "%s", znp_verdict_text(r->verdict));
	case ZNP_V_NOT_ZNS:
		return umap_refuse(m, ZNP_EXIT_UNSUITABLE, "not a zoned namespace");
	case ZNP_V_METADATA:
		return refuse_format(m, g);
	}
	if (znp_lba_format_has_md(g))	/* visible and --force-ublk */
		return refuse_format(m, g);
	if (r->reasons & ZNP_R_SMALL_LAST_ZONE)
		return umap_refuse(m, ZNP_EXIT_UNSUITABLE, "the last zone is smaller than the "
				   "others: a po2 mapping maps whole zones only");
	return 0;
}

int umap_check_dev(struct umap *m, struct znp_dev *dev, struct znp_ublk_geom *g,
		   char *ident, size_t size)
{
	struct znp_check_result res;
	const char *why = NULL;
	int ret;

	if (!znp_dev_is_nvme(dev))
		return umap_refuse(m, ZNP_EXIT_UNSUITABLE, "not an NVMe namespace: a ublk mapping "
				   "serves an NVMe ZNS namespace through its ng node");
	ret = znp_check(&dev->ns, &dev->geom, dev->is_zoned, &res);
	if (ret)
		return umap_refuse(m, ZNP_EXIT_FAILED, "cannot decide: %s", znp_strerror(ret));
	ret = refuse_verdict(m, dev, &res);
	if (ret)
		return ret;
	ret = znp_ublk_geom_from_dev(dev, g, &why);
	if (ret)
		return umap_refuse(m, znp_cli_exit(m->cli, ret), "cannot be served through ublk: %s",
				   why ? why : znp_strerror(ret));
	if (znp_ident_from_ns(&dev->ns, ident, size))
		return umap_refuse(m, ZNP_EXIT_UNSUITABLE, "no stable identity (NGUID, EUI-64 or "
				   "serial number): the namespace's lock and record are keyed by "
				   "it");
	return 0;
}

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

int umap_need_driver(struct umap *m)
{
	uint64_t feat = 0;
	int ret = znp_ublk_probe(&feat);

	if (ret == -ENOENT) {
		umap_say(m, LOG_NOTICE, "loading ublk_drv");
		if (!modprobe_ublk()) {
			for (int i = 0; i < 40 && (ret = znp_ublk_probe(&feat)) == -ENOENT; i++)
				usleep(50000);	/* the control node appears */
		}
	}
	if (ret == -ENOENT)
		return umap_refuse(m, ZNP_EXIT_UNSUPPORTED, "the kernel has no ublk driver "
				   "(/dev/ublk-control missing, `modprobe ublk_drv` failed)");
	if (ret == -EACCES || ret == -EPERM)
		return umap_refuse(m, ZNP_EXIT_REFUSED, "no access to /dev/ublk-control: a ublk "
				   "server needs root (CAP_SYS_ADMIN)");
	if (ret == -EOPNOTSUPP)
		return umap_refuse(m, ZNP_EXIT_UNSUPPORTED, "the ublk driver lacks zoned devices, "
				   "user copy or user recovery (features 0x%" PRIx64 "; needs "
				   "Linux >= 6.6)", feat);
	if (ret)
		return umap_refuse(m, ZNP_EXIT_FAILED, "cannot ask the ublk driver for its "
				   "features: %s", znp_strerror(ret));
	return 0;
}
