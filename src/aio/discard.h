/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Discards: device classification and safety (as blkdiscard: O_EXCL,
 * refusal of mounted or held devices), range lists, validation before
 * anything is sent, and the plan handed to the async engine.
 *
 * Targets:
 *  - any block device: BLOCK_URING_CMD_DISCARD, fallback BLKDISCARD;
 *  - NVMe generic char device (ngXnY) of a conventional namespace:
 *    Dataset Management (deallocate) through NVMe passthrough;
 *  - zoned namespace / zoned block device: only whole zones, which are
 *    reset instead (discarding part of a sequential zone means nothing).
 */
#ifndef ZNP_DISCARD_H
#define ZNP_DISCARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "async.h"
#include "dev.h"

enum znp_discard_type {
	ZNP_DT_BLOCK,		/* block device, not zoned */
	ZNP_DT_NVME_CONV,	/* NVMe namespace, conventional: DSM */
	ZNP_DT_ZONED,		/* zoned: whole zones become zone resets */
};

struct znp_discard_target {
	enum znp_discard_type type;
	int fd;
	char path[256];
	uint32_t lba_size;	/* logical block size, bytes */
	uint64_t size;		/* bytes */
	uint64_t granularity;	/* discard granularity, bytes (>= lba_size) */
	struct znp_dev *dev;	/* the open device (kind ZNP_DEV_BLOCK for ZNP_DT_BLOCK) */
};

#define ZNP_DISCARD_OPEN_EXCL	(1u << 0)	/* O_EXCL; refuse mounted/held */
#define ZNP_DISCARD_OPEN_RDONLY	(1u << 1)	/* dry run: open read-only */

/**
 * znp_discard_open() - open and classify a discard target
 * @env: sysfs/dev roots (may be NULL)
 * @path: device path
 * @flags: ZNP_DISCARD_OPEN_*
 * @out: the target, free with znp_discard_close()
 * @why: on failure, a static one-line reason without the device name
 *
 * Opens through znp_dev_open() (ZNP_OPEN_ANY_BLOCK; ZNP_OPEN_EXCL with
 * ZNP_DISCARD_OPEN_EXCL): the exclusive descriptor is held until
 * znp_discard_close(), as blkdiscard does.
 * Return: 0; -ENOENT missing; -ENOTBLK not a block or char device (e.g. a
 * regular file); -ENODEV a char device that is not an NVMe namespace;
 * -EISDIR an NVMe controller node; -EBUSY mounted or held (with
 * ZNP_DISCARD_OPEN_EXCL); -EROFS read-only device; -EOPNOTSUPP the device
 * does not support discard; other -errno.
 */
int znp_discard_open(const struct znp_env *env, const char *path,
		     unsigned int flags, struct znp_discard_target **out,
		     const char **why);
void znp_discard_close(struct znp_discard_target *t);

/* A growable list of byte ranges (start, len in bytes). */
struct znp_range_list {
	struct znp_aio_range *r;
	size_t nr, cap;
};

int znp_range_list_add(struct znp_range_list *l, uint64_t start, uint64_t len);
void znp_range_list_free(struct znp_range_list *l);

/* A number parser: 0 or -EINVAL/-ERANGE with *why set (the CLI's znp_parse_u64). */
typedef int (*znp_num_parse_fn)(const char *s, uint64_t *v, const char **why);

/**
 * znp_range_list_read() - read ranges, one per line: "OFFSET LENGTH"
 * (separated by blanks or a comma), blank lines and '#' comments ignored
 * @f: the stream
 * @parse: parses each number (so that files and options share one grammar)
 * @l: ranges are appended (raw numbers: the caller scales LBA units)
 * @line: out, the offending line number on error
 * @why: out, on -EINVAL/-ERANGE: what is wrong with the line
 * Return: 0, -EINVAL / -ERANGE (syntax), -ENOMEM, -EIO (read error).
 */
int znp_range_list_read(FILE *f, znp_num_parse_fn parse, struct znp_range_list *l,
			size_t *line, const char **why);

/**
 * znp_discard_validate() - check byte ranges against the target; sends
 * nothing
 * @bad: out, index of the offending range
 * @why: out, static text: "length is zero", "not a multiple of the
 *       logical block size", "not aligned to the discard granularity",
 *       "past the end of the device", "overlaps another range",
 *       "covers only part of a zone (discard of sequential zones is
 *       meaningless: give whole zones, which are reset)"
 * Return: 0 or -EINVAL; for ZNP_DT_ZONED also -EINVAL for partial zones.
 */
int znp_discard_validate(const struct znp_discard_target *t,
			 const struct znp_aio_range *r, size_t nr, size_t *bad,
			 const char **why);

/**
 * znp_discard_plan() - turn validated byte ranges into engine commands
 * @t: the target
 * @r, @nr: validated byte ranges
 * @job: out; kind, fd, nsid, lba_size, ranges and nr set (the caller sets
 *       qd, stop, progress, force_sync); job->ranges is allocated: free it
 *       with znp_discard_plan_free()
 *
 * Block targets keep the byte ranges; NVMe conventional namespaces get LBA
 * ranges split at the DSM range limit; zoned targets get LBA ranges of
 * whole zones (kind ZNP_AIO_NVME_ZONE_MGMT, action reset) to be run with
 * znp_zone_mgmt_ranges(), not znp_aio_run().
 * Return: 0, -ENOMEM.
 */
int znp_discard_plan(const struct znp_discard_target *t,
		     const struct znp_aio_range *r, size_t nr,
		     struct znp_aio_job *job);
void znp_discard_plan_free(struct znp_aio_job *job);

/* "block", "nvme-conventional", "zoned" */
const char *znp_discard_type_name(enum znp_discard_type t);

#endif
