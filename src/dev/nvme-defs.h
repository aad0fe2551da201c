/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NVMe values the library encodes and decodes, in one table: I/O
 * opcodes, command dword fields, and the Zoned Namespace values (zone
 * states and types, report filters, send actions). The backends (dev/), the
 * io_uring and zone engines (aio/), zone/ and the ublk server use these.
 * Part of dev.h.
 */
#ifndef ZNP_NVME_DEFS_H
#define ZNP_NVME_DEFS_H

/* NVMe I/O command set opcodes (NVM and Zoned Namespace). */
enum znp_nvme_opcode {
	ZNP_NVME_OPC_FLUSH = 0x00,
	ZNP_NVME_OPC_WRITE = 0x01,
	ZNP_NVME_OPC_READ = 0x02,
	ZNP_NVME_OPC_DSM = 0x09,		/* Dataset Management */
	ZNP_NVME_OPC_ZONE_MGMT_SEND = 0x79,
	ZNP_NVME_OPC_ZONE_MGMT_RECV = 0x7a,
	ZNP_NVME_OPC_ZONE_APPEND = 0x7d,
};

/* Command dword fields. */
#define ZNP_NVME_RW_FUA			(1u << 30)	/* cdw12: force unit access */
#define ZNP_NVME_DSM_AD			(1u << 2)	/* cdw11: deallocate */
#define ZNP_NVME_DSM_MAX_NLB		0xffffffffull	/* per range */
#define ZNP_NVME_ZMS_SELECT_ALL		(1u << 8)	/* cdw13 */
#define ZNP_NVME_ZMR_PARTIAL		(1u << 16)	/* cdw13: partial report */

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
