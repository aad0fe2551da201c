// SPDX-License-Identifier: GPL-2.0-or-later
/* Discard targets, range lists, validation and planning. See discard.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/fs.h>

#include "discard.h"
#include "geometry.h"
#include "sysfs.h"
#include "zone.h"

const char *znp_discard_type_name(enum znp_discard_type t)
{
	switch (t) {
	case ZNP_DT_BLOCK:	return "block";
	case ZNP_DT_NVME_CONV:	return "nvme-conventional";
	case ZNP_DT_ZONED:	return "zoned";
	}
	return "unknown";
}

/* Read a sysfs attribute of block device @rdev; "queue/..." falls back to
 * the whole disk for partitions. Returns 0 or -errno. */
static int blk_attr(const struct znp_env *env, dev_t rdev, const char *attr,
		    char *buf, size_t size)
{
	char path[512];
	int i;

	for (i = 0; i < 2; i++) {
		/* a partition has no queue/: look at its disk */
		if (znp_sysfs_path(env, path, sizeof(path), "dev/block/%u:%u/%s%s",
				   major(rdev), minor(rdev), i ? "../" : "", attr))
			continue;
		if (!znp_attr_read(path, buf, size))
			return 0;
	}
	return -ENOENT;
}

static uint64_t blk_attr_u64(const struct znp_env *env, dev_t rdev,
			     const char *attr, uint64_t dflt)
{
	char buf[64];

	if (blk_attr(env, rdev, attr, buf, sizeof(buf)))
		return dflt;
	return strtoull(buf, NULL, 10);
}

static bool blk_is_held(const struct znp_env *env, dev_t rdev)
{
	char path[512];
	struct dirent *de;
	bool held = false;
	DIR *d;

	if (znp_sysfs_path(env, path, sizeof(path), "dev/block/%u:%u/holders",
			   major(rdev), minor(rdev)))
		return false;
	d = opendir(path);
	if (!d)
		return false;
	while (!held && (de = readdir(d)))
		held = de->d_name[0] != '.';
	closedir(d);
	return held;
}

static bool blk_is_mounted(dev_t rdev)
{
	unsigned int ma, mi;
	char line[4096];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*u %*u %u:%u", &ma, &mi) == 2 &&
			ma == major(rdev) && mi == minor(rdev);
	fclose(f);
	return found;
}

static int open_block(const struct znp_env *env, struct znp_discard_target *t,
		      const struct stat *st, unsigned int flags, const char **why)
{
	int oflags = O_CLOEXEC, ro = 0, fd;
	uint64_t size;

	if (flags & ZNP_DISCARD_OPEN_EXCL) {
		if (blk_is_mounted(st->st_rdev)) {
			*why = "is mounted";
			return -EBUSY;
		}
		if (blk_is_held(env, st->st_rdev)) {
			*why = "is held by another device (device-mapper, md, ...)";
			return -EBUSY;
		}
		oflags |= O_EXCL;
	}
	oflags |= flags & ZNP_DISCARD_OPEN_RDONLY ? O_RDONLY : O_RDWR;
	fd = open(t->path, oflags);
	if (fd < 0 && (errno == EROFS || errno == EACCES) &&
	    !(flags & ZNP_DISCARD_OPEN_RDONLY)) {
		fd = open(t->path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && !ioctl(fd, BLKROGET, &ro) && ro) {
			close(fd);
			*why = "is read-only";
			return -EROFS;
		}
		if (fd >= 0)
			close(fd);
		errno = EACCES;
		fd = -1;
	}
	if (fd < 0) {
		*why = errno == EBUSY ? "is in use (mounted or opened exclusively)" :
					"cannot be opened";
		return -errno;
	}
	t->fd = fd;
	if (!ioctl(fd, BLKROGET, &ro) && ro && !(flags & ZNP_DISCARD_OPEN_RDONLY)) {
		*why = "is read-only";
		return -EROFS;
	}
	if (ioctl(fd, BLKSSZGET, &ro) || ioctl(fd, BLKGETSIZE64, &size)) {
		*why = "does not answer block size queries";
		return -errno;
	}
	t->lba_size = (uint32_t)ro;
	t->size = size;
	t->granularity = blk_attr_u64(env, st->st_rdev, "queue/discard_granularity", 0);
	if (t->granularity < t->lba_size)
		t->granularity = t->lba_size;
	if (!blk_attr_u64(env, st->st_rdev, "queue/discard_max_bytes", 1)) {
		*why = "does not support discard";
		return -EOPNOTSUPP;
	}
	t->type = ZNP_DT_BLOCK;
	return 0;
}

