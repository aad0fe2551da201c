/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by cmd_map.c (map) and cmd_unmap.c (unmap, status). */
#ifndef ZNP_CLI_CMD_MAP_H
#define ZNP_CLI_CMD_MAP_H

#include <stdbool.h>

#include "opts.h"

/* The mapping file: --config, else ZNP_DMCONF_PATH. */
const char *znp_map_config(const struct znp_opts *o);

struct znp_cli;
struct znp_dev;
struct znp_print;

/* State of one map command; err says why it failed. */
struct map_ctx {
	const struct znp_cli *cli;
	const struct znp_opts *o;
	struct znp_print *p;
	const char *name;		/* NULL: default name */
	bool persist;
	bool quiet;			/* restore: no map view */
	char err[320];			/* why map_dev() failed */
};

/*
 * For map of several devices (cmd_mapcat.c), each returning 0 or an exit
 * code with m->err set: @dev is what check calls mappable (with whole
 * zones only); the error for a failed znp_dm_target_find(); @backing (kernel
 * name @kname) is neither held, mapped nor open, and no device has @uuid.
 */
int znp_map_check_dev(struct map_ctx *m, const struct znp_dev *dev);
int znp_map_target_error(struct map_ctx *m, int ret);
int znp_map_check_free(struct map_ctx *m, const char *kname, const char *uuid,
		       const char *backing, bool dm_usable);

/* map DEV1 DEV2...: one mapping concatenating the devices (cmd_mapcat.c) */
int znp_map_concat(const struct znp_cli *cli, const struct znp_opts *o,
		   struct znp_print *p);

#endif
