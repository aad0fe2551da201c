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

/**
 * znp_geom_init() - validate and finish a geometry
 * @g: geometry with lba_size, nlbas, zone_size (and optional fields) filled
 *
 * Computes nr_zones and the po2 fast-path fields.
 * Return: 0, or -EINVAL when lba_size or zone_size is zero or lba_size is
 * not a power of two, or zone_size exceeds nlbas.
 */
int znp_geom_init(struct znp_geom *g);

bool znp_is_po2(uint64_t v);
/* Smallest power of two >= v; 0 when v is 0 or the result overflows. */
uint64_t znp_po2_roundup(uint64_t v);

uint64_t znp_zone_no(const struct znp_geom *g, uint64_t lba);
uint64_t znp_zone_start(const struct znp_geom *g, uint64_t zone_no);
uint64_t znp_offset_from_zone_start(const struct znp_geom *g, uint64_t lba);
bool znp_is_zone_start(const struct znp_geom *g, uint64_t lba);
/* Length of zone @zone_no in LBAs (the last zone may be smaller). */
uint64_t znp_zone_len(const struct znp_geom *g, uint64_t zone_no);
/* ceil(nlbas / zone_size) with overflow safety. */
uint64_t znp_nr_zones(uint64_t nlbas, uint64_t zone_size);

/* Padding per zone when rounded up to a power of two, in LBAs. */
uint64_t znp_po2_gap(const struct znp_geom *g);
/* Size in LBAs of the po2-mapped device (nr_zones * po2 zone size). */
uint64_t znp_po2_dev_lbas(const struct znp_geom *g);
/*
 * Translate between the po2 space of a dm-po2zone mapping and the device.
 * znp_po2_to_dev() returns false when @po2_lba falls in a padding area.
 */
bool znp_po2_to_dev(const struct znp_geom *g, uint64_t po2_lba, uint64_t *dev_lba);
uint64_t znp_dev_to_po2(const struct znp_geom *g, uint64_t dev_lba);

/* Zone descriptors per transfer of @bytes (64-byte descriptors + zdes). */
uint64_t znp_descs_per_xfer(const struct znp_geom *g, uint64_t bytes);

#endif
