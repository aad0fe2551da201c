/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * znpemu internals: an LD_PRELOAD emulation of NVMe ZNS namespaces (and
 * zoned block devices) at the ioctl level. See README.md for the config
 * file format.
 */
#ifndef ZNPEMU_PRIV_H
#define ZNPEMU_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "znpemu.h"

#define EMU_MAX_DEVS	64
#define EMU_MAX_FAULTS	16
#define EMU_MAX_ZONESET	64
#define EMU_CHUNK	4096u	/* zones per lazily allocated state chunk */
#define EMU_NCOND	16

enum emu_kind {
	EMU_NG,		/* NVMe generic char node: NVMe passthrough */
	EMU_NVME_BLK,	/* NVMe block node: NVMe passthrough + block ioctls */
	EMU_BLK,	/* other zoned block device: block ioctls only */
	EMU_CTRL,	/* NVMe controller char node: admin commands only */
};

enum emu_preset {
	EMU_PRESET_EMPTY,
	EMU_PRESET_FULL,
	EMU_PRESET_MIXED,
};

enum emu_fault_kind {
	EMU_FAULT_STATUS,	/* complete with an NVMe status */
	EMU_FAULT_ERRNO,	/* ioctl() fails with -1/errno */
	EMU_FAULT_SHORT,	/* Zone Management Receive moves only N bytes */
};

struct emu_fault {
	enum emu_fault_kind kind;
	int cls;		/* ZNPEMU_CLS_*, -1 = any command */
	int opc;		/* -1 = any opcode of the class */
	uint64_t nth;		/* 1-based; 0 = every matching command */
	uint32_t value;		/* status, errno or byte count */
};

struct emu_zoneset {
	uint64_t idx;
	uint8_t cond;
	uint64_t wp_off;
};

struct emu_chunk {
	uint8_t cond[EMU_CHUNK];
	uint32_t wp_off[EMU_CHUNK];
};

struct emu_dev {
	/* configuration */
	char path[PATH_MAX];		/* canonical path of the fake node */
	const char *base;		/* basename of path */
	enum emu_kind kind;
	unsigned int major, minor;
	char ctrl[32];			/* controller group */
	uint32_t nsid;
	uint8_t csi;
	uint32_t lba_size;
	uint64_t nlbas;
	uint64_t zsze, zcap;
	uint64_t nzones;
	uint32_t mdts_bytes;		/* 0 = no limit advertised */
	uint32_t max_xfer;		/* kernel max_hw_sectors in bytes */
	uint32_t zdes;			/* descriptor extension bytes */
	uint16_t ms;			/* metadata bytes per LBA (LBA Format MS) */
	uint8_t mset;			/* 1: extended LBA (FLBAS bit 4) */
	uint8_t pi;			/* protection information type (DPS) */
	uint32_t max_open, max_active;	/* 0 = no limit */
	uint32_t zasl_bytes;
	char sn[21], mn[41], fr[9];
	enum emu_preset preset;
	struct emu_zoneset zoneset[EMU_MAX_ZONESET];
	int nzoneset;
	struct emu_fault faults[EMU_MAX_FAULTS];
	int nfaults;
	int64_t bad_wp, bad_start, bad_cap, bad_cond;	/* zone index or -1 */
	int64_t small_cap;		/* zone index with capacity zcap - 1, or -1 */
	int64_t zones_delta;		/* report shows nzones + delta zones */
	bool excl_busy;
	char state_file[PATH_MAX];
	char twin_name[64];		/* another node of the same namespace */
	struct emu_dev *owner;		/* holder of the zone state (twin or self) */

	/* zone state, built on first use */
	bool loaded;
	bool dirty;
	uint64_t nchunks;
	struct emu_chunk **chunks;	/* NULL chunk: every zone in its preset state */
	uint32_t (*chunk_cnt)[EMU_NCOND];
	uint64_t cnt[EMU_NCOND];

	/* statistics */
	bool touched;
	uint64_t seq;			/* commands of every class */
	uint64_t cls_seq[ZNPEMU_NCLS];
	uint64_t counts[ZNPEMU_NCLS][256];
};

struct emu_state {
	struct emu_dev devs[EMU_MAX_DEVS];
	int ndevs;
	bool parsed;
};

extern struct emu_state emu;

/* emu-config.c */
int emu_config_load(const char *file);
const char *emu_cond_name(uint8_t cond);

/* emu-zones.c */
void emu_zones_load(struct emu_dev *d);
void emu_zones_save(struct emu_dev *d);
void emu_zone_get(struct emu_dev *d, uint64_t idx, uint8_t *cond, uint64_t *wp_off);
void emu_zone_set(struct emu_dev *d, uint64_t idx, uint8_t cond, uint64_t wp_off);
uint64_t emu_zone_start(const struct emu_dev *d, uint64_t idx);
uint64_t emu_zone_len(const struct emu_dev *d, uint64_t idx);
uint64_t emu_zone_cap(const struct emu_dev *d, uint64_t idx);
/* Zones in [from, to) whose condition is @cond (0 = any). */
uint64_t emu_zones_count(struct emu_dev *d, uint64_t from, uint64_t to, uint8_t cond);
/* First zone >= @from with condition @cond (0 = any), or @to. */
uint64_t emu_zones_next(struct emu_dev *d, uint64_t from, uint64_t to, uint8_t cond);
/* Zone state machine: return 0 or an NVMe status. */
uint16_t emu_zone_action(struct emu_dev *d, uint64_t idx, int action);
uint16_t emu_zone_action_all(struct emu_dev *d, int action);
uint16_t emu_zone_write(struct emu_dev *d, uint64_t slba, uint64_t nlb, bool append,
			uint64_t *out_lba);

/* emu-nvme.c */
int emu_nvme_ioctl(struct emu_dev *d, unsigned long req, void *arg);

/* emu-blk.c */
int emu_blk_ioctl(struct emu_dev *d, int fd_flags, unsigned long req, void *arg, bool *handled);

/* emu.c */
void emu_init_once(void);
void emu_lock(void);
void emu_unlock(void);

/* emu-record.c */
extern int emu_trace_fd;
/* Account a command; returns the fault to inject or NULL. */
const struct emu_fault *emu_cmd_begin(struct emu_dev *d, int cls, int opc);
void emu_cmd_record(struct emu_dev *d, const struct znpemu_cmd *c);
struct emu_dev *emu_dev_by_nsid(const struct emu_dev *d, uint32_t nsid);

/* NVMe status values used by the emulator (SCT << 8 | SC, DNR = 0x4000). */
#define NVME_SC_OK			0x0000
#define EMU_SC_INVALID_OPCODE		0x4001
#define EMU_SC_INVALID_FIELD		0x4002
#define EMU_SC_INVALID_NS		0x400b
#define EMU_SC_LBA_RANGE		0x4080
#define EMU_SC_ZONE_BOUNDARY		0x01b8
#define EMU_SC_ZONE_FULL		0x01b9
#define EMU_SC_ZONE_READ_ONLY		0x01ba
#define EMU_SC_ZONE_OFFLINE		0x01bb
#define EMU_SC_ZONE_INVALID_WRITE	0x01bc
#define EMU_SC_ZONE_TOO_MANY_ACTIVE	0x41bd
#define EMU_SC_ZONE_TOO_MANY_OPEN	0x41be
#define EMU_SC_ZONE_INVAL_TRANSITION	0x01bf

#endif
