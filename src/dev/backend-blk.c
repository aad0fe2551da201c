// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Zoned block device backend (dm, null_blk, po2 NVMe with a visible block
 * node is driven through NVMe instead): BLKREPORTZONE and the zone
 * management ioctls. Reports are converted to the NVMe Report Zones
 * layout so the iterator validates them with the same parser.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/blkzoned.h>
#include <linux/fs.h>

#include "backend.h"

#define BLK_CHUNK	256	/* struct blk_zone per BLKREPORTZONE */

static int blk_probe(struct znp_dev *dev)
{
	const struct znp_queue_limits *lim = znp_dev_limits(dev);
	struct znp_geom *g = &dev->geom;
	__u32 zsz = 0, nrz = 0;
	uint64_t bytes = 0;
	int lbs = 0;

	if (ioctl(dev->fd, BLKSSZGET, &lbs) || ioctl(dev->fd, BLKGETSIZE64, &bytes))
		return -errno;
	if (lbs < 512 || !znp_is_po2((uint64_t)lbs))
		return -EPROTO;
	g->lba_size = (uint32_t)lbs;
	g->nlbas = bytes / (uint64_t)lbs;
	if (ioctl(dev->fd, BLKGETZONESZ, &zsz))
		return -errno;
	if (!zsz)
		return -EMEDIUMTYPE;
	if (ioctl(dev->fd, BLKGETNRZONES, &nrz))
		return -errno;
	g->zone_size = (uint64_t)zsz * 512 / (uint64_t)lbs;
	if (lim) {
		g->mdts_bytes = lim->max_hw_bytes;
		g->max_open = lim->max_open;
		g->max_active = lim->max_active;
	}
	if (znp_geom_init(g) || g->nr_zones != nrz)
		return -EPROTO;
	dev->is_zoned = true;
	return 0;
}

static uint8_t filter_cond(enum znp_state_filter f)
{
	switch (f) {
	case ZNP_RF_EMPTY:
		return ZNP_ZC_EMPTY;
	case ZNP_RF_IMP_OPEN:
		return ZNP_ZC_IMP_OPEN;
	case ZNP_RF_EXP_OPEN:
		return ZNP_ZC_EXP_OPEN;
	case ZNP_RF_CLOSED:
		return ZNP_ZC_CLOSED;
	case ZNP_RF_FULL:
		return ZNP_ZC_FULL;
	case ZNP_RF_READONLY:
		return ZNP_ZC_READONLY;
	case ZNP_RF_OFFLINE:
		return ZNP_ZC_OFFLINE;
	case ZNP_RF_ALL:
		break;
	}
	return 0xff;
}

static void put_le64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* struct blk_zone (512-byte sectors) to an NVMe zone descriptor (LBAs). */
static void put_desc(unsigned char *d, const struct blk_zone *z, __u32 flags, uint64_t spl)
{
	uint64_t cap = (flags & BLK_ZONE_REP_CAPACITY) ? z->capacity : z->len;

	memset(d, 0, ZNP_ZDESC_SIZE);
	d[0] = z->type;
	d[1] = (unsigned char)(z->cond << 4);
	put_le64(d + 8, cap / spl);
	put_le64(d + 16, z->start / spl);
	put_le64(d + 24, z->wp / spl);
}

static int blk_report(struct znp_dev *dev, uint64_t slba, enum znp_state_filter f,
		      bool partial, void *buf, uint32_t len, uint64_t *ncmds)
{
	const struct znp_geom *g = &dev->geom;
	uint64_t spl = g->lba_size / 512, fit, count = 0, total = 0;
	uint64_t sector, end = g->nlbas * spl;
	unsigned char *out = buf;
	struct blk_zone_report *rep;
	uint8_t want = filter_cond(f);
	bool count_all = !partial && f != ZNP_RF_ALL;
	unsigned int i;
	int ret = 0;

	if (len < ZNP_ZREPORT_HDR_SIZE || slba >= g->nlbas)
		return -EINVAL;
	fit = (len - ZNP_ZREPORT_HDR_SIZE) / ZNP_ZDESC_SIZE;
	rep = calloc(1, sizeof(*rep) + BLK_CHUNK * sizeof(struct blk_zone));
	if (!rep)
		return -ENOMEM;
	memset(out, 0, ZNP_ZREPORT_HDR_SIZE);

	sector = znp_zone_start(g, znp_zone_no(g, slba)) * spl;
	while (sector < end && (count < fit || count_all)) {
		rep->sector = sector;
		rep->nr_zones = BLK_CHUNK;
		(*ncmds)++;
		if (ioctl(dev->fd, BLKREPORTZONE, rep)) {
			ret = -errno;
			goto out_free;
		}
		if (!rep->nr_zones)
			break;
		for (i = 0; i < rep->nr_zones; i++) {
			const struct blk_zone *z = &rep->zones[i];

			if (f != ZNP_RF_ALL && z->cond != want)
				continue;
			total++;
			if (count < fit) {
				put_desc(out + ZNP_ZREPORT_HDR_SIZE + count * ZNP_ZDESC_SIZE, z,
					 rep->flags, spl);
				count++;
			}
		}
		sector = rep->zones[rep->nr_zones - 1].start + rep->zones[rep->nr_zones - 1].len;
	}

	if (partial)
		put_le64(out, count);
	else if (f == ZNP_RF_ALL)
		put_le64(out, g->nr_zones - znp_zone_no(g, slba));
	else
		put_le64(out, total);
out_free:
	free(rep);
	return ret;
}

