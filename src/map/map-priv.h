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

#endif
