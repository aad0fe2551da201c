/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map --ublk, shared by cmd_ublkmap.c (arguments, the mapping file, the
 * command), cmd_ublkmap_refuse.c (what cannot be served, the driver) and
 * cmd_ublkmap_serve.c (lock, recovery, daemon, the server's life).
 */
#ifndef ZNP_CLI_CMD_UBLKMAP_H
#define ZNP_CLI_CMD_UBLKMAP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "cmdtab.h"
#include "print.h"
#include "svc.h"
#include "ublk.h"

struct umap {
	const struct znp_cli *cli;
	const struct znp_opts *o;
	struct znp_print *p;
	bool daemon;			/* child of the fork: stderr is gone */
	int report_fd;			/* pipe to the waiting parent, -1 none */
	bool hold_err;			/* the server library's errors wait for the one line */
	char lib_err[400];		/* ... the first of them */
};

struct serve {
	struct umap *m;
	struct znp_dev *dev;
	const struct znp_ublk_geom *g;
	struct znp_map_ublk_view v;
	struct znp_ublk_rec rec;
	int dirfd;
	bool live;
	int undo;			/* --persist failed once live: the exit code */
	char config[PATH_MAX];		/* --persist: the mapping file, absolute (the
					 * daemon records it after chdir("/")) */
};

/* One line to syslog, and to stderr unless we are the daemon. */
void umap_say(struct umap *m, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A refusal: logged with its reason, then passed to the parent. Return: @code. */
int umap_refuse(struct umap *m, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * umap_check_dev() - refuse what cannot be served, before anything changes:
 * not NVMe, a check verdict other than needs-kernel-patches (mappable only
 * with --force-ublk), a geometry ublk cannot carry, no stable identity.
 * @g: out, the ublk geometry
 * @ident: out, the namespace identity (@size bytes)
 * Return: 0 or the exit code (refused through umap_refuse()).
 */
int umap_check_dev(struct umap *m, struct znp_dev *dev, struct znp_ublk_geom *g,
		   char *ident, size_t size);

/* The ublk driver, loaded when missing. Return: 0 or the exit code (refused). */
int umap_need_driver(struct umap *m);

/*
 * umap_persist() - --persist: record the mapping in s->config, called by the
 * serving process once the device is live (lock, create, record; the
 * caller undoes the device when this fails).
 * Return: 0 or the exit code (refused through umap_refuse()).
 */
int umap_persist(struct serve *s);

/*
 * umap_start() - lock the namespace, check the driver, decide on recovery,
 * then serve in the foreground or fork the daemon and wait until its
 * device is live (and, with --persist, recorded).
 * Return: exit code (in the daemon it does not return).
 */
int umap_start(struct serve *s);

#endif
