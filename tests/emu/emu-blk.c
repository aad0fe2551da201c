// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block device ioctls of an emulated zoned block device (kind=nvme or
 * kind=blk): sizes, zone report and zone management in 512-byte sectors,
 * with the kernel's argument checks and its NVMe status -> errno mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/blkzoned.h>
#include <linux/fs.h>

#include "emu-priv.h"

static int st_to_errno(uint16_t st)
{
	switch (st & 0x7ff) {
	case EMU_SC_ZONE_TOO_MANY_OPEN & 0x7ff:
		return ETOOMANYREFS;	/* BLK_STS_ZONE_OPEN_RESOURCE */
	case EMU_SC_ZONE_TOO_MANY_ACTIVE & 0x7ff:
		return EOVERFLOW;	/* BLK_STS_ZONE_ACTIVE_RESOURCE */
	case EMU_SC_LBA_RANGE & 0x7ff:
		return ENOSPC;
	case EMU_SC_INVALID_OPCODE & 0x7ff:
	case EMU_SC_INVALID_FIELD & 0x7ff:
		return EOPNOTSUPP;
	default:
		return EIO;
	}
}

static int fail(int e)
{
	errno = e;
	return -1;
}

static uint64_t zone_sectors(const struct emu_dev *d)
{
	return d->zsze * (d->lba_size / 512);
}

static int blk_report(struct emu_dev *d, struct blk_zone_report *rep, struct znpemu_cmd *c)
{
	uint64_t spl = d->lba_size / 512, zs = zone_sectors(d), idx, n = 0;

	for (idx = rep->sector / zs; idx < d->nzones && n < rep->nr_zones; idx++, n++) {
		struct blk_zone *z = &rep->zones[n];
		uint64_t wp;
		uint8_t cond;

		emu_zone_get(d, idx, &cond, &wp);
		memset(z, 0, sizeof(*z));
		z->start = emu_zone_start(d, idx) * spl;
		z->len = emu_zone_len(d, idx) * spl;
		z->capacity = emu_zone_cap(d, idx) * spl;
		z->type = BLK_ZONE_TYPE_SEQWRITE_REQ;
		z->cond = cond;
		/* nvme_zone_parse_entry(): full zones report start + len */
		z->wp = cond == 0xe ? z->start + z->len :
			cond == 0xd || cond == 0xf ? ~0ULL : z->start + wp * spl;
	}
	rep->nr_zones = (uint32_t)n;
	rep->flags = BLK_ZONE_REP_CAPACITY;
	return 0;
}

static int blk_mgmt(struct emu_dev *d, int op, const struct blk_zone_range *zr,
		    struct znpemu_cmd *c)
{
	static const int action[] = {
		[ZNPEMU_BLK_RESET] = 4, [ZNPEMU_BLK_OPEN] = 3,
		[ZNPEMU_BLK_CLOSE] = 1, [ZNPEMU_BLK_FINISH] = 2,
	};
	uint64_t zs = zone_sectors(d), end = zr->sector + zr->nr_sectors;
	uint16_t st;

	if (op == ZNPEMU_BLK_RESET && zr->sector == 0 && end == d->nlbas * (d->lba_size / 512)) {
		st = emu_zone_action_all(d, 4);
		return st ? -st_to_errno(st) : 0;
	}
	for (uint64_t idx = zr->sector / zs; idx * zs < end; idx++) {
		st = emu_zone_action(d, idx, action[op]);
		if (st)
			return -st_to_errno(st);
	}
	return 0;
}

