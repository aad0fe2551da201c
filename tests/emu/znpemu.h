/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Control interface of the ZNS emulator (libznpemu.so) for test programs.
 * A test links against libznpemu.so (or runs with it in LD_PRELOAD) and
 * asks it, independently of the code under test, which commands arrived
 * and what state each zone is in.
 */
#ifndef ZNPEMU_H
#define ZNPEMU_H

#include <stdbool.h>
#include <stdint.h>

/* Command classes. */
enum znpemu_cls {
	ZNPEMU_CLS_ADMIN = 0,	/* NVME_IOCTL_ADMIN_CMD / ADMIN64_CMD */
	ZNPEMU_CLS_IO = 1,	/* NVME_IOCTL_IO_CMD / IO64_CMD */
	ZNPEMU_CLS_BLK = 2,	/* block zone ioctls, opc = enum znpemu_blk_op */
	ZNPEMU_NCLS = 3,
};

enum znpemu_blk_op {
	ZNPEMU_BLK_REPORT = 1,
	ZNPEMU_BLK_RESET = 2,
	ZNPEMU_BLK_OPEN = 3,
	ZNPEMU_BLK_CLOSE = 4,
	ZNPEMU_BLK_FINISH = 5,
	ZNPEMU_BLK_DISCARD = 6,
};

/* One recorded command, as it arrived (NVMe fields as in the passthru struct). */
struct znpemu_cmd {
	char dev[64];		/* basename of the fake node */
	int cls;		/* enum znpemu_cls */
	bool is64;		/* *64_CMD ioctl */
	uint8_t opcode;
	uint8_t flags;
	uint32_t nsid;
	uint32_t cdw2, cdw3;
	uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
	uint32_t data_len;
	uint32_t metadata_len;
	uint32_t timeout_ms;
	uint64_t blk_sector, blk_nr;	/* block ioctls: sector and count/sectors */
	int status;		/* NVMe status (> 0), -errno, or 0 */
};

/* Commands of @cls/@opc (opc -1: any) sent to @dev (basename or path; NULL: all devices). */
uint64_t znpemu_count(const char *dev, int cls, int opc);
/* Forget counts and recorded commands. */
void znpemu_reset_counts(void);
/* Number of commands recorded since the last reset. */
uint64_t znpemu_nr_recorded(void);
/* The @back-th most recent command (0 = last); false if not recorded (ring of 256). */
bool znpemu_last_cmd(unsigned int back, struct znpemu_cmd *out);
/*
 * Zone state as the emulator holds it: condition (NVMe ZS >> 4) and write
 * pointer (LBA; for FULL zones the zone start + capacity). False if no such
 * device/zone.
 */
bool znpemu_zone(const char *dev, uint64_t zone, uint8_t *cond, uint64_t *wp);
/* Force a zone state (for setting up read-only/offline zones etc.). */
bool znpemu_set_zone(const char *dev, uint64_t zone, uint8_t cond, uint64_t wp_off);
/* Number of zones of the device in condition @cond (0: all zones). */
uint64_t znpemu_nr_zones(const char *dev, uint8_t cond);

#endif
