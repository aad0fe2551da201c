/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Devices: NVMe namespaces (generic char node /dev/ngXnY or block node
 * /dev/nvmeXnY, both driven by NVMe passthrough through libnvme) and any
 * other zoned block device (dm, null_blk: block zone ioctls).
 */
#ifndef ZNP_DEV_H
#define ZNP_DEV_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "geometry.h"

enum znp_dev_kind {
	ZNP_DEV_NVME_CHAR,	/* /dev/ngXnY */
	ZNP_DEV_NVME_BLOCK,	/* /dev/nvmeXnY */
	ZNP_DEV_ZONED_BLOCK,	/* other zoned block device */
};

enum znp_csi {
	ZNP_CSI_NVM = 0,
	ZNP_CSI_KV = 1,
	ZNP_CSI_ZNS = 2,
};

/* Identity of an NVMe namespace, from sysfs and Identify. */
struct znp_ns_info {
	char ctrl[32];		/* "nvme0" */
	char ng_name[32];	/* "ng0n1", "" if none */
	char blk_name[32];	/* "nvme0n1", "" if none */
	bool blk_visible;	/* block node usable (kernel did not hide it) */
	uint32_t nsid;		/* from sysfs / NVME_IOCTL_ID, never from names */
	uint8_t csi;		/* enum znp_csi */
	char serial[21];
	char model[41];
	char firmware[9];
	uint8_t nguid[16];
	uint8_t eui64[8];
};

/* Where to look; NULL members mean "/sys" and "/dev". Tests point these at fakes. */
struct znp_env {
	const char *sysfs_root;
	const char *dev_root;
};

struct znp_backend;

struct znp_dev {
	int fd;
	enum znp_dev_kind kind;
	char path[PATH_MAX];
	char name[64];			/* basename, for messages */
	struct znp_ns_info ns;		/* NVMe kinds only */
	struct znp_geom geom;		/* valid after znp_dev_probe() */
	bool is_zoned;			/* ZNS namespace or zoned block device */
	const struct znp_backend *be;
	void *be_priv;
};

#define ZNP_OPEN_WRITE	(1u << 0)	/* O_RDWR instead of O_RDONLY */
#define ZNP_OPEN_EXCL	(1u << 1)	/* O_EXCL on block devices; refuse mounted/held */

/**
 * znp_dev_open() - open and classify a device
 * @env: sysfs/dev roots (may be NULL)
 * @path: device path given by the user
 * @flags: ZNP_OPEN_*
 * @out: the opened device, free with znp_dev_close()
 * @why: on failure, set to a static one-line reason without the device
 *       name, e.g. "not an NVMe namespace or zoned block device",
 *       "is an NVMe controller node; use a namespace node (ngXnY)"
 *
 * Sends no command that changes anything. Opening is refused, with
 * distinct errors, for: a missing path (-ENOENT), something that is not a
 * block or char device (-ENOTBLK), a device that is neither an NVMe
 * namespace nor a zoned block device (-ENODEV), an NVMe controller node
 * (-EISDIR), a mounted or held block device with ZNP_OPEN_EXCL (-EBUSY).
 * Return: 0 or -errno.
 */
int znp_dev_open(const struct znp_env *env, const char *path, unsigned int flags,
		 struct znp_dev **out, const char **why);
void znp_dev_close(struct znp_dev *dev);

/**
 * znp_dev_probe() - read the geometry (Identify Controller/Namespace, ZNS
 * Identify Namespace, first zone report for the capacity) into @dev->geom.
 * Return: 0, -errno, or a positive NVMe status. -EMEDIUMTYPE when the
 * namespace is not zoned (conventional): @dev->is_zoned is false then and
 * @dev->geom holds lba_size/nlbas.
 */
int znp_dev_probe(struct znp_dev *dev);

#define ZNP_PROBE_DEFER_CAP	(1u << 0)	/* zone_cap from the first report */
#define ZNP_PROBE_FULL_CAP	(1u << 1)	/* read every zone: exact zone_cap_varies */
int znp_dev_probe_flags(struct znp_dev *dev, unsigned int flags);

/* Is @dev an NVMe device (char or block node)? */
bool znp_dev_is_nvme(const struct znp_dev *dev);

#endif
