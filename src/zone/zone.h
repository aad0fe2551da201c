/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The probe, zone reports (streamed), descriptors, discovery. */
#ifndef ZNP_ZONE_H
#define ZNP_ZONE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev.h"

struct znp_zone {
	uint64_t start;		/* LBAs */
	uint64_t len;		/* zone size, LBAs */
	uint64_t cap;		/* LBAs */
	uint64_t wp;		/* LBAs */
	uint8_t cond;		/* enum znp_zone_cond */
	uint8_t type;		/* enum znp_zone_type */
	uint8_t attrs;		/* NVMe ZA */
	uint8_t attrs_info;	/* NVMe ZAI */
	uint8_t bad;		/* enum znp_zone_bad: kept though invalid (ZNP_REPORT_KEEP_BAD) */
};

/* Which field of a descriptor is invalid (the zone start is valid). */
enum znp_zone_bad {
	ZNP_ZBAD_NONE,
	ZNP_ZBAD_TYPE,		/* unknown zone type */
	ZNP_ZBAD_COND,		/* unknown zone state */
	ZNP_ZBAD_CAP,		/* capacity beyond the zone size */
	ZNP_ZBAD_WP,		/* write pointer outside slba..slba+cap */
};

/*
 * znp_zone_bad_str() - what is wrong with @z (z->bad), with the values:
 * "wp 0x18001 beyond slba+cap 0x18000". Return: @buf ("" when z->bad is 0).
 */
const char *znp_zone_bad_str(const struct znp_zone *z, char *buf, size_t size);

/**
 * znp_dev_probe() - read the geometry into @dev->geom (the backend's
 * Identify, then the zone capacity from the first report chunk)
 * @dev: an open device
 *
 * NVMe: Identify Controller (MDTS), Identify Namespace (LBA format, size),
 * Identify Namespace Descriptor List (command set), ZNS Identify Namespace
 * (zone size, descriptor extension, open/active limits), then the first
 * zone report chunk (zone capacity). Block: the zone ioctls and one
 * BLKREPORTZONE chunk.
 * Return: 0, -errno, or a positive NVMe status; -EMEDIUMTYPE when the
 * namespace is not zoned (conventional): @dev->is_zoned is false then and
 * @dev->geom holds lba_size and nlbas.
 */
int znp_dev_probe(struct znp_dev *dev);

#define ZNP_PROBE_DEFER_CAP	(1u << 0)	/* zone_cap from the first report */
#define ZNP_PROBE_FULL_CAP	(1u << 1)	/* read every zone: exact zone_cap_varies */
/**
 * znp_dev_probe_flags() - znp_dev_probe() with ZNP_PROBE_* flags
 * @dev: device
 * @flags: ZNP_PROBE_DEFER_CAP leaves @dev->geom.zone_cap at 0; the first
 *         zone report fills it in (a full report then needs no extra command).
 *         ZNP_PROBE_FULL_CAP reads the whole zone report once, so that
 *         zone_cap_varies covers every zone, not just the first chunk.
 *
 * Return: as znp_dev_probe().
 */
int znp_dev_probe_flags(struct znp_dev *dev, unsigned int flags);

/*
 * First report chunk from LBA 0: sets geom.zone_cap (first zone) and
 * zone_cap_varies (any full-size zone in the chunk differs), checks the
 * zone count against the geometry. Return: 0, -errno, NVMe status.
 */
int znp_report_probe_cap(struct znp_dev *dev);
/**
 * znp_dev_scan_caps() - read the whole zone report to learn whether zone
 * capacities differ
 * @dev: device after the backend probe (zone_cap may still be 0: the first
 *       chunk of this report sets it)
 *
 * ZNP_PROBE_FULL_CAP: eligibility decisions (check, map) need every zone,
 * not just the first chunk. No-op for a device that is not zoned.
 * Return: 0, -errno or a positive NVMe status.
 */
int znp_dev_scan_caps(struct znp_dev *dev);

struct znp_report_iter;

/**
 * znp_report_begin() - start a streamed zone report
 * @dev: probed zoned device
 * @slba: first LBA (any LBA inside a zone; the report starts at its zone)
 * @filter: state filter
 * @out: iterator, free with znp_report_end()
 *
 * Each Zone Management Receive transfers as many descriptors as MDTS
 * allows; memory use does not depend on the zone count. Issues the first
 * command, so znp_report_nr_zones() is valid on return. Descriptors are
 * validated with znp_zdesc_parse(); with ZNP_RF_ALL the zones must also be
 * contiguous and their count match the geometry.
 * Return: 0, -EINVAL (@slba past the end, bad filter), -EMEDIUMTYPE (not
 * a probed zoned device), -EPROTO (malformed data, zone count differs from
 * Identify), another -errno, or a positive NVMe status.
 */
int znp_report_begin(struct znp_dev *dev, uint64_t slba,
		     enum znp_state_filter filter, struct znp_report_iter **out);

