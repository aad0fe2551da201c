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
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "check.h"
#include "geometry.h"
#include "nvme-defs.h"

enum znp_dev_kind {
	ZNP_DEV_NVME_CHAR,	/* /dev/ngXnY */
	ZNP_DEV_NVME_BLOCK,	/* /dev/nvmeXnY */
	ZNP_DEV_ZONED_BLOCK,	/* other zoned block device */
	ZNP_DEV_BLOCK,		/* block device, not zoned (ZNP_OPEN_ANY_BLOCK); no backend */
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
	bool mpath;		/* ng_name and blk_name are a multipath head's (native
				 * multipath: the nodes outlive a path, not the last) */
	bool blk_size_known;	/* blk_sectors read from sysfs */
	uint64_t blk_sectors;	/* the kernel's capacity of the block node (0: it
				 * cannot do I/O to the namespace's format) */
	uint32_t nsid;		/* from sysfs / NVME_IOCTL_ID, never from names */
	uint8_t csi;		/* enum znp_csi */
	char serial[21];
	char model[41];
	char firmware[9];
	uint8_t nguid[16];
	uint8_t eui64[8];
};

/* A namespace identity as text (dm/: znp_ident_from_ns()), with the NUL. */
#define ZNP_IDENT_MAX		96

/**
 * znp_check() - decide eligibility (pure): znp_check_values() with the
 * block-device facts of @ns
 * @ns: NVMe identity (blk_visible, blk_size_known, blk_sectors matter),
 *      NULL for a non-NVMe zoned block device (visible by definition)
 * Return: as znp_check_values().
 */
static inline int znp_check(const struct znp_ns_info *ns, const struct znp_geom *g,
			    bool is_zoned, struct znp_check_result *r)
{
	return znp_check_values(ns && !ns->blk_visible,
				ns && ns->blk_size_known && !ns->blk_sectors, g, is_zoned, r);
}

/* Where to look; NULL members mean "/sys", "/dev" and "/proc". Tests point these at fakes. */
struct znp_env {
	const char *sysfs_root;
	const char *dev_root;
	const char *proc_root;	/* the processes and swaps (this process's own: /proc/self) */
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
	int excl_fd;			/* ng node + ZNP_OPEN_EXCL: its block node, held O_EXCL; -1 */
};

#define ZNP_OPEN_WRITE	(1u << 0)	/* O_RDWR instead of O_RDONLY */
#define ZNP_OPEN_EXCL	(1u << 1)	/* O_EXCL on block devices; refuse mounted/held */
#define ZNP_OPEN_ANY_BLOCK (1u << 2)	/* also non-zoned block devices (ZNP_DEV_BLOCK) */

/**
 * znp_dev_resolve() - the node a user's device argument names, the way
 * nvme-cli users type it
 * @env: sysfs/dev roots (may be NULL)
 * @arg: what the user typed: a path, or a bare kernel name
 * @nsid: --namespace-id when given, else 0
 * @buf: out, the path to open (@arg itself when nothing applies)
 * @why: on failure, a static one-line reason (may be NULL)
 *
 * Three spellings lead to a namespace's generic node; sends nothing:
 *  - a bare name ("ng0n1", "nvme0n1") that is no file in the working
 *    directory: that name under the dev root (nvme-cli's habit);
 *  - the block node of a namespace the kernel hid (absent from the dev
 *    root, <sysfs>/block/NAME/hidden is 1: an npo2 namespace on a stock
 *    kernel): its generic node ngXnY, the same namespace (nothing else can
 *    hold a hidden disk, so nothing is bypassed);
 *  - a controller node (nvmeX) with @nsid: the generic node of namespace
 *    @nsid of that controller (or of a multipath head of its subsystem).
 *    Without @nsid a controller node stays what it is, and znp_dev_open()
 *    refuses it: a controller never receives a namespace command.
 * Return: 0; -ENOENT (a hidden block device without a generic node, a
 * controller without namespace @nsid); -ENAMETOOLONG.
 */
int znp_dev_resolve(const struct znp_env *env, const char *arg, uint32_t nsid,
		    char *buf, size_t len, const char **why);