static int open_nvme_or_zoned(const struct znp_env *env,
			      struct znp_discard_target *t, unsigned int flags,
			      const char **why)
{
	unsigned int dflags = 0;
	int ret;

	if (!(flags & ZNP_DISCARD_OPEN_RDONLY))
		dflags |= ZNP_OPEN_WRITE;
	if (flags & ZNP_DISCARD_OPEN_EXCL)
		dflags |= ZNP_OPEN_EXCL;
	ret = znp_dev_open(env, t->path, dflags, &t->dev, why);
	if (ret)
		return ret;
	ret = znp_dev_probe(t->dev);
	if (ret == -EMEDIUMTYPE && t->dev->kind != ZNP_DEV_ZONED_BLOCK) {
		t->type = ZNP_DT_NVME_CONV;
	} else if (ret) {
		*why = "cannot be probed";
		return ret < 0 ? ret : -EIO;
	} else {
		t->type = ZNP_DT_ZONED;
	}
	t->fd = t->dev->fd;
	t->lba_size = t->dev->geom.lba_size;
	t->size = t->dev->geom.nlbas * t->lba_size;
	t->granularity = t->lba_size;
	return 0;
}

int znp_discard_open(const struct znp_env *env, const char *path,
		     unsigned int flags, struct znp_discard_target **out,
		     const char **why)
{
	struct znp_discard_target *t;
	char zoned[32] = "";
	struct stat st;
	int ret;

	*why = "";
	*out = NULL;
	if (stat(path, &st)) {
		ret = -errno;
		*why = ret == -ENOENT || ret == -ENOTDIR ? "does not exist" :
		       ret == -ELOOP ? "too many levels of symbolic links" : "";
		return ret;
	}
	if (!S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode)) {
		*why = "is not a block device or NVMe namespace";
		return -ENOTBLK;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->fd = -1;
	snprintf(t->path, sizeof(t->path), "%s", path);
	if (S_ISBLK(st.st_mode))
		blk_attr(env, st.st_rdev, "queue/zoned", zoned, sizeof(zoned));
	if (S_ISBLK(st.st_mode) && (!zoned[0] || !strcmp(zoned, "none")))
		ret = open_block(env, t, &st, flags, why);
	else
		ret = open_nvme_or_zoned(env, t, flags, why);
	if (ret) {
		znp_discard_close(t);
		return ret;
	}
	*out = t;
	return 0;
}

void znp_discard_close(struct znp_discard_target *t)
{
	if (!t)
		return;
	if (t->dev)
		znp_dev_close(t->dev);
	else if (t->fd >= 0)
		close(t->fd);
	free(t);
}

