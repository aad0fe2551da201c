/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared inside map/ only. */
#ifndef ZNP_MAP_PRIV_H
#define ZNP_MAP_PRIV_H

#include "map.h"

/*
 * The block device @kname (@backing) is neither held nor mapped, no
 * device has @uuid (a leftover of an interrupted map is removed: its name
 * in @leftover). Return: 0, 1 (mapped by us already), or a negative errno with @e.
 */
int znp_map_dm_check_free(const struct znp_map_ctx *c, const char *kname, const char *uuid,
			  const char *backing, bool dm_usable, char *leftover, size_t lsize,
			  struct znp_map_err *e);

/* One line through @h->say (for stderr and the system log), if @h has one. */
void znp_map_ublk_say(const struct znp_map_ublk_hooks *h, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The namespace's lock is held where a mapping wants it exclusive: one line
 * naming the holder (a server starting, a dm mapping being made, a command
 * with a claim). Return: -EBUSY with @e.
 */
int znp_map_lock_busy(const struct znp_map_ctx *c, int dirfd, const char *ident,
		      struct znp_map_err *e);

/*
 * The namespace @ident's lock taken exclusive while a dm mapping of it is
 * made (no claim, no server beside it). Return: 0 (*@lockfd, -1 for a device
 * without @ident) or a negative errno with @e.
 */
int znp_map_lock_ns(const struct znp_map_ctx *c, const char *ident, int *lockfd,
		    struct znp_map_err *e);

/*
 * export --persist: the export file of mapping @name in @path
 * (<conf_dir>/export-<name as systemd-escape writes it>.conf), after
 * checking that @r's values (if @r) can be recorded as one word each.
 * Return: 1 a regular file is there, 0 none, or a negative errno with @e
 * (a symbolic link or another file type at its name: ZNP_MAP_REFUSED).
 */
int znp_map_export_conf(const struct znp_map_ctx *c, const char *name,
			const struct znp_map_export_req *r, char *path, size_t size,
			struct znp_map_err *e);

/* Replace @path atomically (0644) with @r as ZNP_EXPORT_ARGS. Return: 0 or -errno with @e. */
int znp_map_export_conf_write(const char *path, const struct znp_map_export_req *r,
			      struct znp_map_err *e);

/* Remove @path (absent: done). Return: 0 or a negative errno with @e. */
int znp_map_export_conf_remove(const char *path, struct znp_map_err *e);

#endif
