/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The mapping commands (map, map --ublk, map --restore, unmap, status) over
 * the library's mapping room (src/map/map.h): what they share.
 */
#ifndef ZNP_CLI_CMD_MAP_H
#define ZNP_CLI_CMD_MAP_H

#include <stdbool.h>

#include "cmdtab.h"
#include "map.h"
#include "opts.h"
#include "print.h"

/* The mapping file: --config, else ZNP_DMCONF_PATH. */
const char *znp_cli_map_config(const struct znp_opts *o);

/* The ublk state directory: $ZNP_RUN_DIR (tests) or ZNP_RUN_DIR. */
const char *znp_cli_run_dir(void);

/* The library's view of the command line and the environment (@o may be NULL). */
void znp_cli_map_ctx(const struct znp_cli *cli, const struct znp_opts *o, struct znp_map_ctx *c);

/* The exit code of a failed step. */
int znp_cli_map_exit(const struct znp_cli *cli, const struct znp_map_err *e);

/* One error line on e->subject, else @subject. Return: the exit code. */
int znp_cli_map_fail(const struct znp_cli *cli, const char *subject, const struct znp_map_err *e);

/* map --restore (cmd_map_restore.c) */
int znp_map_restore(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p);

/* map DEV1 DEV2...: one mapping concatenating the devices (cmd_mapcat.c) */
int znp_map_concat(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p);

/* map --ublk (cmd_ublkmap.c). Return: exit code (in the daemon: when it stops). */
int znp_cmd_map_ublk(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p);

/*
 * `map --restore` of a ublk entry (cmd_ublk.c): start its server.
 * @result: "mapped", "started" (by systemd, zns-npo2-ublk@NAME.service),
 * "already-mapped", "would-map" (dry run) or "failed"; @err: why, on failure.
 * Return: exit code.
 */
int znp_cli_ublk_restore(const struct znp_cli *cli, const struct znp_opts *o, const char *name,
			 const char *ng, const char **result, char *err, size_t size);

/* One status row of a ublk mapping (cmd_ublk.c). */
void znp_cli_ublk_status_row(struct znp_print *p, const struct znp_map_ublk_found *f);

#endif