/**
 * znp_dev_open() - open and classify a device: the library's one open path
 * @env: sysfs/dev roots (may be NULL)
 * @path: device path given by the user
 * @flags: ZNP_OPEN_*
 * @out: the opened device, free with znp_dev_close()
 * @why: on failure, set to a static one-line reason without the device
 *       name, e.g. "not an NVMe namespace or zoned block device",
 *       "is an NVMe controller node; use a namespace node (ngXnY)"
 *       (may be NULL)
 *
 * @path goes through znp_dev_resolve() (no NSID) first; @out->path is
 * the node opened. Then stat, classify through sysfs (<sysfs>/dev/{char,block}/MAJ:MIN and its
 * subsystem link: an NVMe controller node never receives a namespace
 * command), open, then fstat and compare, so the descriptor is the device
 * that was classified. Sends no command that changes anything: only
 * NVME_IOCTL_ID, BLKGETZONESZ (a block device sysfs does not describe)
 * and BLKROGET.
 *
 * ZNP_OPEN_EXCL opens block nodes with O_EXCL (as blkdiscard does) and
 * keeps that descriptor for the whole operation; an ng node has no
 * exclusive open, so the namespace's visible block node is opened O_EXCL
 * instead and held in @out->excl_fd until znp_dev_close(). Mounts and
 * holders are then checked on the opened descriptor's device, so a mount
 * cannot slip in between the check and the use.
 * ZNP_OPEN_ANY_BLOCK accepts a block device that is not zoned (or a
 * partition) as ZNP_DEV_BLOCK, with no backend: the caller drives it.
 *
 * Return: 0; -ENOENT missing; -ENOTBLK not a block or char device;
 * -ENODEV neither an NVMe namespace nor a zoned block device (nor, with
 * ZNP_OPEN_ANY_BLOCK, a block device); -EISDIR an NVMe controller node;
 * -EBUSY mounted, held or opened exclusively elsewhere (ZNP_OPEN_EXCL);
 * -EROFS read-only device with ZNP_OPEN_WRITE; another -errno.
 */
int znp_dev_open(const struct znp_env *env, const char *path, unsigned int flags,
		 struct znp_dev **out, const char **why);
/**
 * znp_dev_close() - close and free a device (NULL is fine)
 * @dev: device from znp_dev_open()
 */
void znp_dev_close(struct znp_dev *dev);

/* znp_dev_probe(), the geometry (identify and the first zone report): zone.h */

/**
 * znp_dev_is_nvme() - is @dev driven by NVMe passthrough?
 * @dev: device
 *
 * Return: true for ngXnY and nvmeXnY nodes (ZNP_DEV_NVME_CHAR/_BLOCK); false
 * for other zoned block devices and for a block device opened with
 * ZNP_OPEN_ANY_BLOCK that is not zoned (ZNP_DEV_BLOCK), an NVMe disk too.
 */
bool znp_dev_is_nvme(const struct znp_dev *dev);

/* "<dev root>/<name>". Return: 0 or -ENAMETOOLONG. */
int znp_dev_path(const struct znp_env *env, char *buf, size_t len, const char *name);

/**
 * znp_ns_from_blk() - identity of the NVMe namespace whose block device
 * is @blk (kernel name, "nvme0n1"), from sysfs; sends no command
 * @ns: out (zeroed here)
 * Return: 0, or -EINVAL when @blk is not an NVMe namespace block device.
 */
int znp_ns_from_blk(const struct znp_env *env, const char *blk, struct znp_ns_info *ns);

/* Can the namespace behind a multipath head be reached? (znp_ns_path_state) */
enum znp_ns_path {
	ZNP_NS_PATH_LIVE,	/* a path's controller is live */
	ZNP_NS_PATH_COMING,	/* a path's controller is resetting or connecting */
	ZNP_NS_PATH_GONE,	/* no path: the namespace was detached or its controllers removed */
};

/**
 * znp_ns_path_state() - the paths of multipath head @ns (znp_ns_info.mpath:
 * ng_name is the head's ng<subsys>n<head>), from sysfs (the subsystem's
 * controllers, their path disks and states); sends no command
 *
 * A head without a live path refuses passthrough commands (-EINVAL from
 * its generic node) until a path comes back, if one does.
 *
 * Return: ZNP_NS_PATH_LIVE when a path's controller is live,
 * ZNP_NS_PATH_COMING when none is but one is resetting, connecting or new,
 * ZNP_NS_PATH_GONE otherwise (the last path disk removed: detached, or the
 * controllers gone).
 */
enum znp_ns_path znp_ns_path_state(const struct znp_env *env, const struct znp_ns_info *ns);

/*
 * Block devices, from sysfs and /proc/self/mountinfo (the library's one
 * reader of each). MAJ:MIN identify the device; @blk is a kernel name.
 */

#define ZNP_DM_NAME_MAX		128	/* DM_NAME_LEN, with the NUL */
#define ZNP_DM_UUID_MAX		129	/* DM_UUID_LEN, with the NUL */

