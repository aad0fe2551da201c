/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zone geometry: the only place in zns-npo2 that does arithmetic on zone
 * sizes. Every helper divides, with a power-of-two fast path, so npo2 and
 * po2 zone sizes take the same code paths. Names mirror the kernel helpers
 * (bdev_zone_no, bdev_offset_from_zone_start, bdev_is_zone_start) so that
 * reviewers can see the correspondence with kernel-patches/.
 *
 * All quantities are in logical blocks (LBAs) unless the name says otherwise.
 */
#ifndef ZNP_GEOMETRY_H
#define ZNP_GEOMETRY_H

#include <stdbool.h>
#include <stdint.h>

struct znp_geom {
	uint32_t lba_size;	/* bytes per logical block */
	uint64_t nlbas;		/* namespace / device size in LBAs */
	uint64_t zone_size;	/* LBAs per zone (zone stride) */
	uint64_t zone_cap;	/* writable LBAs per zone (from the report) */
	bool zone_cap_varies;	/* zones report different capacities */
	uint64_t nr_zones;	/* including a smaller last zone, if any */
	uint32_t mdts_bytes;	/* max data transfer, 0 = unlimited/unknown */
	uint32_t max_open;	/* 0 = no limit */
	uint32_t max_active;	/* 0 = no limit */
	uint32_t zdes_bytes;	/* zone descriptor extension size */
	/* cached by znp_geom_init(): */
	bool zone_size_is_po2;
	unsigned int zone_shift;	/* valid only when zone_size_is_po2 */
};

/* Report Zones data: 64-byte header, then 64-byte descriptors (+ zdes). */
#define ZNP_ZREPORT_HDR_SIZE	64u
#define ZNP_ZDESC_SIZE		64u

/**
 * znp_geom_init() - validate and finish a geometry
 * @g: geometry with lba_size, nlbas, zone_size (and optional fields) filled
 *
 * Computes nr_zones and the po2 fast-path fields.
 * Return: 0, or -EINVAL when lba_size or zone_size is zero or lba_size is
 * not a power of two, or zone_size exceeds nlbas, or zone_cap exceeds
 * zone_size.
 */
int znp_geom_init(struct znp_geom *g);

bool znp_is_po2(uint64_t v);
/* Smallest power of two >= v; 0 when v is 0 or the result overflows. */
uint64_t znp_po2_roundup(uint64_t v);

/* The helpers below take a geometry that passed znp_geom_init(). */

/* Zone number of @lba (bdev_zone_no). */
uint64_t znp_zone_no(const struct znp_geom *g, uint64_t lba);
/* First LBA of zone @zone_no; UINT64_MAX when not representable. */
uint64_t znp_zone_start(const struct znp_geom *g, uint64_t zone_no);
/* @lba minus the start of its zone (bdev_offset_from_zone_start). */
uint64_t znp_offset_from_zone_start(const struct znp_geom *g, uint64_t lba);
/* Is @lba the first LBA of a zone (bdev_is_zone_start)? */
bool znp_is_zone_start(const struct znp_geom *g, uint64_t lba);
/* Length of zone @zone_no in LBAs (the last zone may be smaller); 0 past the end. */
uint64_t znp_zone_len(const struct znp_geom *g, uint64_t zone_no);
/* Start of the zone after the one holding @lba; UINT64_MAX on overflow. */
uint64_t znp_next_zone_start(const struct znp_geom *g, uint64_t lba);
/* Is the last zone shorter than zone_size? */
bool znp_has_small_last_zone(const struct znp_geom *g);
/* ceil(nlbas / zone_size) with overflow safety; 0 when zone_size is 0. */
uint64_t znp_nr_zones(uint64_t nlbas, uint64_t zone_size);

/* Zone size rounded up to a power of two; 0 when that overflows 64 bits. */
uint64_t znp_po2_zone_size(const struct znp_geom *g);
/* Padding per zone when rounded up to a power of two, in LBAs (UINT64_MAX on overflow). */
uint64_t znp_po2_gap(const struct znp_geom *g);
/*
 * Size in LBAs of the po2-mapped device (nr_zones * po2 zone size; a small
 * last zone is padded like the others); 0 when that overflows.
 */
uint64_t znp_po2_dev_lbas(const struct znp_geom *g);
/*
 * Translate between the po2 space of a dm-po2zone mapping and the device.
 * znp_po2_to_dev() returns false when @po2_lba falls in a padding area.
 */
bool znp_po2_to_dev(const struct znp_geom *g, uint64_t po2_lba, uint64_t *dev_lba);
/* UINT64_MAX when the result is not representable. */
uint64_t znp_dev_to_po2(const struct znp_geom *g, uint64_t dev_lba);

/*
 * Zone number and offset of an LBA of the po2 space. The po2 zone size is a
 * power of two by construction, so these are a shift and a mask.
 */
uint64_t znp_po2_zone_no(const struct znp_geom *g, uint64_t po2_lba);
uint64_t znp_po2_offset_in_zone(const struct znp_geom *g, uint64_t po2_lba);
/* First po2-space LBA of zone @zone_no; UINT64_MAX when not representable. */
uint64_t znp_po2_zone_start(const struct znp_geom *g, uint64_t zone_no);
/*
 * LBAs of zone data (the zone's capacity, before its padding) from @po2_lba
 * to the end of that capacity; 0 when @po2_lba is in a padding area or past
 * the last zone.
 */
uint64_t znp_po2_data_left(const struct znp_geom *g, uint64_t po2_lba);

/*
 * Zone descriptors that fit in a Report Zones transfer of @bytes: header,
 * then descriptors of 64 bytes + zdes_bytes (use a geometry with
 * zdes_bytes = 0 for the basic, non-extended report).
 */
uint64_t znp_descs_per_xfer(const struct znp_geom *g, uint64_t bytes);

#endif
