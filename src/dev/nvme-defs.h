/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Zoned Namespace values the backends (dev/) and the zone room share:
 * zone states and types, report filters, send actions.
 * Part of dev.h.
 */
#ifndef ZNP_NVME_DEFS_H
#define ZNP_NVME_DEFS_H

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

/* NVMe Zone Send Action values. */
enum znp_zone_action {
	ZNP_ZA_CLOSE = 0x1,
	ZNP_ZA_FINISH = 0x2,
	ZNP_ZA_OPEN = 0x3,
	ZNP_ZA_RESET = 0x4,
	ZNP_ZA_OFFLINE = 0x5,
};

#endif
