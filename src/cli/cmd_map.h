/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by cmd_map.c (map), cmd_map_restore.c (map --restore) and
 * cmd_unmap.c (unmap, status).
 */
#ifndef ZNP_CLI_CMD_MAP_H
#define ZNP_CLI_CMD_MAP_H

#include <stdbool.h>

#include "cmdtab.h"
#include "opts.h"

#define MAP_ALREADY	(-1)		/* znp_map_dev(): mapped already, by us, as asked */

struct map_ctx {
	const struct znp_cli *cli;
	const struct znp_opts *o;
	struct znp_print *p;
	const char *name;		/* NULL: default name */
	bool persist;
	bool quiet;			/* restore: no map view */
	char err[320];			/* why znp_map_dev() failed */
};

/* The mapping file: --config, else ZNP_DMCONF_PATH. */
const char *znp_map_config(const struct znp_opts *o);

/*
 * Map an opened, probed device: plan (name, UUID, table), check, apply.
 * Return: 0, MAP_ALREADY (mapped by us with this identity), or an exit
 * code with m->err set.
 */
int znp_map_dev(struct map_ctx *m, struct znp_dev *dev);

/* Set m->err from @fmt. Return: @code. */
int znp_map_fail(struct map_ctx *m, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The exit code and m->err for a failed znp_dm_target_find(). */
int znp_map_target_error(struct map_ctx *m, int ret);

/* map --restore */
int znp_map_restore(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p);

/*
 * For map of several devices (cmd_mapcat.c), each returning 0 or an exit
 * code with m->err set: @dev is what check calls mappable (with whole
 * zones only); @backing (kernel name @kname) is neither held, mapped nor
 * open, and no device has @uuid.
 */
int znp_map_check_dev(struct map_ctx *m, const struct znp_dev *dev);
int znp_map_check_free(struct map_ctx *m, const char *kname, const char *uuid,
		       const char *backing, bool dm_usable);

/* map DEV1 DEV2...: one mapping concatenating the devices (cmd_mapcat.c) */
int znp_map_concat(const struct znp_cli *cli, const struct znp_opts *o,
		   struct znp_print *p);

#endif
