// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Opening and classifying devices. The class comes from sysfs
 * (<sysfs>/dev/{char,block}/MAJ:MIN and its subsystem link): an NVMe
 * controller node must never receive a namespace command, and a hidden
 * namespace is reachable only through its generic char node.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/blkzoned.h>
#include <linux/fs.h>

#include "nvme-adapter.h"	/* first: see there */
#include "backend.h"
#include "nsinfo.h"
#include "sysfs.h"

#define WHY_NOT_OURS	"not an NVMe namespace or zoned block device"

struct dev_class {
	enum znp_dev_kind kind;
	char name[ZNP_NAME_MAX];	/* kernel name, "" if unknown */
	bool zoned_unknown;		/* block device without sysfs: ask the kernel */
};

/* Kernel name of the device behind sysfs dir @dir (a symlink on real sysfs). */
static void dev_kernel_name(const char *dir, char *name, size_t len)
{
	char path[600], line[128];
	FILE *f;

	name[0] = '\0';
	if (!znp_link_basename(dir, name, len) && !strchr(name, ':'))
		return;
	name[0] = '\0';
	snprintf(path, sizeof(path), "%s/uevent", dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			znp_strlcpy(name, line + 8, len);
			break;
		}
	}
	fclose(f);
}

static int classify_char(const char *subsys, struct dev_class *c, const char **why)
{
	if (!strcmp(subsys, "nvme") || (!subsys[0] && znp_name_is_ctrl(c->name))) {
		*why = "is an NVMe controller node; use a namespace node (ngXnY)";
		return -EISDIR;
	}
	if (!strcmp(subsys, "nvme-generic") || (!subsys[0] && znp_name_is_ng(c->name))) {
		c->kind = ZNP_DEV_NVME_CHAR;
		return 0;
	}
	*why = WHY_NOT_OURS;
	return -ENODEV;
}

/* @dir: the sysfs directory of a block device; @any: ZNP_OPEN_ANY_BLOCK. */
static int classify_block(const char *dir, bool any, struct dev_class *c, const char **why)
{
	char path[600], val[32];
	bool part, zoned_none, zoned_known;

	snprintf(path, sizeof(path), "%s/partition", dir);
	part = znp_path_exists(path);
	snprintf(path, sizeof(path), part ? "%s/../queue/zoned" : "%s/queue/zoned", dir);
	zoned_known = !znp_attr_read(path, val, sizeof(val));
	zoned_none = zoned_known && !strcmp(val, "none");
	if (any && (part || zoned_none)) {
		c->kind = ZNP_DEV_BLOCK;
		return 0;
	}
	if (part) {
		*why = "is a partition; use the whole device";
		return -ENODEV;
	}
	if (znp_name_is_disk(c->name) && (!any || zoned_known)) {
		c->kind = ZNP_DEV_NVME_BLOCK;
		return 0;
	}
	c->kind = ZNP_DEV_ZONED_BLOCK;
	if (!zoned_known) {
		c->zoned_unknown = true;
		return 0;
	}
	if (zoned_none) {
		*why = WHY_NOT_OURS;
		return -ENODEV;
	}
	return 0;
}

static int classify(const struct znp_env *env, const struct stat *st, unsigned int flags,
		    struct dev_class *c, const char **why)
{
	bool chr = S_ISCHR(st->st_mode);
	char dir[512], path[600], subsys[ZNP_NAME_MAX] = "";
	int ret;

	ret = znp_sysfs_path(env, dir, sizeof(dir), "dev/%s/%u:%u", chr ? "char" : "block",
			     major(st->st_rdev), minor(st->st_rdev));
	if (ret)
		return ret;
	if (!znp_path_exists(dir)) {
		if (chr) {
			*why = WHY_NOT_OURS;
			return -ENODEV;
		}
		c->kind = ZNP_DEV_ZONED_BLOCK;
		c->zoned_unknown = true;
		return 0;
	}
	dev_kernel_name(dir, c->name, sizeof(c->name));
	if (chr) {
		snprintf(path, sizeof(path), "%s/subsystem", dir);
		znp_link_basename(path, subsys, sizeof(subsys));
		return classify_char(subsys, c, why);
	}
	return classify_block(dir, flags & ZNP_OPEN_ANY_BLOCK, c, why);
}

static void read_limits(const struct znp_env *env, const char *blk, struct znp_queue_limits *l)
{
	char path[512];
	uint64_t v;

	if (!blk[0])
		return;
	if (!znp_sysfs_path(env, path, sizeof(path), "block/%s/queue/max_hw_sectors_kb", blk) &&
	    !znp_attr_read_u64(path, &v) && v && v <= UINT32_MAX / 1024)
		l->max_hw_bytes = (uint32_t)(v * 1024);
	if (!znp_sysfs_path(env, path, sizeof(path), "block/%s/queue/max_open_zones", blk) &&
	    !znp_attr_read_u64(path, &v) && v <= UINT32_MAX)
		l->max_open = (uint32_t)v;
	if (!znp_sysfs_path(env, path, sizeof(path), "block/%s/queue/max_active_zones", blk) &&
	    !znp_attr_read_u64(path, &v) && v <= UINT32_MAX)
		l->max_active = (uint32_t)v;
}

