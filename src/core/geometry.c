// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Zone geometry. This file is the only one allowed to shift or mask with a
 * zone size: everything else calls these helpers, which divide and take a
 * shift/mask fast path only when the zone size is a power of two.
 */
#include <errno.h>

#include "geometry.h"

/**
 * znp_is_po2() - is @v a power of two?
 * @v: value
 *
 * Return: true for 1, 2, 4, ...; false for 0.
 */
bool znp_is_po2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/**
 * znp_po2_roundup() - smallest power of two >= @v
 * @v: value
 *
 * Return: the power of two, or 0 when @v is 0 or above 2^63.
 */
uint64_t znp_po2_roundup(uint64_t v)
{
	if (!v || v > (UINT64_C(1) << 63))
		return 0;
	if (v == 1)
		return 1;
	return UINT64_C(1) << (64 - __builtin_clzll(v - 1));
}

/**
 * znp_nr_zones() - zones needed to cover @nlbas
 * @nlbas: device size in LBAs
 * @zone_size: zone size in LBAs
 *
 * Return: ceil(@nlbas / @zone_size), a smaller last zone included; 0 when
 * @zone_size is 0.
 */
uint64_t znp_nr_zones(uint64_t nlbas, uint64_t zone_size)
{
	if (!zone_size)
		return 0;
	/* nlbas / zs + !!(nlbas % zs): no "nlbas + zs - 1" overflow near 2^64 */
	return nlbas / zone_size + (nlbas % zone_size != 0);
}

/**
 * znp_geom_init() - validate and finish a geometry
 * @g: geometry with lba_size, nlbas, zone_size (and optional fields) filled
 *
 * Also rejects a zone capacity larger than the zone size.
 * Return: 0 or -EINVAL.
 */
int znp_geom_init(struct znp_geom *g)
{
	if (!g || !g->lba_size || !znp_is_po2(g->lba_size) || !g->zone_size ||
	    g->zone_size > g->nlbas || g->zone_cap > g->zone_size)
		return -EINVAL;
	g->zone_size_is_po2 = znp_is_po2(g->zone_size);
	g->zone_shift = g->zone_size_is_po2 ? (unsigned int)__builtin_ctzll(g->zone_size) : 0;
	g->nr_zones = znp_nr_zones(g->nlbas, g->zone_size);
	return 0;
}

/**
 * znp_zone_no() - zone number of an LBA (kernel: bdev_zone_no)
 * @g: initialised geometry
 * @lba: LBA
 *
 * Return: @lba / zone size.
 */
uint64_t znp_zone_no(const struct znp_geom *g, uint64_t lba)
{
	if (g->zone_size_is_po2)
		return lba >> g->zone_shift;
	return lba / g->zone_size;
}

/**
 * znp_zone_start() - first LBA of a zone
 * @g: initialised geometry
 * @zone_no: zone number
 *
 * Return: @zone_no * zone size, or UINT64_MAX if not representable.
 */
uint64_t znp_zone_start(const struct znp_geom *g, uint64_t zone_no)
{
	uint64_t start;

	if (g->zone_size_is_po2) {
		if (g->zone_shift && zone_no >> (64 - g->zone_shift))
			return UINT64_MAX;
		return zone_no << g->zone_shift;
	}
	if (__builtin_mul_overflow(zone_no, g->zone_size, &start))
		return UINT64_MAX;
	return start;
}

/**
 * znp_offset_from_zone_start() - offset of an LBA in its zone
 * (kernel: bdev_offset_from_zone_start)
 * @g: initialised geometry
 * @lba: LBA
 *
 * Return: @lba modulo the zone size.
 */
uint64_t znp_offset_from_zone_start(const struct znp_geom *g, uint64_t lba)
{
	if (g->zone_size_is_po2)
		return lba & (g->zone_size - 1);
	return lba % g->zone_size;
}

/**
 * znp_is_zone_start() - is @lba the first LBA of a zone? (kernel: bdev_is_zone_start)
 * @g: initialised geometry
 * @lba: LBA
 *
 * Return: true when @lba is a multiple of the zone size.
 */
