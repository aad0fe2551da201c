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
	uint64_t zone_cap;	/* writable LBAs of zone 0, the first full-size zone
				 * (from the report) */
	bool zone_cap_varies;	/* zones report different capacities */
	uint64_t nr_zones;	/* including a smaller last zone, if any */
	uint32_t mdts_bytes;	/* max data transfer, 0 = unlimited/unknown */
	bool vwc;		/* volatile write cache (Identify Controller VWC), false on
				 * block devices */
	uint32_t crdt_ms[3];	/* Command Retry Delay Times 1-3 (Identify Controller
				 * CRDT1-3), ms; 0 on block devices */
	uint32_t max_open;	/* 0 = no limit */
	uint32_t max_active;	/* 0 = no limit */
	uint32_t zdes_bytes;	/* zone descriptor extension size */
	/* the LBA format in use (Identify Namespace), 0/false on block devices */
	uint16_t md_bytes;	/* metadata bytes per LBA (LBA Format MS) */
	bool md_extended;	/* metadata interleaved with the data (FLBAS bit 4) */
	uint8_t pi_type;	/* protection information type (DPS bits 2:0), 0 = none */
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

/**
 * znp_is_po2() - is @v a power of two?
 * @v: value
 *
 * Return: true for 1, 2, 4, ...; false for 0.
 */
bool znp_is_po2(uint64_t v);
/**
 * znp_po2_roundup() - smallest power of two >= @v
 * @v: value
 *
 * Return: the power of two, or 0 when @v is 0 or above 2^63.
 */
uint64_t znp_po2_roundup(uint64_t v);

/* The helpers below take a geometry that passed znp_geom_init(). */

/**
 * znp_zone_no() - zone number of an LBA (kernel: bdev_zone_no)
 * @g: initialised geometry
 * @lba: LBA
 *
 * Return: @lba / zone size.
 */
uint64_t znp_zone_no(const struct znp_geom *g, uint64_t lba);
/**
 * znp_zone_start() - first LBA of a zone
 * @g: initialised geometry
 * @zone_no: zone number
 *
 * Return: @zone_no * zone size, or UINT64_MAX if not representable.
 */
uint64_t znp_zone_start(const struct znp_geom *g, uint64_t zone_no);
/**
 * znp_offset_from_zone_start() - offset of an LBA in its zone
 * (kernel: bdev_offset_from_zone_start)
 * @g: initialised geometry
 * @lba: LBA
 *
 * Return: @lba modulo the zone size.
 */
uint64_t znp_offset_from_zone_start(const struct znp_geom *g, uint64_t lba);
/**
 * znp_is_zone_start() - is @lba the first LBA of a zone? (kernel: bdev_is_zone_start)
 * @g: initialised geometry
 * @lba: LBA
 *
 * Return: true when @lba is a multiple of the zone size.
 */
bool znp_is_zone_start(const struct znp_geom *g, uint64_t lba);
/**
 * znp_zone_len() - length of a zone
 * @g: initialised geometry
 * @zone_no: zone number
 *
 * Return: the zone size, less for a smaller last zone, 0 past the last zone.
 */
uint64_t znp_zone_len(const struct znp_geom *g, uint64_t zone_no);
/**
 * znp_next_zone_start() - start of the zone after the one holding @lba
 * @g: initialised geometry
 * @lba: LBA
 *
 * Additive, so it holds for any zone size (the report iterator steps with it).
 * Return: the LBA, or UINT64_MAX on overflow.
 */
uint64_t znp_next_zone_start(const struct znp_geom *g, uint64_t lba);
/*
 * Number of zones the LBA range [@slba, @slba + @nlb) touches (@nlb >= 1,
 * the range inside the device).
 */
uint64_t znp_zones_in_range(const struct znp_geom *g, uint64_t slba, uint64_t nlb);
/* Does [@slba, @slba + @nlb) start at a zone start and end at a zone end? */
bool znp_range_is_whole_zones(const struct znp_geom *g, uint64_t slba, uint64_t nlb);
/**
 * znp_has_small_last_zone() - is the last zone shorter than the others?
 * @g: initialised geometry
 *
 * Return: true when nlbas is not a multiple of the zone size.
 */
bool znp_has_small_last_zone(const struct znp_geom *g);
/**
 * znp_nr_zones() - zones needed to cover @nlbas
 * @nlbas: device size in LBAs
 * @zone_size: zone size in LBAs
 *
 * Return: ceil(@nlbas / @zone_size), a smaller last zone included; 0 when
 * @zone_size is 0.
 */
uint64_t znp_nr_zones(uint64_t nlbas, uint64_t zone_size);

/**
 * znp_po2_zone_size() - zone size rounded up to a power of two
 * @g: initialised geometry
 *
 * Return: the po2 zone size of a dm-po2zone mapping, 0 when it would be 2^64.
 */
uint64_t znp_po2_zone_size(const struct znp_geom *g);
/**
 * znp_po2_gap() - padding per zone in the po2 space
 * @g: initialised geometry
 *
 * Return: po2 zone size - zone size (0 for po2 zones), UINT64_MAX when the
 * po2 size overflows.
 */
uint64_t znp_po2_gap(const struct znp_geom *g);
/**
 * znp_po2_dev_lbas() - size of the po2-mapped device
 * @g: initialised geometry
 *
 * Return: nr_zones * po2 zone size (a small last zone is padded too), or 0
 * when that overflows.
 */
uint64_t znp_po2_dev_lbas(const struct znp_geom *g);
/**
 * znp_po2_to_dev() - translate an LBA of the po2 space to the device
 * @g: initialised geometry
 * @po2_lba: LBA in the po2 space (zone n starts at n * po2 zone size)
 * @dev_lba: out, the device LBA
 *
 * Return: true with *@dev_lba set; false when @po2_lba lies in a padding
 * area or past the last zone.
 */
bool znp_po2_to_dev(const struct znp_geom *g, uint64_t po2_lba, uint64_t *dev_lba);
/**
 * znp_dev_to_po2() - translate a device LBA to the po2 space
 * @g: initialised geometry
 * @dev_lba: device LBA
 *
 * Return: the po2-space LBA, or UINT64_MAX when it is not representable.
 */
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

/**
 * znp_descs_per_xfer() - zone descriptors that fit in a Report Zones transfer
 * @g: geometry (zdes_bytes selects the extended layout)
 * @bytes: transfer size
 *
 * Return: (@bytes - 64-byte header) / (64 + zdes_bytes), 0 when too small.
 */
uint64_t znp_descs_per_xfer(const struct znp_geom *g, uint64_t bytes);

#endif