/*
 * ZNP_REPORT_KEEP_BAD: a descriptor whose start is a valid zone start but
 * whose type, state, capacity or write pointer is invalid does not end the
 * report: it comes with z->bad set (znp_zone_bad_str()), the zones after it
 * follow, and znp_report_nr_bad() counts them. What the report is for
 * (an admin reading what the drive says); the probe and the mapping
 * decisions keep the strict report.
 */
#define ZNP_REPORT_KEEP_BAD	(1u << 0)
/*
 * ZNP_REPORT_RAW: nothing validated (report --raw, firmware debugging): each
 * descriptor as the drive sent it (len: the zone size; z->bad unset), the
 * header's count and the order not checked; the report ends at the
 * header's count, a short transfer, the end of the namespace, or a start
 * that does not move on.
 */
#define ZNP_REPORT_RAW		(1u << 1)
int znp_report_begin_flags(struct znp_dev *dev, uint64_t slba, enum znp_state_filter filter,
			   unsigned int flags, struct znp_report_iter **out);
/* Descriptors delivered with z->bad set so far. */
uint64_t znp_report_nr_bad(const struct znp_report_iter *it);
/**
 * znp_report_next() - next zone of a report
 * @it: iterator
 * @z: out, the zone
 * @err: out, 0 at the end of the report or while zones come, else -errno
 *       or the positive NVMe status that ended it
 *
 * Loop with `while (znp_report_next(it, &z, &ret))`; @ret then tells a
 * complete report (0) from a failed one.
 * Return: true with *z filled, false at the end or on an error.
 */
bool znp_report_next(struct znp_report_iter *it, struct znp_zone *z, int *err);
/**
 * znp_report_nr_zones() - zones the report covers
 * @it: iterator
 *
 * Return: the first command's header count: zones matching the filter from
 * the start zone on, as the device first reported.
 */
uint64_t znp_report_nr_zones(const struct znp_report_iter *it);
/**
 * znp_report_cmds() - commands issued so far
 * @it: iterator
 *
 * Return: Zone Management Receive commands (or BLKREPORTZONE calls).
 */
uint64_t znp_report_cmds(const struct znp_report_iter *it);
/**
 * znp_report_cap_varies() - did full-size zones report different capacities?
 * @it: iterator
 *
 * Covers the zones fetched so far (the whole device once an unfiltered
 * report from LBA 0 has ended).
 * Return: true when two full-size zones differ in capacity.
 */
bool znp_report_cap_varies(const struct znp_report_iter *it);
/**
 * znp_report_end() - free an iterator (NULL is fine)
 * @it: iterator
 */
void znp_report_end(struct znp_report_iter *it);

/*
 * znp_zdesc_parse_keep() - znp_zdesc_parse(), but a descriptor with a valid
 * zone start and an invalid field is parsed with z->bad set instead of
 * failing the buffer.
 */
int znp_zdesc_parse_keep(const struct znp_geom *g, const void *buf, size_t len,
			 uint64_t *nr_reported, struct znp_zone *zones, size_t max,
			 size_t *nparsed);
/* znp_zdesc_parse() without any validation: the fields as sent (len: the zone size). */
int znp_zdesc_parse_raw(const struct znp_geom *g, const void *buf, size_t len,
			uint64_t *nr_reported, struct znp_zone *zones, size_t max,
			size_t *nparsed);
/**
 * znp_zdesc_parse() - parse one Report Zones data buffer (pure; fuzzed)
 * @g: geometry (zone_size, zdes_bytes, nlbas) for validation
 * @buf, @len: the data the device returned
 * @nr_reported: out, the header's Number of Zones
 * @zones, @max: parsed descriptors (at most @max)
 * @nparsed: out, descriptors parsed into @zones
 *
 * Validates each descriptor: zone start a multiple of the zone size and
 * inside the namespace, capacity <= zone size, write pointer within
 * [start, start + cap] (or the kernel's "invalid" value for full /
 * offline / read-only zones), known condition.
 * Return: 0 or -EPROTO (malformed data) or -EINVAL (bad arguments).
 */
int znp_zdesc_parse(const struct znp_geom *g, const void *buf, size_t len,
		    uint64_t *nr_reported, struct znp_zone *zones, size_t max,
		    size_t *nparsed);

/**
 * znp_zone_cond_name() - nvme-cli name of a zone condition
 * @cond: enum znp_zone_cond
 *
 * Return: "EMPTY", "IMP_OPENED", ..., or "Unknown State".
 */
const char *znp_zone_cond_name(uint8_t cond);	/* "EMPTY", "IMP_OPENED", ... (nvme-cli names) */
/**
 * znp_zone_type_name() - nvme-cli name of a zone type
 * @type: enum znp_zone_type
 *
 * Return: "SEQWRITE_REQ", ..., or "Unknown".
 */
const char *znp_zone_type_name(uint8_t type);	/* "SEQWRITE_REQ", ... */
/**
 * znp_zone_action_name() - CLI name of a zone action
 * @a: action
 *
 * Return: "close", "finish", "open", "reset", "offline" or "unknown".
 */
const char *znp_zone_action_name(enum znp_zone_action a); /* "reset", ... */

/* Discovery (znp_scan: each namespace is probed) is part of this room's public face. */
#include "scan.h"

#endif
