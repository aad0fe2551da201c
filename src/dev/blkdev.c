// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block devices as sysfs and /proc/self/mountinfo describe them: kernel
 * names, device-mapper names, holders, mount points and queue limits. The
 * one mountinfo reader and the one holders reader of the library.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "dev.h"
#include "sysfs.h"

/* <sysfs>/dev/block/MAJ:MIN@sub read as a link target (@link) or an attribute. */
static int blk_read(const struct znp_env *env, unsigned int maj, unsigned int min,
		    const char *sub, bool link, char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret;

	ret = znp_sysfs_path(env, path, sizeof(path), "dev/block/%u:%u%s", maj, min, sub);
	if (ret)
		return ret;
	return link ? znp_link_basename(path, buf, len) : znp_attr_read(path, buf, len);
}

int znp_blk_kname(const struct znp_env *env, unsigned int maj, unsigned int min,
		  char *buf, size_t len)
{
	int ret = blk_read(env, maj, min, "", true, buf, len);

	/* a dangling link's text is "MAJ:MIN": no kernel name */
	return !ret && strchr(buf, ':') ? -ENOENT : ret;
}

int znp_blk_dm_name(const struct znp_env *env, unsigned int maj, unsigned int min,
		    char *buf, size_t len)
{
	return blk_read(env, maj, min, "/dm/name", false, buf, len);
}

int znp_blk_queue_u64(const struct znp_env *env, unsigned int maj, unsigned int min,
		      const char *attr, uint64_t *v)
{
	char path[PATH_MAX];
	int i, ret = -ENOENT;

	for (i = 0; i < 2; i++) {
		/* a partition has no queue/: look at its disk */
		ret = znp_sysfs_path(env, path, sizeof(path), "dev/block/%u:%u/%squeue/%s",
				     maj, min, i ? "../" : "", attr);
		if (ret)
			return ret;
		ret = znp_attr_read_u64(path, v);
		if (ret != -ENOENT)
			return ret;
	}
	return ret;
}

/* Is @src (a mount source) a block device node of @maj:@min? */
static bool source_is(const char *src, unsigned int maj, unsigned int min)
{
	struct stat st;

	return src[0] == '/' && !stat(src, &st) && S_ISBLK(st.st_mode) &&
	       major(st.st_rdev) == maj && minor(st.st_rdev) == min;
}

bool znp_blk_mount_point(unsigned int maj, unsigned int min, char *buf, size_t len)
{
	char line[4096], mnt[PATH_MAX], src[PATH_MAX];
	unsigned int ma, mi;
	bool found = false;
	FILE *f;

	if (buf && len)
		buf[0] = '\0';
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		mnt[0] = '\0';
		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) < 2)
			continue;
		/* btrfs shows an anonymous MAJ:MIN: the mount source names the device */
		found = (ma == maj && mi == min) ||
			(sep && sscanf(sep, " - %*s %4095s", src) == 1 && source_is(src, maj, min));
		if (found && buf && len)
			znp_strlcpy(buf, mnt, len);
	}
	fclose(f);
	return found;
}

int znp_blk_holders(const struct znp_env *env, const char *blk,
		    int (*cb)(const struct znp_holder *h, void *arg), void *arg)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *d;
	DIR *dp;
	int ret = 0;

	if (!blk || !*blk || strchr(blk, '/'))
		return 0;
	if (znp_sysfs_path(env, dir, sizeof(dir), "block/%s/holders", blk))
		return 0;
	dp = opendir(dir);
	if (!dp)
		return 0;
	while (!ret && (d = readdir(dp))) {
		struct znp_holder h = { 0 };

		if (d->d_name[0] == '.')
			continue;
		if (znp_strlcpy(h.kname, d->d_name, sizeof(h.kname)))
			continue;
		snprintf(path, sizeof(path), "%s/%s/dm/name", dir, d->d_name);
		znp_attr_read(path, h.dm_name, sizeof(h.dm_name));
		snprintf(path, sizeof(path), "%s/%s/dm/uuid", dir, d->d_name);
		znp_attr_read(path, h.dm_uuid, sizeof(h.dm_uuid));
		ret = cb(&h, arg);
	}
	closedir(dp);
	return ret;
}

static int any_holder(const struct znp_holder *h, void *arg)
{
	return 1;
}

bool znp_blk_is_held(const struct znp_env *env, const char *blk)
{
	return znp_blk_holders(env, blk, any_holder, NULL) == 1;
}