struct first_holder {
	struct znp_holder h;
	bool found;
};

static int first_holder_cb(const struct znp_holder *h, void *arg)
{
	struct first_holder *f = arg;

	f->h = *h;
	f->found = true;
	return 1;
}

void znp_blk_why_busy(const struct znp_env *env, dev_t rdev, char *why, size_t size)
{
	char kname[ZNP_NAME_MAX], mnt[512], who[256];
	struct first_holder fh = { .found = false };

	if (znp_blk_mount_point(major(rdev), minor(rdev), mnt, sizeof(mnt))) {
		snprintf(why, size, "mounted%s%s", mnt[0] ? " on " : "", mnt);
		return;
	}
	if (!znp_blk_kname(env, major(rdev), minor(rdev), kname, sizeof(kname))) {
		znp_blk_holders(env, kname, first_holder_cb, &fh);
		if (fh.found) {
			snprintf(why, size, "held by %s%s%s%s", fh.h.kname,
				 fh.h.dm_name[0] ? " (" : "", fh.h.dm_name, fh.h.dm_name[0] ? ")" : "");
			return;
		}
	}
	if (znp_blk_opener(env, rdev, who, sizeof(who)))
		snprintf(why, size, "in use (%s)", who);
	else
		snprintf(why, size, "in use (opened exclusively elsewhere)");
}

/*
 * Why block device @rdev is busy (znp_blk_why_busy()). @paired: it is the
 * block node of an ng node. The text is the caller thread's until its next
 * call.
 */
static const char *busy_reason(const struct znp_env *env, dev_t rdev, bool paired)
{
	static __thread char why[ZNP_DM_NAME_MAX + 640];
	char r[ZNP_DM_NAME_MAX + 560];

	znp_blk_why_busy(env, rdev, r, sizeof(r));
	snprintf(why, sizeof(why), "%s %s", paired ? "block device of this namespace is" : "is", r);
	return why;
}

/*
 * Open @path as classified. A read-only block device refuses a write open
 * with EROFS or EACCES: tell that apart from a permission problem.
 */
static int open_node(const char *path, bool chr, unsigned int flags, int *fd, const char **why)
{
	int oflags = (flags & ZNP_OPEN_WRITE ? O_RDWR : O_RDONLY) | O_CLOEXEC, ro = 0, err;

	if ((flags & ZNP_OPEN_EXCL) && !chr)
		oflags |= O_EXCL;
	*fd = open(path, oflags);
	if (*fd >= 0)
		return 0;
	err = errno;
	if (!chr && (flags & ZNP_OPEN_WRITE) && (err == EROFS || err == EACCES)) {
		int rfd = open(path, O_RDONLY | O_CLOEXEC);

		if (rfd >= 0 && !ioctl(rfd, BLKROGET, &ro) && ro) {
			close(rfd);
			*why = "is read-only";
			return -EROFS;
		}
		if (rfd >= 0)
			close(rfd);
	}
	*why = err == EBUSY ? "is in use (mounted, mapped or held)" :
	       err == EACCES || err == EPERM ? "permission denied" :
	       err == EROFS ? "is read-only" : "cannot open device";
	return -err;
}

/* Mounts and holders of the device behind the descriptor we hold. */
static int check_unused(const struct znp_env *env, int fd, bool paired, const char **why)
{
	char kname[ZNP_NAME_MAX];
	struct stat st;
	dev_t rdev;

	if (fstat(fd, &st))
		return -errno;
	rdev = st.st_rdev;
	if (znp_blk_mount_point(major(rdev), minor(rdev), NULL, 0) ||
	    (!znp_blk_kname(env, major(rdev), minor(rdev), kname, sizeof(kname)) &&
	     znp_blk_is_held(env, kname))) {
		*why = busy_reason(env, rdev, paired);
		return -EBUSY;
	}
	return 0;
}

/*
 * ng char nodes have no O_EXCL semantics. For ZNP_OPEN_EXCL, open the
 * paired block node (when visible) with O_EXCL and keep it open until
 * znp_dev_close(), so that a mounted or mapped namespace is refused
 * through either node and cannot be mounted while we work.
 */
