/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The persistent mapping file (default ZNP_DMCONF_PATH): one line per
 * mapping to restore at boot, keyed by the namespace's stable identity
 * (format and parser in dmtext.h). Updates are atomic (znp_file_replace():
 * an O_EXCL | O_NOFOLLOW temporary, fsync, rename, fsync of the directory)
 * and serialised with the mappings lock, <file>.lock next to it (mode 0600:
 * only its owner can flock() it), waited for ZNP_DMCONF_LOCK_MS at most.
 */
#ifndef ZNP_DMCONF_H
#define ZNP_DMCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "dmtext.h"

#define ZNP_DMCONF_PATH "/etc/zns-npo2/mappings.conf"
#define ZNP_DMCONF_LOCK_MS	5000

/**
 * znp_dmconf_read() - read the whole file
 * @buf: malloc()ed contents (free() it); NUL-terminated, *@len bytes
 * Return: 0, -ENOENT when there is no file, -EFBIG above 1 MiB, or -errno.
 */
int znp_dmconf_read(const char *path, char **buf, size_t *len);

/**
 * znp_dmconf_put() - record @e, replacing the entry with its name or identity
 * Creates the file (and its directory) when missing; other lines, comments
 * and lines that do not parse are kept as they are.
 * Return: 0, -EBUSY (the lock stayed held: znp_dmconf_lock_holder()), or -errno.
 */
int znp_dmconf_put(const char *path, const struct znp_dmconf_entry *e);

/**
 * znp_dmconf_drop() - forget the entry with identity @ident (or, when @ident
 * is NULL, name @name)
 * Return: 1 removed, 0 not recorded (file untouched), or -errno.
 */
int znp_dmconf_drop(const char *path, const char *ident, const char *name);

/* The pid holding the mappings lock of @path, 0 if none is listed, or -errno. */
pid_t znp_dmconf_lock_holder(const char *path);

#endif
