/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to src/ublk/ (and its unit tests): the pure part of the ublk
 * server. Translation between the ublk device's 512-byte sectors (po2
 * zones) and namespace LBAs, geometry derivation, zone descriptor
 * conversion and NVMe status decoding. No I/O, no state.
 */
#ifndef ZNP_UBLK_MAP_H
#define ZNP_UBLK_MAP_H

#include <linux/blkzoned.h>
#include <stdbool.h>
#include <stdint.h>

#include "ublk.h"
#include "zone.h"

/* The namespace's passthrough limit when the kernel hid its block device. */
#define ZNP_UBLK_HIDDEN_MAX_HW_SECTORS	255u
/*
 * Request buffers are whole pages (the driver rounds max_io_buf_bytes down
 * to PAGE_SIZE); 4 KiB pages assumed, the kernel's answer is checked after
 * ADD_DEV.
 */
#define ZNP_UBLK_PAGE			4096u
/* Default request size limit (max_sectors); each tag has a buffer of it. */
#define ZNP_UBLK_REQ_BYTES		(256u << 10)
/* ublk's per-request buffer limit (UBLK_IO_BUF_BITS: 32 MiB). */
#define ZNP_UBLK_IO_BUF_MAX		(32u << 20)

/**
 * znp_ublk_geom_compute() - derive the ublk geometry (pure)
 * @ns: probed namespace geometry (znp_geom_init() done, zone_cap set,
 *      mdts_bytes already limited by the namespace's queue limit)
 * @zasl_bytes: Zone Append Size Limit in bytes, 0 = same as MDTS
 * @vwc: the controller has a volatile write cache
 * @g: out
 * @why: static reason on failure
 * Return: 0, -EINVAL or -E2BIG (see znp_ublk_geom_from_dev()).
 */
int znp_ublk_geom_compute(const struct znp_geom *ns, uint32_t zasl_bytes, bool vwc,
			  struct znp_ublk_geom *g, const char **why);

/* A read or write of the ublk device, in namespace terms. */
struct znp_ublk_ext {
	uint64_t zone_no;
	uint64_t lba;		/* first namespace LBA */
	uint32_t nlb;		/* LBAs backed by the namespace (from @lba) */
	uint32_t zero_bytes;	/* reads: bytes of padding after them, read as zeros */
};

/**
 * znp_ublk_map_rw() - translate a READ, WRITE or ZONE_APPEND
 * @sector, @nr_sectors: the request (ublk sectors); for appends @sector is
 *                       the zone start
 * @op_write: WRITE or ZONE_APPEND (padding refused) rather than READ
 *
 * Return: 0; -EINVAL when the request is empty, larger than max_sectors,
 * not LBA-aligned, crosses a po2 zone boundary or ends past the device; -EIO for a write that
 * touches padding (nothing may be sent: no write pointer moves).
 */
int znp_ublk_map_rw(const struct znp_ublk_geom *g, uint64_t sector, uint32_t nr_sectors,
		    bool op_write, struct znp_ublk_ext *e);

/* Zone operation on the zone holding @sector: its namespace ZSLBA. -EINVAL past the end. */
int znp_ublk_map_zone(const struct znp_ublk_geom *g, uint64_t sector, uint64_t *zslba);

/**
 * znp_ublk_map_alba() - the ublk sector of an appended LBA
 * @zone_no: zone the append was sent to
 * @alba, @nlb: the LBA the namespace reports (big CQE) and the append's length
 * Return: 0, or -EIO when the namespace placed the data outside the zone's
 * capacity (untrusted device data).
 */
int znp_ublk_map_alba(const struct znp_ublk_geom *g, uint64_t zone_no, uint64_t alba,
		      uint32_t nlb, uint64_t *sector);

/**
 * znp_ublk_zone_to_blk() - a namespace zone as zone @idx of the ublk device
 * @z: parsed, validated descriptor (znp_zdesc_parse())
 * Return: 0, or -EIO when the namespace reported something the po2 device
 * cannot present (not zone @idx, not sequential-write-required, capacity
 * or write pointer out of bounds).
 */
int znp_ublk_zone_to_blk(const struct znp_ublk_geom *g, uint64_t idx,
			 const struct znp_zone *z, struct blk_zone *bz);

/*
 * The errno a ublk request fails with for an NVMe status (> 0) or an errno
 * (< 0), as the block layer expects it: too many open / active zones are
 * -ETOOMANYREFS / -EOVERFLOW, zone state and boundary errors -EIO.
 */
int znp_ublk_status_errno(int status);

/* What to do with a failed NVMe command (status > 0, or an errno < 0). */
enum znp_ublk_verdict {
	ZNP_UBLK_FAIL,		/* fail the request with znp_ublk_status_errno() */
	ZNP_UBLK_RETRY,		/* transient (DNR clear, path error, cancelled): retry */
	ZNP_UBLK_CHECK_WP,	/* a write met the write pointer elsewhere: look at the zone */
	ZNP_UBLK_GONE,		/* the namespace is gone (ENODEV, ENXIO, Invalid Namespace
				 * or Format): leave the request to the next server */
};
enum znp_ublk_verdict znp_ublk_status_verdict(int status, bool write);

/* Retries of one request: at most this many, each after znp_ublk_retry_ms(). */
#define ZNP_UBLK_RETRIES	5
/*
 * How long to wait before retry @retry (0 the first) of a command that
 * failed with @status (ZNP_UBLK_RETRY): the controller's Command Retry
 * Delay when the status asks for one (CRD, bits 12:11, selects CRDT1-3 of
 * @crdt_ms), and never less than a backoff of 10 ms doubling per retry.
 */
uint32_t znp_ublk_retry_ms(int status, const uint32_t crdt_ms[3], unsigned int retry);

/*
 * A fingerprint of what a device serves (namespace identity and geometry),
 * kept by the driver in the device's info (ublksrv_flags) so that a
 * recovery can prove the quiesced device belongs to this namespace. Never 0.
 */
uint64_t znp_ublk_fingerprint(const struct znp_ns_info *id, const struct znp_geom *g);

#endif