static int excl_hold_blk(const struct znp_env *env, struct znp_dev *dev, const char **why)
{
	const struct znp_ns_info *ns = &dev->ns;
	char path[PATH_MAX];
	struct stat st;
	int fd;

	if (!ns->blk_visible || !ns->blk_name[0] ||
	    znp_dev_path(env, path, sizeof(path), ns->blk_name))
		return 0;
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		if (errno != EBUSY)
			return 0;	/* not there (or not ours to see): nothing to hold */
		*why = stat(path, &st) ? "block device of this namespace is in use" :
					 busy_reason(env, st.st_rdev, true);
		return -EBUSY;
	}
	dev->excl_fd = fd;
	return check_unused(env, fd, true, why);
}

static int nvme_identity(const struct znp_env *env, struct znp_dev *dev, const char **why)
{
	uint32_t nsid = 0;
	int ret;

	if (dev->kind == ZNP_DEV_NVME_CHAR) {
		ret = znp_nsinfo_from_ng(env, dev->name, &dev->ns);
	} else {
		ret = znp_nsinfo_from_blk(env, dev->name, &dev->ns);
		dev->ns.blk_visible = true;
	}
	if (ret) {
		*why = WHY_NOT_OURS;
		return -ENODEV;
	}
	if (znp_nvme_get_nsid(dev->fd, &nsid) || !nsid) {
		if (!dev->ns.nsid) {
			*why = "cannot read the namespace ID";
			return -ENODEV;
		}
		return 0;
	}
	znp_nsinfo_set_nsid(&dev->ns, nsid, dev->kind == ZNP_DEV_NVME_CHAR);
	return 0;
}

/* After open: what drives the device, and its identity or zoned check. */
static int attach(const struct znp_env *env, struct znp_dev *dev, const struct dev_class *cls,
		  unsigned int flags, const char **why)
{
	__u32 zsz = 0;
	int ro = 0, ret;

	if (dev->kind != ZNP_DEV_NVME_CHAR && (flags & ZNP_OPEN_WRITE) &&
	    !ioctl(dev->fd, BLKROGET, &ro) && ro) {
		*why = "is read-only";
		return -EROFS;
	}
	if (dev->kind != ZNP_DEV_NVME_CHAR && (flags & ZNP_OPEN_EXCL)) {
		ret = check_unused(env, dev->fd, false, why);
		if (ret)
			return ret;
	}
	if (dev->kind == ZNP_DEV_ZONED_BLOCK && cls->zoned_unknown &&
	    (ioctl(dev->fd, BLKGETZONESZ, &zsz) || !zsz)) {
		if (!(flags & ZNP_OPEN_ANY_BLOCK)) {
			*why = WHY_NOT_OURS;
			return -ENODEV;
		}
		dev->kind = ZNP_DEV_BLOCK;
	}
	if (dev->kind == ZNP_DEV_BLOCK)
		return 0;
	if (dev->kind == ZNP_DEV_ZONED_BLOCK) {
		dev->be = &znp_backend_blk;
		read_limits(env, cls->name, dev->be_priv);
		return 0;
	}
	ret = nvme_identity(env, dev, why);
	if (!ret && dev->kind == ZNP_DEV_NVME_CHAR && (flags & ZNP_OPEN_EXCL))
		ret = excl_hold_blk(env, dev, why);
	if (ret)
		return ret;
	dev->be = &znp_backend_nvme;
	read_limits(env, dev->ns.blk_name, dev->be_priv);
	return 0;
}

static int stat_error(int ret, const char **why)
{
	*why = ret == -ENOENT || ret == -ENOTDIR ? "no such device" :
	       ret == -ELOOP ? "too many levels of symbolic links" :
	       ret == -ENAMETOOLONG ? "path too long" : "cannot access device";
	return ret;
}

static struct znp_dev *dev_new(const char *path, const struct dev_class *cls)
{
	struct znp_dev *dev = calloc(1, sizeof(*dev));
	char tmp[PATH_MAX];

	if (!dev)
		return NULL;
	dev->fd = -1;
	dev->excl_fd = -1;
	dev->be_priv = calloc(1, sizeof(struct znp_queue_limits));
	if (!dev->be_priv) {
		free(dev);
		return NULL;
	}
	dev->kind = cls->kind;
	znp_strlcpy(dev->path, path, sizeof(dev->path));
	znp_strlcpy(tmp, path, sizeof(tmp));
	znp_strlcpy(dev->name, cls->name[0] ? cls->name : basename(tmp), sizeof(dev->name));
	return dev;
}

/* @name ("nvme0n1") is a disk the kernel hid: in sysfs, hidden=1. */
static bool blk_is_hidden(const struct znp_env *env, const char *name)
{
	char path[512], val[8];

	return znp_name_is_disk(name) &&
	       !znp_sysfs_path(env, path, sizeof(path), "block/%s/hidden", name) &&
	       !znp_attr_read(path, val, sizeof(val)) && !strcmp(val, "1");
}

