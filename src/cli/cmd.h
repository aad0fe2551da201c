/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the command implementations (not by front-ends). */
#ifndef ZNP_CLI_CMD_H
#define ZNP_CLI_CMD_H

#include "cmdtab.h"
#include "exit.h"
#include "znp.h"

/**
 * znp_cli_open_dev() - open, check --namespace-id, probe
 * @flags: ZNP_OPEN_*, and ZNP_CLI_DEFER_CAP to leave the zone capacity to
 *         the first zone report (ZNP_PROBE_DEFER_CAP), ZNP_CLI_FULL_CAP to
 *         check every zone's capacity (znp_dev_scan_caps())
 * @need_zoned: a namespace that is not zoned is an error (exit 3)
 * @out: the probed device (dev->is_zoned false only when !@need_zoned)
 *
 * Prints the one-line error itself.
 * Return: 0 or the exit code.
 */
#define ZNP_CLI_DEFER_CAP	(1u << 16)
/* read every zone so that zone_cap_varies covers the whole device */
#define ZNP_CLI_FULL_CAP	(1u << 17)
int znp_cli_open_dev(const struct znp_cli *cli, const struct znp_opts *o,
		     unsigned int flags, bool need_zoned, struct znp_dev **out);

/**
 * znp_cli_open_report() - znp_cli_open_dev() for a zone walk from --start-lba
 * or --zone: a zoned namespace, capacity left to the first zone report, and
 * the first LBA inside the device (else exit 2).
 * @out: the probed device
 * @slba: out, the walk's first LBA (znp_cli_start_lba())
 *
 * Prints the one-line error itself.
 * Return: 0 or the exit code.
 */
int znp_cli_open_report(const struct znp_cli *cli, const struct znp_opts *o,
			struct znp_dev **out, uint64_t *slba);

/**
 * znp_cli_start_lba() - the first LBA the user named: --zone N's start
 * through the geometry, else --start-lba (0 when neither).
 * Return: 0, or exit 2 after one line (a zone past the last one).
 */
int znp_cli_start_lba(const struct znp_cli *cli, const struct znp_opts *o,
		      const struct znp_dev *dev, uint64_t *slba);

/* Report a failed library call on @subject; Return: its exit code. */
int znp_cli_fail(const struct znp_cli *cli, const char *subject,
		 const char *what, int ret);

/*
 * znp_cli_confirm() - ask on the terminal, never on stdin/stdout (those may
 * carry data or JSON): prints the question from @fmt (with what it costs:
 * "Data will be lost."), then " [y/N] ", on /dev/tty.
 * Return: 1 yes, 0 no, -1 no terminal to ask on (stdin is not a terminal).
 */
int znp_cli_confirm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * znp_cli_refused() - after znp_cli_confirm() returned @yes: unless it is 1,
 * one error line on @path ("@what destroys data: add --force ..." without a
 * terminal, "@what not confirmed; nothing sent" on no).
 * Return: 0 (go ahead) or ZNP_EXIT_REFUSED.
 */
int znp_cli_refused(const struct znp_cli *cli, const char *path, const char *what, int yes);

/*
 * znp_cli_claim() - the interlock of every command that writes zones or
 * data or changes a zone's state: the namespace @path is claimed
 * (znp_map_claim(): its lock, shared, until znp_map_unclaim()), so no
 * mapping starts serving it while the command runs. When a mapping (ublk or
 * dm) serves it, one error line naming the mapping, its device, and what to
 * use instead ("use @blkzone /dev/ublkb0, or unmap NAME first"; @blkzone
 * NULL: "unmap NAME first"); when a mapping of it is being made, one line
 * naming the process that holds its lock. --force does not pass it, a dry
 * run is refused alike.
 * Return: 0 (not served; *@claim held), ZNP_EXIT_REFUSED, or the exit code
 * of records or a state directory that cannot be read (one line too).
 */
int znp_cli_claim(const struct znp_cli *cli, const char *path, const char *what,
		  const char *blkzone, int *claim);

/* --queue-depth, when given, is 1 to ZNP_AIO_MAX_QD; Return: 0 or exit 2. */
int znp_cli_check_qd(const struct znp_cli *cli, const struct znp_opts *o);

#endif
