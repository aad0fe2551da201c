// SPDX-License-Identifier: GPL-2.0-or-later
/* Eligibility of a namespace for a dm-po2zone mapping (pure). */
#include <errno.h>
#include <stddef.h>

#include "check.h"

bool znp_lba_format_has_md(const struct znp_geom *g)
{
	return g->md_bytes || g->pi_type;
}

bool znp_lba_format_kernel_ok(const struct znp_geom *g)
{
	if (!g->md_bytes || !g->md_extended)
		return true;
	return g->pi_type && (g->md_bytes == 8 || g->md_bytes == 16);
}

int znp_check_values(bool blk_hidden, bool blk_empty, const struct znp_geom *g,
		     bool is_zoned, struct znp_check_result *r)
{
	uint32_t why = 0;

	if (!r || (is_zoned && (!g || !g->zone_size)))
		return -EINVAL;

	if (blk_hidden)
		why |= ZNP_R_BLK_HIDDEN;
	if (!is_zoned) {
		why |= ZNP_R_NOT_ZONED;
	} else {
		why |= znp_is_po2(g->zone_size) ? ZNP_R_ZONE_SIZE_PO2 : ZNP_R_ZONE_SIZE_NPO2;
		if (g->zone_cap_varies)
			why |= ZNP_R_CAP_VARIES;
		if (g->zone_cap < g->zone_size)
			why |= ZNP_R_CAP_LT_SIZE;
		if (g->nr_zones && znp_has_small_last_zone(g))
			why |= ZNP_R_SMALL_LAST_ZONE;
		if (g->md_bytes)
			why |= ZNP_R_LBA_METADATA;
		if (g->pi_type)
			why |= ZNP_R_PROT_INFO;
	}

	r->reasons = why;
	if (why & ZNP_R_NOT_ZONED)
		r->verdict = ZNP_V_NOT_ZNS;
	else if (why & ZNP_R_ZONE_SIZE_PO2)
		r->verdict = ZNP_V_PO2;
	else if (why & ZNP_R_CAP_VARIES)
		r->verdict = ZNP_V_CAP_VARIES;
	else if (why & ZNP_R_CAP_LT_SIZE)
		r->verdict = ZNP_V_CAP_LT_SIZE;
	else if (znp_lba_format_has_md(g) &&
		 ((why & ZNP_R_BLK_HIDDEN) || !znp_lba_format_kernel_ok(g) ||
		  (blk_empty && g->nlbas)))
		r->verdict = ZNP_V_METADATA;
	else if (why & ZNP_R_BLK_HIDDEN)
		r->verdict = ZNP_V_NEEDS_KERNEL;
	else
		r->verdict = ZNP_V_MAPPABLE;
	return 0;
}

void znp_check_ublk(struct znp_check_result *r, bool route_usable, bool not_loaded)
{
	if (r->verdict != ZNP_V_NEEDS_KERNEL || !route_usable)
		return;
	r->verdict = ZNP_V_UBLK;
	r->reasons |= ZNP_R_UBLK_ROUTE | (not_loaded ? ZNP_R_UBLK_NOT_LOADED : 0);
}

void znp_check_no_ublk(struct znp_check_result *r)
{
	if (r->verdict == ZNP_V_NEEDS_KERNEL)
		r->reasons |= ZNP_R_NO_UBLK;
}

/* needs-kernel-patches on a kernel that has no ublk driver either */
#define ZNP_TEXT_NEEDS_KERNEL_NO_UBLK \
	"zone size is not a power of two and the kernel hid the " \
	"block device; needs the npo2 kernel patches, or for map " \
	"--ublk a kernel with zoned ublk devices (Linux >= 6.6 " \
	"with ublk_drv, which this kernel lacks); " \
	ZNP_UBLK_KERNEL_HINT

const char *znp_check_text(const struct znp_check_result *r)
{
	if (r->verdict == ZNP_V_NEEDS_KERNEL && (r->reasons & ZNP_R_NO_UBLK))
		return ZNP_TEXT_NEEDS_KERNEL_NO_UBLK;
	return znp_verdict_text(r->verdict);
}

const char *znp_verdict_name(enum znp_verdict v)
{
	switch (v) {
	case ZNP_V_MAPPABLE:
		return "mappable";
	case ZNP_V_PO2:
		return "po2";
	case ZNP_V_NEEDS_KERNEL:
		return "needs-kernel-patches";
	case ZNP_V_CAP_LT_SIZE:
		return "capacity-lt-size";
	case ZNP_V_CAP_VARIES:
		return "capacity-varies";
	case ZNP_V_NOT_ZNS:
		return "not-zns";
	case ZNP_V_UBLK:
		return "mappable-ublk";
	case ZNP_V_METADATA:
		return "metadata-format";
	}
	return "unknown";
}

const char *znp_verdict_text(enum znp_verdict v)
{
	switch (v) {
	case ZNP_V_MAPPABLE:
		return "zone size is not a power of two; can be mapped with dm-po2zone";
	case ZNP_V_PO2:
		return "zone size is a power of two; no mapping needed";
	case ZNP_V_NEEDS_KERNEL:
		return "zone size is not a power of two and the kernel hid the block device; needs the npo2 kernel patches";
	case ZNP_V_CAP_LT_SIZE:
		return "zone capacity is smaller than the zone size; dm-po2zone cannot map it";
	case ZNP_V_CAP_VARIES:
		return "zones report different capacities; dm-po2zone cannot map it";
	case ZNP_V_NOT_ZNS:
		return "not a zoned namespace";
	case ZNP_V_UBLK:
		return "zone size is not a power of two and the kernel hid the block device; mappable through ublk (map --ublk) on this kernel";
	case ZNP_V_METADATA:
		return "the LBA format carries per-LBA metadata or protection information, which the ublk server cannot serve and the kernel's block device here does not";
	}
	return "unknown verdict";
}

const char *znp_reason_name(uint32_t reason_bit)
{
	switch (reason_bit) {
	case ZNP_R_NOT_ZONED:
		return "not-zoned";
	case ZNP_R_ZONE_SIZE_PO2:
		return "zone-size-po2";
	case ZNP_R_ZONE_SIZE_NPO2:
		return "zone-size-npo2";
	case ZNP_R_BLK_HIDDEN:
		return "block-device-hidden";
	case ZNP_R_CAP_LT_SIZE:
		return "capacity-lt-size";
	case ZNP_R_CAP_VARIES:
		return "capacity-varies";
	case ZNP_R_SMALL_LAST_ZONE:
		return "small-last-zone";
	case ZNP_R_UBLK_ROUTE:
		return "ublk-zoned-available";
	case ZNP_R_UBLK_NOT_LOADED:
		return "ublk-module-not-loaded";
	case ZNP_R_LBA_METADATA:
		return "lba-metadata";
	case ZNP_R_PROT_INFO:
		return "protection-info";
	case ZNP_R_NO_UBLK:
		return "no-ublk-driver";
	}
	return NULL;
}
