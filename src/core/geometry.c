// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Zone geometry. This file is the only one allowed to shift or mask with a
 * zone size: everything else calls these helpers, which divide and take a
 * shift/mask fast path only when the zone size is a power of two.
 */
#include <errno.h>

#include "geometry.h"

bool znp_is_po2(uint64_t v)
{
	return v && !(v & (v - 1));
}

uint64_t znp_po2_roundup(uint64_t v)
{
	if (!v || v > (UINT64_C(1) << 63))
		return 0;
	if (v == 1)
		return 1;
	return UINT64_C(1) << (64 - __builtin_clzll(v - 1));
}

uint64_t znp_nr_zones(uint64_t nlbas, uint64_t zone_size)
{
	if (!zone_size)
		return 0;
	/* nlbas / zs + !!(nlbas % zs): no "nlbas + zs - 1" overflow near 2^64 */
	return nlbas / zone_size + (nlbas % zone_size != 0);
}

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

uint64_t znp_zone_no(const struct znp_geom *g, uint64_t lba)
{
	if (g->zone_size_is_po2)
		return lba >> g->zone_shift;
	return lba / g->zone_size;
}

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

uint64_t znp_offset_from_zone_start(const struct znp_geom *g, uint64_t lba)
{
	if (g->zone_size_is_po2)
		return lba & (g->zone_size - 1);
	return lba % g->zone_size;
}

bool znp_is_zone_start(const struct znp_geom *g, uint64_t lba)
{
	return znp_offset_from_zone_start(g, lba) == 0;
}

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

uint64_t znp_next_zone_start(const struct znp_geom *g, uint64_t lba)
{
	uint64_t start = znp_zone_start(g, znp_zone_no(g, lba));
	uint64_t next;

	if (start == UINT64_MAX || __builtin_add_overflow(start, g->zone_size, &next))
		return UINT64_MAX;
	return next;
}

uint64_t znp_zones_in_range(const struct znp_geom *g, uint64_t slba, uint64_t nlb)
{
	return znp_zone_no(g, slba + nlb - 1) - znp_zone_no(g, slba) + 1;
}

bool znp_range_is_whole_zones(const struct znp_geom *g, uint64_t slba, uint64_t nlb)
{
	uint64_t last = slba + nlb - 1;
	uint64_t zl = znp_zone_no(g, last);

	return znp_is_zone_start(g, slba) &&
	       last == znp_zone_start(g, zl) + znp_zone_len(g, zl) - 1;
}

bool znp_has_small_last_zone(const struct znp_geom *g)
{
	return g->nr_zones && znp_zone_len(g, g->nr_zones - 1) < g->zone_size;
}

uint64_t znp_po2_zone_size(const struct znp_geom *g)
{
	return znp_po2_roundup(g->zone_size);
}

uint64_t znp_po2_gap(const struct znp_geom *g)
{
	uint64_t po2 = znp_po2_zone_size(g);

	if (!po2)
		return UINT64_MAX;
	return po2 - g->zone_size;
}

uint64_t znp_po2_dev_lbas(const struct znp_geom *g)
{
	uint64_t po2 = znp_po2_zone_size(g);
	uint64_t n;

	if (!po2 || __builtin_mul_overflow(g->nr_zones, po2, &n))
		return 0;
	return n;
}

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

uint64_t znp_po2_zone_no(const struct znp_geom *g, uint64_t po2_lba)
{
	unsigned int shift = po2_shift(g);

	return shift >= 64 ? 0 : po2_lba >> shift;
}

uint64_t znp_po2_offset_in_zone(const struct znp_geom *g, uint64_t po2_lba)
{
	unsigned int shift = po2_shift(g);

	return shift >= 64 ? po2_lba : po2_lba & ((UINT64_C(1) << shift) - 1);
}

uint64_t znp_po2_zone_start(const struct znp_geom *g, uint64_t zone_no)
{
	unsigned int shift = po2_shift(g);

	if (shift >= 64)
		return zone_no ? UINT64_MAX : 0;
	if (shift && zone_no >> (64 - shift))
		return UINT64_MAX;
	return zone_no << shift;
}

uint64_t znp_po2_data_left(const struct znp_geom *g, uint64_t po2_lba)
{
	uint64_t zno = znp_po2_zone_no(g, po2_lba);
	uint64_t off = znp_po2_offset_in_zone(g, po2_lba);
	uint64_t len = znp_zone_len(g, zno);

	return off < len ? len - off : 0;
}

uint64_t znp_descs_per_xfer(const struct znp_geom *g, uint64_t bytes)
{
	uint64_t stride = ZNP_ZDESC_SIZE + g->zdes_bytes;

	if (bytes <= ZNP_ZREPORT_HDR_SIZE)
		return 0;
	return (bytes - ZNP_ZREPORT_HDR_SIZE) / stride;
}
