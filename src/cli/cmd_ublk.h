/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ublk mappings in the commands: the route check of `check`, MAPPED-AS of
 * `list`, the ublk rows of `status`, `unmap` of a ublk mapping (cmd_ublk.c).
 */
#ifndef ZNP_CLI_CMD_UBLK_H
#define ZNP_CLI_CMD_UBLK_H

#include "cmdtab.h"
#include "svc.h"

/*
 * The ublk route of the running kernel. In a test tree (ZNP_SYSFS_ROOT or
 * ZNP_DEV_ROOT set) the control node is looked up there and installed
 * modules are not looked at.
 */
void znp_cli_ublk_route(const struct znp_cli *cli, struct znp_ublk_route_info *out);

/* The state directory: $ZNP_RUN_DIR (tests) or ZNP_RUN_DIR. */
const char *znp_cli_run_dir(void);

/*
 * "ublkbN" when namespace @ns is served through ublk (a record whose device
 * exists), else NULL.
 */
const char *znp_cli_ublk_mapped_as(const struct znp_cli *cli, const struct znp_ns_info *ns,
				   char *buf, size_t size);

/*
 * Print a status row for every ublk mapping, or only the one @arg names
 * (ublkbN, /dev/ublkbN, its name, its namespace's ng or block node).
 * With @p NULL, count the records instead (quietly).
 * Return: rows printed, -ENOENT when @arg names no ublk mapping, or another
 * -errno when the records cannot be read (reported in one line).
 */
int znp_cli_ublk_status(const struct znp_cli *cli, struct znp_print *p, const char *arg);

/*
 * Does @arg name a ublk mapping (as above)? Return: 1 yes, 0 no (no such
 * record; no state directory, or one others can write to), or -errno when
 * the records cannot be listed (ENOMEM, EACCES; reported in one line): a
 * failure, not "no such mapping".
 */
int znp_cli_ublk_names(const struct znp_cli *cli, const char *arg);

/* map --ublk (cmd_ublkmap.c). Return: exit code (in the daemon: when it stops). */
int znp_cmd_map_ublk(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p);

/**
 * znp_cli_ublk_restore() - `map --restore` of a ublk entry
 * @name: the entry's mapping name; @ng: its namespace's ng node, found by identity
 * @result: "mapped", "started" (by systemd, zns-npo2-ublk@NAME.service),
 *          "already-mapped", "would-map" (dry run) or "failed"
 * @err: why, on failure
 * Return: exit code.
 */
int znp_cli_ublk_restore(const struct znp_cli *cli, const struct znp_opts *o, const char *name,
			 const char *ng, const char **result, char *err, size_t size);

/* unmap of the ublk mapping @o->args[0] names. Return: exit code. */
int znp_cli_ublk_unmap(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p);

#endif