static int blk_args(struct emu_dev *d, int op, const void *arg, struct znpemu_cmd *c)
{
	uint64_t zs = zone_sectors(d), cap = d->nlbas * (d->lba_size / 512);

	if (op == ZNPEMU_BLK_REPORT) {
		const struct blk_zone_report *rep = arg;

		c->blk_sector = rep->sector;
		c->blk_nr = rep->nr_zones;
		return rep->nr_zones ? 0 : -EINVAL;
	}
	if (op == ZNPEMU_BLK_DISCARD) {
		const uint64_t *range = arg;

		c->blk_sector = range[0] / 512;
		c->blk_nr = range[1] / 512;
		if (range[0] % 512 || range[1] % 512 || range[0] / 512 > cap ||
		    range[1] / 512 > cap - range[0] / 512)
			return -EINVAL;
		return 0;
	} else {
		const struct blk_zone_range *zr = arg;
		uint64_t end = zr->sector + zr->nr_sectors;

		c->blk_sector = zr->sector;
		c->blk_nr = zr->nr_sectors;
		if (end <= zr->sector || end > cap)
			return -EINVAL;
		if (zr->sector % zs || (zr->nr_sectors % zs && end != cap))
			return -EINVAL;
		return 0;
	}
}

static int blk_cmd(struct emu_dev *d, int fd_flags, int op, void *arg)
{
	struct znpemu_cmd c = { .cls = ZNPEMU_CLS_BLK, .opcode = (uint8_t)op };
	const struct emu_fault *f;
	int ret;

	snprintf(c.dev, sizeof(c.dev), "%s", d->base);
	if (op != ZNPEMU_BLK_DISCARD && d->csi != 2)
		return fail(ENOTTY);
	if (!arg)
		return fail(EFAULT);
	if (op != ZNPEMU_BLK_REPORT && (fd_flags & O_ACCMODE) == O_RDONLY)
		return fail(EBADF);
	/* the block layer's argument checks, before anything reaches the device */
	ret = blk_args(d, op, arg, &c);
	if (ret)
		return fail(-ret);
	f = emu_cmd_begin(d, ZNPEMU_CLS_BLK, op);
	if (f && f->kind == EMU_FAULT_ERRNO)
		ret = -(int)f->value;
	else if (f && f->kind == EMU_FAULT_STATUS)
		ret = -st_to_errno((uint16_t)f->value);
	else if (op == ZNPEMU_BLK_REPORT)
		ret = blk_report(d, arg, &c);
	else if (op == ZNPEMU_BLK_DISCARD)
		ret = 0;	/* accepted; data is not kept */
	else
		ret = blk_mgmt(d, op, arg, &c);
	c.status = ret;
	emu_cmd_record(d, &c);
	return ret ? fail(-ret) : 0;
}

int emu_blk_ioctl(struct emu_dev *d, int fd_flags, unsigned long req, void *arg, bool *handled)
{
	bool zoned = d->csi == 2;

	*handled = true;
	switch (req) {
	case BLKGETSIZE64:
		*(uint64_t *)arg = d->nlbas * d->lba_size;
		return 0;
	case BLKGETSIZE:
		*(unsigned long *)arg = d->nlbas * (d->lba_size / 512);
		return 0;
	case BLKSSZGET:
	case BLKBSZGET:
		*(int *)arg = (int)d->lba_size;
		return 0;
	case BLKPBSZGET:
	case BLKIOMIN:
		*(unsigned int *)arg = d->lba_size;
		return 0;
	case BLKROGET:
		*(int *)arg = 0;
		return 0;
	case BLKGETZONESZ:
		*(uint32_t *)arg = zoned ? (uint32_t)zone_sectors(d) : 0;
		return 0;
	case BLKGETNRZONES:
		*(uint32_t *)arg = zoned ? (uint32_t)d->nzones : 0;
		return 0;
	case BLKREPORTZONE:
		return blk_cmd(d, fd_flags, ZNPEMU_BLK_REPORT, arg);
	case BLKRESETZONE:
		return blk_cmd(d, fd_flags, ZNPEMU_BLK_RESET, arg);
	case BLKOPENZONE:
		return blk_cmd(d, fd_flags, ZNPEMU_BLK_OPEN, arg);
	case BLKCLOSEZONE:
		return blk_cmd(d, fd_flags, ZNPEMU_BLK_CLOSE, arg);
	case BLKFINISHZONE:
		return blk_cmd(d, fd_flags, ZNPEMU_BLK_FINISH, arg);
	case BLKDISCARD:
		return blk_cmd(d, fd_flags, ZNPEMU_BLK_DISCARD, arg);
	}
	*handled = false;
	return 0;
}
