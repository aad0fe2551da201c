/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Zone reports (streamed) and zone management. */
#ifndef ZNP_ZONE_H
#define ZNP_ZONE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "async.h"
#include "dev.h"

/* Same values as NVMe ZS>>4 and the kernel's BLK_ZONE_COND_*. */
enum znp_zone_cond {
	ZNP_ZC_NOT_WP = 0x0,
	ZNP_ZC_EMPTY = 0x1,
	ZNP_ZC_IMP_OPEN = 0x2,
	ZNP_ZC_EXP_OPEN = 0x3,
	ZNP_ZC_CLOSED = 0x4,
	ZNP_ZC_READONLY = 0xd,
	ZNP_ZC_FULL = 0xe,
	ZNP_ZC_OFFLINE = 0xf,
};

/* Same values as NVMe ZT and BLK_ZONE_TYPE_*. */
enum znp_zone_type {
	ZNP_ZT_CONV = 0x1,
	ZNP_ZT_SEQ_REQ = 0x2,
	ZNP_ZT_SEQ_PREF = 0x3,
};

/* NVMe Zone Receive Action Specific Field values. */
enum znp_state_filter {
	ZNP_RF_ALL = 0,
	ZNP_RF_EMPTY = 1,
	ZNP_RF_IMP_OPEN = 2,
	ZNP_RF_EXP_OPEN = 3,
	ZNP_RF_CLOSED = 4,
	ZNP_RF_FULL = 5,
	ZNP_RF_READONLY = 6,
	ZNP_RF_OFFLINE = 7,
};

struct znp_zone {
	uint64_t start;		/* LBAs */
	uint64_t len;		/* zone size, LBAs */
	uint64_t cap;		/* LBAs */
	uint64_t wp;		/* LBAs */
	uint8_t cond;		/* enum znp_zone_cond */
	uint8_t type;		/* enum znp_zone_type */
	uint8_t attrs;		/* NVMe ZA */
	uint8_t attrs_info;	/* NVMe ZAI */
};

/* NVMe Zone Send Action values. */
enum znp_zone_action {
	ZNP_ZA_CLOSE = 0x1,
	ZNP_ZA_FINISH = 0x2,
	ZNP_ZA_OPEN = 0x3,
	ZNP_ZA_RESET = 0x4,
	ZNP_ZA_OFFLINE = 0x5,
};

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

struct znp_mgmt_req {
	enum znp_zone_action action;
	uint64_t slba;		/* must be a zone start unless @all */
	uint64_t nr_zones;	/* >= 1 unless @all */
	bool all;		/* select-all: one command */
};

/**
 * znp_zone_mgmt_validate() - check a request against the geometry
 * With @r->all, slba and nr_zones are ignored.
 * Return: 0, -EMEDIUMTYPE with *why set when @dev is not a probed zoned
 * device, or -EINVAL with *why set ("start LBA is not a zone start",
 * "zone count past the last zone", ...). Sends nothing. @why may be NULL.
 */
int znp_zone_mgmt_validate(const struct znp_dev *dev,
			   const struct znp_mgmt_req *r, const char **why);

struct znp_mgmt_opts {
	unsigned int qd;		/* 1: synchronous, one command per zone; 0: ZNP_AIO_DEFAULT_QD */
	const volatile sig_atomic_t *stop;	/* may be NULL; checked between commands */
	znp_aio_progress_fn progress;	/* may be NULL */
	void *progress_arg;
};

/**
 * znp_zone_mgmt_run() - the zone-management engine: run a request
 * @dev: probed zoned device, opened with ZNP_OPEN_WRITE
 * @r: the request (validated here again)
 * @o: queue depth, stop flag, progress callback (may be NULL: queue depth
 *     ZNP_AIO_DEFAULT_QD)
 * @res: out, what was done (always filled); @res->completed counts zones
 *       (1 for a select-all that succeeded)
 *
 * Queue depth 1 sends one synchronous command per zone, in order, and
 * stops at the first failure (@res->first_err_idx names it, counted from
 * the first zone). Deeper queues keep Zone Management Send commands in
 * flight through io_uring on NVMe char nodes (and for offline on NVMe
 * block nodes), and send one range-form zone ioctl on block devices.
 * Select-all is one backend call: on NVMe one command; on a zoned block
 * device reset is one whole-device ioctl, close/finish/open act on the
 * zones NVMe's select-all would (close: open zones; finish: open and
 * closed; open: closed), offline is -EOPNOTSUPP. *@o->stop is checked
 * between commands (also between the zones a block select-all walks).
 * Return: 0, -EINTR when stopped, -EINVAL / -EMEDIUMTYPE (invalid
 * request), -errno, or a positive NVMe status (the first failure;
 * commands in flight are waited for).
 */
int znp_zone_mgmt_run(struct znp_dev *dev, const struct znp_mgmt_req *r,
		      const struct znp_mgmt_opts *o, struct znp_aio_result *res);

/**
 * znp_zone_mgmt_ranges() - the engine over LBA ranges that each cover
 * whole zones (as checked by znp_discard_validate())
 * Commands are counted per zone; a block range ioctl counts its zones.
 * Return: as znp_zone_mgmt_run().
 */
int znp_zone_mgmt_ranges(struct znp_dev *dev, enum znp_zone_action action,
			 const struct znp_aio_range *lba_ranges, size_t nr,
			 const struct znp_mgmt_opts *o, struct znp_aio_result *res);

/**
 * znp_zone_mgmt() - znp_zone_mgmt_run() at queue depth 1, without a stop flag
 * @done: out, zones completed before an error (or all of them); for
 *        select-all: 1 once the command succeeded, else 0
 * Return: as znp_zone_mgmt_run().
 */
int znp_zone_mgmt(struct znp_dev *dev, const struct znp_mgmt_req *r,
		  uint64_t *done);

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

#endif