int znp_range_list_add(struct znp_range_list *l, uint64_t start, uint64_t len)
{
	struct znp_aio_range *n;
	size_t cap;

	if (l->nr == l->cap) {
		cap = l->cap ? 2 * l->cap : 64;
		n = realloc(l->r, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		l->r = n;
		l->cap = cap;
	}
	l->r[l->nr].start = start;
	l->r[l->nr].len = len;
	l->nr++;
	return 0;
}

void znp_range_list_free(struct znp_range_list *l)
{
	free(l->r);
	memset(l, 0, sizeof(*l));
}

int znp_range_list_read(FILE *f, znp_num_parse_fn parse, struct znp_range_list *l,
			size_t *line, const char **why)
{
	char buf[512], a[128], b[128], extra[2];
	uint64_t off, len;
	char *p;
	int ret;

	*line = 0;
	*why = "";
	while (fgets(buf, sizeof(buf), f)) {
		(*line)++;
		if (!strchr(buf, '\n') && !feof(f)) {
			*why = "line too long";
			return -EINVAL;
		}
		p = strchr(buf, '#');
		if (p)
			*p = '\0';
		for (p = buf; *p; p++)
			if (*p == ',')
				*p = ' ';
		ret = sscanf(buf, "%127s %127s %1s", a, b, extra);
		if (ret == EOF || ret == 0)
			continue;
		if (ret != 2) {
			*why = "expected \"OFFSET LENGTH\"";
			return -EINVAL;
		}
		ret = parse(a, &off, why);
		if (!ret)
			ret = parse(b, &len, why);
		if (!ret)
			ret = znp_range_list_add(l, off, len);
		if (ret)
			return ret;
	}
	return ferror(f) ? -EIO : 0;
}

static int cmp_by_start(const void *a, const void *b, void *arg)
{
	const struct znp_aio_range *r = arg;
	uint64_t x = r[*(const size_t *)a].start, y = r[*(const size_t *)b].start;

	return x < y ? -1 : x > y;
}

int znp_discard_validate(const struct znp_discard_target *t,
			 const struct znp_aio_range *r, size_t nr, size_t *bad,
			 const char **why)
{
	size_t i, *idx;

	for (i = 0; i < nr; i++) {
		*bad = i;
		if (!r[i].len) {
			*why = "length is zero";
			return -EINVAL;
		}
		if (r[i].start % t->lba_size || r[i].len % t->lba_size) {
			*why = "not a multiple of the logical block size";
			return -EINVAL;
		}
		if (r[i].start % t->granularity || r[i].len % t->granularity) {
			*why = "not aligned to the discard granularity";
			return -EINVAL;
		}
		if (r[i].start >= t->size || r[i].len > t->size - r[i].start) {
			*why = "past the end of the device";
			return -EINVAL;
		}
		if (t->type == ZNP_DT_ZONED &&
		    !znp_range_is_whole_zones(&t->dev->geom, r[i].start / t->lba_size,
					r[i].len / t->lba_size)) {
			*why = "covers only part of a zone (discarding part of a "
			       "sequential zone means nothing: give whole zones, "
			       "which are reset)";
			return -EINVAL;
		}
	}
	if (nr < 2)
		return 0;
	idx = malloc(nr * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		idx[i] = i;
	qsort_r(idx, nr, sizeof(*idx), cmp_by_start, (void *)r);
	for (i = 1; i < nr; i++) {
		const struct znp_aio_range *p = &r[idx[i - 1]];

		if (r[idx[i]].start < p->start + p->len) {
			*bad = idx[i] > idx[i - 1] ? idx[i] : idx[i - 1];
			*why = "overlaps another range";
			free(idx);
			return -EINVAL;
		}
	}
	free(idx);
	return 0;
}

static int plan_add(struct znp_aio_job *job, size_t *cap, uint64_t s, uint64_t l)
{
	struct znp_aio_range *n = (struct znp_aio_range *)job->ranges;

	if (job->nr == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		n = realloc(n, *cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		job->ranges = n;
	}
	n[job->nr].start = s;
	n[job->nr].len = l;
	job->nr++;
	return 0;
}

int znp_discard_plan(const struct znp_discard_target *t,
		     const struct znp_aio_range *r, size_t nr,
		     struct znp_aio_job *job)
{
	uint64_t slba, end, n;
	size_t i, cap = 0;
	int ret = 0;

	memset(job, 0, sizeof(*job));
	job->fd = t->fd;
	job->lba_size = t->lba_size;
	job->nsid = t->dev ? t->dev->ns.nsid : 0;
	switch (t->type) {
	case ZNP_DT_BLOCK:
		job->kind = ZNP_AIO_BLK_DISCARD;
		break;
	case ZNP_DT_NVME_CONV:
		job->kind = ZNP_AIO_NVME_DSM;
		break;
	case ZNP_DT_ZONED:
		job->kind = ZNP_AIO_NVME_ZONE_MGMT;
		job->zone_action = ZNP_ZA_RESET;
		break;
	}
	for (i = 0; i < nr && !ret; i++) {
		if (t->type == ZNP_DT_BLOCK) {
			ret = plan_add(job, &cap, r[i].start, r[i].len);
			continue;
		}
		slba = r[i].start / t->lba_size;
		end = slba + r[i].len / t->lba_size;
		if (t->type == ZNP_DT_ZONED) {
			/* the zone engine splits into zones or uses a range ioctl */
			ret = plan_add(job, &cap, slba, end - slba);
			continue;
		}
		while (slba < end && !ret) {
			n = end - slba;
			if (n > ZNP_NVME_DSM_MAX_NLB)
				n = ZNP_NVME_DSM_MAX_NLB;
			ret = plan_add(job, &cap, slba, n);
			slba += n;
		}
	}
	if (ret)
		znp_discard_plan_free(job);
	return ret;
}

void znp_discard_plan_free(struct znp_aio_job *job)
{
	free((void *)job->ranges);
	job->ranges = NULL;
	job->nr = 0;
}