unsigned long znp_blk_zone_op(enum znp_zone_action a)
{
	switch (a) {
	case ZNP_ZA_RESET:
		return BLKRESETZONE;
	case ZNP_ZA_OPEN:
		return BLKOPENZONE;
	case ZNP_ZA_CLOSE:
		return BLKCLOSEZONE;
	case ZNP_ZA_FINISH:
		return BLKFINISHZONE;
	case ZNP_ZA_OFFLINE:
		break;
	}
	return 0;
}

/* Zones NVMe's select-all acts on, per action (ZNS spec, Zone Send Action). */
static bool select_all_applies(enum znp_zone_action a, uint8_t cond)
{
	bool open = cond == ZNP_ZC_IMP_OPEN || cond == ZNP_ZC_EXP_OPEN;

	switch (a) {
	case ZNP_ZA_CLOSE:
		return open;
	case ZNP_ZA_FINISH:
		return open || cond == ZNP_ZC_CLOSED;
	case ZNP_ZA_OPEN:
		return cond == ZNP_ZC_CLOSED;
	default:
		return false;
	}
}

/*
 * Select-all other than reset: the kernel has no such command, and a
 * range ioctl over the device would also hit zones select-all skips
 * (finishing empty zones, opening full ones). Walk the zones instead.
 */
static int blk_mgmt_all(struct znp_dev *dev, enum znp_zone_action a, unsigned long op,
			const atomic_int *stop)
{
	uint64_t sector = 0, end = dev->geom.nlbas * (dev->geom.lba_size / 512);
	struct blk_zone_report *rep;
	struct blk_zone_range r;
	unsigned int i;
	int ret = 0;

	rep = calloc(1, sizeof(*rep) + BLK_CHUNK * sizeof(struct blk_zone));
	if (!rep)
		return -ENOMEM;
	while (!ret && sector < end) {
		rep->sector = sector;
		rep->nr_zones = BLK_CHUNK;
		if (ioctl(dev->fd, BLKREPORTZONE, rep)) {
			ret = -errno;
			break;
		}
		if (!rep->nr_zones)
			break;
		for (i = 0; i < rep->nr_zones && !ret; i++) {
			if (!select_all_applies(a, rep->zones[i].cond))
				continue;
			if (stop && atomic_load(stop)) {
				ret = -EINTR;
				break;
			}
			r.sector = rep->zones[i].start;
			r.nr_sectors = rep->zones[i].len;
			if (ioctl(dev->fd, op, &r))
				ret = -errno;
		}
		sector = rep->zones[rep->nr_zones - 1].start + rep->zones[rep->nr_zones - 1].len;
	}
	free(rep);
	return ret;
}

/*
 * Reset-all is one range over the whole device, which the kernel turns
 * into a single reset-all. There is no offline ioctl.
 */
static int blk_mgmt(struct znp_dev *dev, enum znp_zone_action a, uint64_t slba, bool all,
		    const atomic_int *stop)
{
	const struct znp_geom *g = &dev->geom;
	uint64_t spl = g->lba_size / 512;
	unsigned long op = znp_blk_zone_op(a);
	struct blk_zone_range r;

	if (!op)
		return -EOPNOTSUPP;
	if (all && a != ZNP_ZA_RESET)
		return blk_mgmt_all(dev, a, op, stop);
	if (all) {
		r.sector = 0;
		r.nr_sectors = g->nlbas * spl;
	} else {
		r.sector = slba * spl;
		r.nr_sectors = znp_zone_len(g, znp_zone_no(g, slba)) * spl;
	}
	if (ioctl(dev->fd, op, &r))
		return -errno;
	return 0;
}

const struct znp_backend znp_backend_blk = {
	.name = "blk",
	.probe = blk_probe,
	.report = blk_report,
	.mgmt = blk_mgmt,
};
