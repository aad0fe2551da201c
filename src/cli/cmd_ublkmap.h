/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map --ublk: cmd_ublkmap.c (the command) and cmd_ublkmap_daemon.c (the
 * daemon fork, logging and refusals), which the command calls, one way.
 */
#ifndef ZNP_CLI_CMD_UBLKMAP_H
#define ZNP_CLI_CMD_UBLKMAP_H

#include <stdbool.h>

#include "cmdtab.h"
#include "map.h"
#include "print.h"

struct ublkmap {
	const struct znp_cli *cli;
	const struct znp_opts *o;
	struct znp_print *p;
	struct znp_map_ctx c;
	struct znp_map_ublk u;		/* the library's served namespace */
	struct znp_map_ublk_view v;	/* what is printed */
	bool daemon;			/* child of the fork: stderr is gone */
	bool journal;			/* stderr is the journal (systemd): syslog is enough */
	int report_fd;			/* pipe to the waiting parent, -1 none */
};

/*
 * One line to syslog, and to stderr unless we are the daemon or stderr is the
 * journal syslog writes to (struct znp_map_ublk_hooks).
 */
void znp_ublkmap_say(void *arg, int prio, bool log_only, const char *msg);
/* A refusal: logged with its reason, then passed to the parent. */
void znp_ublkmap_refused(void *arg, struct znp_map_err *e);
/* znp_ublkmap_refused() unless told already. Return: the exit code. */
int znp_ublkmap_refuse(struct ublkmap *m, struct znp_map_err *e);

/*
 * Lock, driver, recovery (the library), then serve in the foreground or
 * fork the daemon and wait until its device is live (and, with --persist,
 * recorded). Return: exit code (in the daemon it does not return).
 */
int znp_ublkmap_start(struct ublkmap *m);

#endif