bool znp_is_zone_start(const struct znp_geom *g, uint64_t lba)
{
	return znp_offset_from_zone_start(g, lba) == 0;
}

/**
 * znp_zone_len() - length of a zone
 * @g: initialised geometry
 * @zone_no: zone number
 *
 * Return: the zone size, less for a smaller last zone, 0 past the last zone.
 */
uint64_t znp_zone_len(const struct znp_geom *g, uint64_t zone_no)
{
	uint64_t start;

	if (zone_no >= g->nr_zones)
		return 0;
	start = znp_zone_start(g, zone_no);
	if (g->nlbas - start < g->zone_size)
		return g->nlbas - start;
	return g->zone_size;
}

/**
 * znp_next_zone_start() - start of the zone after the one holding @lba
 * @g: initialised geometry
 * @lba: LBA
 *
 * Additive, so it holds for any zone size (the report iterator steps with it).
 * Return: the LBA, or UINT64_MAX on overflow.
 */
uint64_t znp_next_zone_start(const struct znp_geom *g, uint64_t lba)
{
	uint64_t start = znp_zone_start(g, znp_zone_no(g, lba));
	uint64_t next;

	if (start == UINT64_MAX || __builtin_add_overflow(start, g->zone_size, &next))
		return UINT64_MAX;
	return next;
}

/**
 * znp_has_small_last_zone() - is the last zone shorter than the others?
 * @g: initialised geometry
 *
 * Return: true when nlbas is not a multiple of the zone size.
 */
bool znp_has_small_last_zone(const struct znp_geom *g)
{
	return g->nr_zones && znp_zone_len(g, g->nr_zones - 1) < g->zone_size;
}

/**
 * znp_po2_zone_size() - zone size rounded up to a power of two
 * @g: initialised geometry
 *
 * Return: the po2 zone size of a dm-po2zone mapping, 0 when it would be 2^64.
 */
uint64_t znp_po2_zone_size(const struct znp_geom *g)
{
	return znp_po2_roundup(g->zone_size);
}

/**
 * znp_po2_gap() - padding per zone in the po2 space
 * @g: initialised geometry
 *
 * Return: po2 zone size - zone size (0 for po2 zones), UINT64_MAX when the
 * po2 size overflows.
 */
uint64_t znp_po2_gap(const struct znp_geom *g)
{
	uint64_t po2 = znp_po2_zone_size(g);

	if (!po2)
		return UINT64_MAX;
	return po2 - g->zone_size;
}

/**
 * znp_po2_dev_lbas() - size of the po2-mapped device
 * @g: initialised geometry
 *
 * Return: nr_zones * po2 zone size (a small last zone is padded too), or 0
 * when that overflows.
 */
uint64_t znp_po2_dev_lbas(const struct znp_geom *g)
{
	uint64_t po2 = znp_po2_zone_size(g);
	uint64_t n;

	if (!po2 || __builtin_mul_overflow(g->nr_zones, po2, &n))
		return 0;
	return n;
}

/**
 * znp_po2_to_dev() - translate an LBA of the po2 space to the device
 * @g: initialised geometry
 * @po2_lba: LBA in the po2 space (zone n starts at n * po2 zone size)
 * @dev_lba: out, the device LBA
 *
 * Return: true with *@dev_lba set; false when @po2_lba lies in a padding
 * area or past the last zone.
 */
bool znp_po2_to_dev(const struct znp_geom *g, uint64_t po2_lba, uint64_t *dev_lba)
{
	uint64_t po2 = znp_po2_zone_size(g);
	uint64_t zno = 0, off = po2_lba;

	/* po2 == 0: the rounded size is 2^64, so everything is in zone 0 */
	if (po2) {
		unsigned int shift = (unsigned int)__builtin_ctzll(po2);

		zno = po2_lba >> shift;
		off = po2_lba & (po2 - 1);
	}
	if (zno >= g->nr_zones || off >= znp_zone_len(g, zno))
		return false;
	*dev_lba = znp_zone_start(g, zno) + off;
	return true;
}