/* Kernel name of block device MAJ:MIN ("nvme0n1"). Return: 0 or -errno. */
int znp_blk_kname(const struct znp_env *env, unsigned int maj, unsigned int min,
		  char *buf, size_t len);
/* Device-mapper name of MAJ:MIN. Return: 0, -ENOENT when not a dm device, -errno. */
int znp_blk_dm_name(const struct znp_env *env, unsigned int maj, unsigned int min,
		    char *buf, size_t len);
/*
 * queue/@attr of MAJ:MIN (a partition's disk for a partition), a decimal
 * number. Return: 0, -ENOENT (no such attribute), -EINVAL (not a number).
 */
int znp_blk_queue_u64(const struct znp_env *env, unsigned int maj, unsigned int min,
		      const char *attr, uint64_t *v);
/* Is MAJ:MIN mounted? @buf (may be NULL) receives the first mount point. */
bool znp_blk_mount_point(unsigned int maj, unsigned int min, char *buf, size_t len);

/* One holder of a block device, from sysfs (<blk>/holders/<dm-N>/dm). */
struct znp_holder {
	char kname[32];			/* "dm-3" */
	char dm_name[ZNP_DM_NAME_MAX];	/* "" when not a device-mapper device */
	char dm_uuid[ZNP_DM_UUID_MAX];
};

/**
 * znp_blk_holders() - who holds block device @blk (kernel name)?
 * @cb: called for each holder; a non-zero return stops and is returned
 * Return: 0 (also when sysfs has no holders directory), or @cb's value.
 */
int znp_blk_holders(const struct znp_env *env, const char *blk,
		    int (*cb)(const struct znp_holder *h, void *arg), void *arg);
/* Does anything (device-mapper, md, ...) hold @blk? */
bool znp_blk_is_held(const struct znp_env *env, const char *blk);

/**
 * znp_blk_why_busy() - why block device @rdev refuses an exclusive open, for
 * a refusal's text: "mounted on /mnt", "held by dm-3 (po2-a)", "in use (open
 * by pid 12 (mkfs.btrfs))", or "in use (opened exclusively elsewhere)" when
 * none of them shows who.
 */
void znp_blk_why_busy(const struct znp_env *env, dev_t rdev, char *why, size_t size);

/**
 * znp_blk_opener() - best effort, for a refusal's text: who has block
 * device @rdev open, when neither a mount nor a holder explains an
 * exclusive claim: "swap space", "open by pid 12 (mkfs.btrfs)" (another
 * process than this one). What cannot be read is skipped.
 * Return: 1 named in @why, 0 nobody seen (@why empty).
 */
int znp_blk_opener(const struct znp_env *env, dev_t rdev, char *why, size_t size);

/**
 * znp_blk_prove_unused() - may block device @node be removed, its users
 * then getting errors? Only when nothing can be using it.
 * @node: its device node ("/dev/ublkb0")
 * @exfd: on 0, the device opened O_EXCL: keep it open until the device is
 *        stopped, so that nothing mounts or claims it meanwhile; else -1
 * @why: on -EBUSY, one line (without the device's name) naming the user,
 *       or what could not be read: "mounted on /mnt", "open by pid 12
 *       (qemu)", "backing loop device loop0 (7:0)", "exported by NVMe
 *       target subsystem NQN namespace 1", "cannot read the open files of
 *       pid 34 (uid 64055): Permission denied", ...
 *
 * Proof, in this order: not mounted (mountinfo), an O_EXCL open succeeds
 * (no mount elsewhere, no exclusive claim: swap, md, a file system), no
 * holders in sysfs, no bound loop device whose backing file is it, no
 * enabled NVMe target namespace whose device_path is it (configfs; with
 * nvmet loaded, an unreadable tree counts as a user), not in /proc/swaps,
 * and no other process has it open: this process must see every process
 * (not from a child PID namespace, nor through a hidepid= /proc without
 * CAP_SYS_PTRACE) and read every descriptor table. Whatever cannot be
 * read counts as a user. Not seen: users none of these show (a descriptor
 * in flight in a Unix socket, a file registered in an io_uring, a mapping
 * of the device whose descriptor was closed).
 *
 * Return: 0 proven unused (@exfd set); -EBUSY in use or not provably
 * unused (@why); -ENOENT no such device; -ENOTBLK @node is not a block
 * device; another -errno.
 */
int znp_blk_prove_unused(const struct znp_env *env, const char *node, int *exfd, char *why,
			 size_t size);

#endif