/* Kernel name of controller char node @st, or "" when it is none. */
static void ctrl_name(const struct znp_env *env, const struct stat *st, char *name, size_t len)
{
	char dir[512], path[600], subsys[ZNP_NAME_MAX] = "";

	name[0] = '\0';
	if (!S_ISCHR(st->st_mode) ||
	    znp_sysfs_path(env, dir, sizeof(dir), "dev/char/%u:%u", major(st->st_rdev),
			   minor(st->st_rdev)) || !znp_path_exists(dir))
		return;
	dev_kernel_name(dir, name, len);
	snprintf(path, sizeof(path), "%s/subsystem", dir);
	znp_link_basename(path, subsys, sizeof(subsys));
	if (!znp_name_is_ctrl(name) || (subsys[0] && strcmp(subsys, "nvme")))
		name[0] = '\0';
}

int znp_dev_resolve(const struct znp_env *env, const char *arg, uint32_t nsid,
		    char *buf, size_t len, const char **why)
{
	char root[PATH_MAX], name[ZNP_NAME_MAX];
	struct znp_ns_info ns;
	const char *dummy, *base;
	struct stat st;
	size_t rlen;

	if (!why)
		why = &dummy;
	if (!arg || !*arg)
		return -EINVAL;
	if (znp_strlcpy(buf, arg, len))
		return -ENAMETOOLONG;
	if (!strchr(arg, '/') && lstat(arg, &st) && errno == ENOENT &&
	    znp_dev_path(env, buf, len, arg))
		return -ENAMETOOLONG;
	if (znp_dev_path(env, root, sizeof(root), ""))
		return -ENAMETOOLONG;
	rlen = strlen(root);
	base = buf + rlen;
	if (stat(buf, &st)) {
		/* a hidden disk has no node: only under the dev root, by its name */
		if (errno != ENOENT || strncmp(buf, root, rlen) || strchr(base, '/') ||
		    !blk_is_hidden(env, base))
			return 0;
		memset(&ns, 0, sizeof(ns));
		if (znp_nsinfo_from_blk(env, base, &ns) || !ns.ng_name[0]) {
			*why = "block device hidden by the kernel, and no generic node (ngXnY) "
			       "of its namespace found";
			return -ENOENT;
		}
		return znp_dev_path(env, buf, len, ns.ng_name);
	}
	if (!nsid)
		return 0;
	ctrl_name(env, &st, name, sizeof(name));
	if (!name[0])
		return 0;
	switch (znp_nsinfo_ng_of_ctrl(env, name, nsid, ns.ng_name, sizeof(ns.ng_name))) {
	case 0:
		return znp_dev_path(env, buf, len, ns.ng_name);
	case -ENOENT:
		*why = "controller has no namespace with that ID (no generic node in sysfs)";
		return -ENOENT;
	default:
		return -ENAMETOOLONG;
	}
}

int znp_dev_open(const struct znp_env *env, const char *arg, unsigned int flags,
		 struct znp_dev **out, const char **why)
{
	struct dev_class cls = { 0 };
	char path[PATH_MAX];
	struct znp_dev *dev;
	struct stat st, st2;
	const char *dummy;
	int ret;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (!arg || !out)
		return -EINVAL;
	*out = NULL;
	ret = znp_dev_resolve(env, arg, 0, path, sizeof(path), why);
	if (ret)
		return ret;
	if (stat(path, &st))
		return stat_error(-errno, why);
	if (!S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode)) {
		*why = "not a block or character device";
		return -ENOTBLK;
	}
	ret = classify(env, &st, flags, &cls, why);
	if (ret)
		return ret;
	dev = dev_new(path, &cls);
	if (!dev)
		return -ENOMEM;
	ret = open_node(path, S_ISCHR(st.st_mode), flags, &dev->fd, why);
	if (ret == -EBUSY)
		*why = busy_reason(env, st.st_rdev, false);
	if (ret)
		goto out_close;
	if (fstat(dev->fd, &st2) || st2.st_rdev != st.st_rdev ||
	    (st2.st_mode & S_IFMT) != (st.st_mode & S_IFMT)) {
		*why = "device changed while opening";
		ret = -ENODEV;
		goto out_close;
	}
	ret = attach(env, dev, &cls, flags, why);
	if (ret)
		goto out_close;
	*out = dev;
	return 0;

out_close:
	znp_dev_close(dev);
	return ret;
}

void znp_dev_close(struct znp_dev *dev)
{
	if (!dev)
		return;
	if (dev->fd >= 0)
		close(dev->fd);
	if (dev->excl_fd >= 0)
		close(dev->excl_fd);
	free(dev->be_priv);
	free(dev);
}

bool znp_dev_is_nvme(const struct znp_dev *dev)
{
	/* not "!= ZNP_DEV_ZONED_BLOCK": a block device that is not zoned has no backend */
	return dev && (dev->kind == ZNP_DEV_NVME_CHAR || dev->kind == ZNP_DEV_NVME_BLOCK);
}