/**
 * znp_dev_to_po2() - translate a device LBA to the po2 space
 * @g: initialised geometry
 * @dev_lba: device LBA
 *
 * Return: the po2-space LBA, or UINT64_MAX when it is not representable.
 */
uint64_t znp_dev_to_po2(const struct znp_geom *g, uint64_t dev_lba)
{
	uint64_t po2 = znp_po2_zone_size(g);
	uint64_t zno = znp_zone_no(g, dev_lba);
	uint64_t off = znp_offset_from_zone_start(g, dev_lba);
	uint64_t r;

	if (!po2)
		return zno ? UINT64_MAX : off;
	if (__builtin_mul_overflow(zno, po2, &r) || __builtin_add_overflow(r, off, &r))
		return UINT64_MAX;
	return r;
}

static unsigned int po2_shift(const struct znp_geom *g)
{
	uint64_t po2 = znp_po2_zone_size(g);

	/* po2 == 0: the rounded size is 2^64 */
	return po2 ? (unsigned int)__builtin_ctzll(po2) : 64;
}

/**
 * znp_po2_zone_no() - zone number of an LBA of the po2 space
 * @g: initialised geometry
 * @po2_lba: LBA in the po2 space
 *
 * Return: @po2_lba / po2 zone size (a shift).
 */
uint64_t znp_po2_zone_no(const struct znp_geom *g, uint64_t po2_lba)
{
	unsigned int shift = po2_shift(g);

	return shift >= 64 ? 0 : po2_lba >> shift;
}

/**
 * znp_po2_offset_in_zone() - offset of a po2-space LBA in its po2 zone
 * @g: initialised geometry
 * @po2_lba: LBA in the po2 space
 *
 * Return: @po2_lba modulo the po2 zone size (a mask).
 */
uint64_t znp_po2_offset_in_zone(const struct znp_geom *g, uint64_t po2_lba)
{
	unsigned int shift = po2_shift(g);

	return shift >= 64 ? po2_lba : po2_lba & ((UINT64_C(1) << shift) - 1);
}

/**
 * znp_po2_zone_start() - first po2-space LBA of a zone
 * @g: initialised geometry
 * @zone_no: zone number
 *
 * Return: @zone_no * po2 zone size, UINT64_MAX when not representable.
 */
uint64_t znp_po2_zone_start(const struct znp_geom *g, uint64_t zone_no)
{
	unsigned int shift = po2_shift(g);

	if (shift >= 64)
		return zone_no ? UINT64_MAX : 0;
	if (shift && zone_no >> (64 - shift))
		return UINT64_MAX;
	return zone_no << shift;
}

/**
 * znp_po2_data_left() - zone data left from a po2-space LBA
 * @g: initialised geometry
 * @po2_lba: LBA in the po2 space
 *
 * The data of po2 zone n is the device zone n: [0, zone length) of the po2
 * zone; the rest is padding.
 * Return: LBAs from @po2_lba to the end of its zone's data; 0 when
 * @po2_lba is in a padding area or past the last zone.
 */
uint64_t znp_po2_data_left(const struct znp_geom *g, uint64_t po2_lba)
{
	uint64_t zno = znp_po2_zone_no(g, po2_lba);
	uint64_t off = znp_po2_offset_in_zone(g, po2_lba);
	uint64_t len = znp_zone_len(g, zno);

	return off < len ? len - off : 0;
}

/**
 * znp_descs_per_xfer() - zone descriptors that fit in a Report Zones transfer
 * @g: geometry (zdes_bytes selects the extended layout)
 * @bytes: transfer size
 *
 * Return: (@bytes - 64-byte header) / (64 + zdes_bytes), 0 when too small.
 */
uint64_t znp_descs_per_xfer(const struct znp_geom *g, uint64_t bytes)
{
	uint64_t stride = ZNP_ZDESC_SIZE + g->zdes_bytes;

	if (bytes <= ZNP_ZREPORT_HDR_SIZE)
		return 0;
	return (bytes - ZNP_ZREPORT_HDR_SIZE) / stride;
}
