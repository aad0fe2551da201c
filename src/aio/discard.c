// SPDX-License-Identifier: GPL-2.0-or-later
/* Discard targets, range lists, validation and planning. See discard.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/fs.h>

#include "discard.h"
#include "zone.h"	/* znp_dev_probe() */
#include "core.h"

const char *znp_discard_type_name(enum znp_discard_type t)
{
	switch (t) {
	case ZNP_DT_BLOCK:	return "block";
	case ZNP_DT_NVME_CONV:	return "nvme-conventional";
	case ZNP_DT_ZONED:	return "zoned";
	}
	return "unknown";
}

/* A block device that is not zoned: sizes and discard limits. */
static int setup_block(const struct znp_env *env, struct znp_discard_target *t,
		       const char **why)
{
	unsigned int maj, min;
	uint64_t size, v;
	struct stat st;
	int lbs = 0, ret;

	if (ioctl(t->fd, BLKSSZGET, &lbs) || ioctl(t->fd, BLKGETSIZE64, &size)) {
		*why = "does not answer block size queries";
		return -errno;
	}
	if (fstat(t->fd, &st))
		return -errno;
	maj = major(st.st_rdev);
	min = minor(st.st_rdev);
	t->lba_size = (uint32_t)lbs;
	t->size = size;
	ret = znp_blk_queue_u64(env, maj, min, "discard_granularity", &v);
	t->granularity = ret ? 0 : v;
	if (t->granularity < t->lba_size)
		t->granularity = t->lba_size;
	ret = znp_blk_queue_u64(env, maj, min, "discard_max_bytes", &v);
	if (!ret && !v) {
		*why = "does not support discard";
		return -EOPNOTSUPP;
	}
	t->type = ZNP_DT_BLOCK;
	return 0;
}

/* An NVMe namespace or zoned block device: its geometry. */
static int setup_probed(struct znp_discard_target *t, const char **why)
{
	int ret;

	ret = znp_dev_probe(t->dev);
	if (ret && (ret != -EMEDIUMTYPE || t->dev->kind == ZNP_DEV_ZONED_BLOCK)) {
		*why = "cannot be probed";
		return ret < 0 ? ret : -EIO;
	}
	t->type = ret ? ZNP_DT_NVME_CONV : ZNP_DT_ZONED;
	t->lba_size = t->dev->geom.lba_size;
	t->size = t->dev->geom.nlbas * t->lba_size;
	t->granularity = t->lba_size;
	return 0;
}

int znp_discard_open(const struct znp_env *env, const char *path,
		     unsigned int flags, struct znp_discard_target **out,
		     const char **why)
{
	unsigned int dflags = ZNP_OPEN_ANY_BLOCK;
	struct znp_discard_target *t;
	int ret;

	*why = "";
	*out = NULL;
	if (!(flags & ZNP_DISCARD_OPEN_RDONLY))
		dflags |= ZNP_OPEN_WRITE;
	if (flags & ZNP_DISCARD_OPEN_EXCL)
		dflags |= ZNP_OPEN_EXCL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	snprintf(t->path, sizeof(t->path), "%s", path);
	ret = znp_dev_open(env, path, dflags, &t->dev, why);
	/* discard's own wording (blkdiscard's targets include any block device) */
	if (ret == -ENOENT || ret == -ENOTDIR)
		*why = "does not exist";
	else if (ret == -ENOTBLK)
		*why = "is not a block device or NVMe namespace";
	if (!ret) {
		t->fd = t->dev->fd;
		ret = t->dev->kind == ZNP_DEV_BLOCK ? setup_block(env, t, why) :
						       setup_probed(t, why);
	}
	if (ret) {
		if (!*why)
			*why = "";
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
	znp_dev_close(t->dev);
	free(t);
}

int znp_range_list_add(struct znp_range_list *l, uint64_t start, uint64_t len)
{
	struct znp_aio_range *n = znp_grow(l->r, &l->cap, l->nr, sizeof(*n), 64);

	if (!n)
		return -ENOMEM;
	l->r = n;
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
	struct znp_aio_range *n = znp_grow((void *)job->ranges, cap, job->nr, sizeof(*n), 64);

	if (!n)
		return -ENOMEM;
	job->ranges = n;
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
