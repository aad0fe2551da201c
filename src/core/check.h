/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Eligibility of a namespace for a dm-po2zone mapping. */
#ifndef ZNP_CHECK_H
#define ZNP_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "geometry.h"

enum znp_verdict {
	ZNP_V_MAPPABLE,		/* npo2, cap == size, block device visible */
	ZNP_V_PO2,		/* already po2: no mapping needed */
	ZNP_V_NEEDS_KERNEL,	/* npo2, block device hidden by the kernel */
	ZNP_V_CAP_LT_SIZE,	/* npo2 with capacity < size: not mappable */
	ZNP_V_CAP_VARIES,	/* zone capacities differ */
	ZNP_V_NOT_ZNS,		/* not a zoned namespace */
	ZNP_V_UBLK,		/* like NEEDS_KERNEL, but the kernel offers ublk: map --ublk */
	ZNP_V_METADATA,		/* LBA format with metadata/PI no route here can serve */
};

/* Reasons, possibly several; the verdict is the most important one. */
#define ZNP_R_NOT_ZONED		(1u << 0)
#define ZNP_R_ZONE_SIZE_PO2	(1u << 1)
#define ZNP_R_ZONE_SIZE_NPO2	(1u << 2)
#define ZNP_R_BLK_HIDDEN	(1u << 3)
#define ZNP_R_CAP_LT_SIZE	(1u << 4)
#define ZNP_R_CAP_VARIES	(1u << 5)
#define ZNP_R_SMALL_LAST_ZONE	(1u << 6)
#define ZNP_R_UBLK_ROUTE	(1u << 7)	/* zoned ublk devices available */
#define ZNP_R_UBLK_NOT_LOADED	(1u << 8)	/* ... once ublk_drv is loaded */
#define ZNP_R_LBA_METADATA	(1u << 9)	/* the LBA format has metadata (MS != 0) */
#define ZNP_R_PROT_INFO		(1u << 10)	/* protection information enabled (DPS) */
#define ZNP_R_NO_UBLK		(1u << 11)	/* the kernel has no zoned ublk devices */
#define ZNP_R_ALL		((1u << 12) - 1)	/* every defined reason bit */

/* Where a Debian 12 admin gets a kernel with zoned ublk (check, map --ublk). */
#define ZNP_UBLK_KERNEL_HINT	"on Debian 12: apt install linux-image-6.12-amd64 (Debian 12's " \
				"6.12 LTS kernel) and boot it"

struct znp_check_result {
	enum znp_verdict verdict;
	uint32_t reasons;
};

/**
 * znp_check_values() - decide eligibility (pure)
 * @blk_hidden: the kernel hid the namespace's block device (false for a
 *      zoned block device that is not NVMe: visible by definition)
 * @blk_empty: the block device is known to have capacity 0
 * @g: probed geometry (ignored when !@is_zoned)
 * @is_zoned: ZNS namespace / zoned block device
 *
 * An LBA format with metadata (extended or separate) or protection
 * information is ZNP_V_METADATA when the block device is hidden: the only
 * route left is the ublk server, which moves data only (an extended format
 * would interleave metadata into the data, a separate one needs a metadata
 * buffer per command). Where the kernel shows the block device, it serves
 * such formats itself (6.12 nvme_init_integrity(): an integrity profile for
 * separate metadata, the controller inserting/stripping PI when the
 * metadata is exactly the PI tuple), and dm-po2zone stacks on it; only an
 * extended format with other metadata is left without capacity by the
 * kernel, hence ZNP_V_METADATA as well (znp_lba_format_kernel_ok()), and so
 * is any format whose block device the kernel gave capacity 0
 * (@blk_empty: a kernel without CONFIG_BLK_DEV_INTEGRITY does that to
 * separate metadata).
 * Return: 0 or -EINVAL.
 */
int znp_check_values(bool blk_hidden, bool blk_empty, const struct znp_geom *g,
		     bool is_zoned, struct znp_check_result *r);
/**
 * znp_lba_format_has_md() - does the LBA format carry metadata or PI? (pure)
 * @g: probed geometry
 *
 * Return: true when MS != 0 or DPS selects a protection information type.
 */
bool znp_lba_format_has_md(const struct znp_geom *g);
/**
 * znp_lba_format_kernel_ok() - can the kernel's block device serve the format? (pure)
 * @g: probed geometry
 *
 * The NVMe PCIe driver of 6.12 gives an extended-LBA format capacity 0
 * unless its metadata is exactly a PI tuple (8 or 16 bytes) the controller
 * inserts and strips.
 * Return: false for an extended format with metadata other than that.
 */
bool znp_lba_format_kernel_ok(const struct znp_geom *g);
/**
 * znp_check_ublk() - refine a verdict with the ublk route (pure)
 * @r: the result of znp_check()
 * @route_usable: the kernel offers zoned ublk devices (svc.h:
 *                znp_ublk_route_usable())
 * @not_loaded: ... after loading ublk_drv
 *
 * Only ZNP_V_NEEDS_KERNEL changes: to ZNP_V_UBLK, with ZNP_R_UBLK_ROUTE
 * (and ZNP_R_UBLK_NOT_LOADED). A visible block device keeps ZNP_V_MAPPABLE:
 * dm-po2zone is the cheaper way where the kernel has it.
 */
void znp_check_ublk(struct znp_check_result *r, bool route_usable, bool not_loaded);
/**
 * znp_check_no_ublk() - note that the kernel has no zoned ublk (pure)
 * @r: the result of znp_check()
 *
 * Only ZNP_V_NEEDS_KERNEL gets ZNP_R_NO_UBLK: the ublk route, which would
 * serve the namespace, needs another kernel (znp_check_text() says which).
 */
void znp_check_no_ublk(struct znp_check_result *r);
/**
 * znp_check_text() - the explanation of a result
 * @r: result
 *
 * Return: znp_verdict_text() of its verdict; for ZNP_V_NEEDS_KERNEL with
 * ZNP_R_NO_UBLK, that plus the kernel the ublk route needs and where a
 * Debian 12 admin gets one. Static storage.
 */
const char *znp_check_text(const struct znp_check_result *r);
/**
 * znp_verdict_name() - verdict as the JSON/CLI string
 * @v: verdict
 *
 * Return: "mappable", "po2", "needs-kernel-patches", "capacity-lt-size",
 * "capacity-varies", "not-zns", "mappable-ublk", "metadata-format"
 * ("unknown" otherwise).
 */
const char *znp_verdict_name(enum znp_verdict v);	/* "mappable", "po2", ... */
/**
 * znp_verdict_text() - one-line explanation of a verdict
 * @v: verdict
 *
 * Return: a static string without the device name.
 */
const char *znp_verdict_text(enum znp_verdict v);	/* one-line explanation */
/**
 * znp_reason_name() - name of one ZNP_R_* bit
 * @reason_bit: exactly one bit
 *
 * Return: "not-zoned", "zone-size-po2", ..., or NULL for anything else.
 */
const char *znp_reason_name(uint32_t reason_bit);

#endif
