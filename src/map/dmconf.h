/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The persistent mapping file (default ZNP_DMCONF_PATH) of both routes: one
 * line per mapping to restore at boot, keyed by the namespace's stable
 * identity (the pure parser and formatter: dmconf-text.c). Updates are atomic (znp_file_replace():
 * an O_EXCL | O_NOFOLLOW temporary, fsync, rename, fsync of the directory)
 * and serialised with the mappings lock, <file>.lock next to it (mode 0600:
 * only its owner can flock() it), waited for ZNP_DMCONF_LOCK_MS at most.
 */
#ifndef ZNP_DMCONF_H
#define ZNP_DMCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "dm.h"

#define ZNP_DMCONF_PATH "/etc/zns-npo2/mappings.conf"
#define ZNP_DMCONF_LOCK_MS	5000

/* One line of the mapping file: "<name> <identity> [key=value]...". */
struct znp_dmconf_entry {
	char name[ZNP_DM_NAME_MAX];
	char ident[ZNP_IDENT_MAX];
	/* recorded geometry, checked before restoring; 0 = not recorded */
	uint32_t lba_size;
	uint64_t zone_size;		/* LBAs */
	uint64_t nr_zones;
	bool ublk;			/* "via=ublk": served by a ublk server (map --ublk) */
};

/**
 * znp_dmconf_parse_line() - parse one line of the mapping file
 * @line: the line, without its newline (need not be NUL-terminated)
 * @len: its length
 * @e: the entry (valid when 1 is returned)
 * @why: on -EINVAL, a static reason
 *
 * Blank lines and lines whose first non-blank character is '#' hold no
 * entry. Keys: lba_size, zone_size, nr_zones (decimal, each at most once).
 * Return: 1 (entry), 0 (no entry) or -EINVAL.
 */
int znp_dmconf_parse_line(const char *line, size_t len, struct znp_dmconf_entry *e,
			  const char **why);

/**
 * znp_dmconf_parse() - parse a whole mapping file
 * @buf: its contents (need not be NUL-terminated; NUL bytes are errors)
 * @cb: called for every entry and every bad line (@e NULL, @why set) with
 *      the 1-based line number; a non-zero return stops and is returned
 *
 * Duplicate names or identities are reported as bad lines (the first wins).
 * Return: 0, -ENOMEM, or what @cb returned.
 */
int znp_dmconf_parse(const char *buf, size_t len,
		     int (*cb)(unsigned int lineno, const struct znp_dmconf_entry *e,
			       const char *why, void *arg),
		     void *arg);

/* The line for @e, with a newline. Return: 0, -EINVAL or -ENAMETOOLONG. */
int znp_dmconf_format(char *buf, size_t size, const struct znp_dmconf_entry *e);

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
 * Return: 1 removed, 0 not recorded (no such entry, or no file: untouched),
 * or -errno (the entry may still be there: a rewrite that failed leaves the
 * file as it was).
 */
int znp_dmconf_drop(const char *path, const char *ident, const char *name);

/* The pid holding the mappings lock of @path, 0 if none is listed, or -errno. */
pid_t znp_dmconf_lock_holder(const char *path);

#endif
