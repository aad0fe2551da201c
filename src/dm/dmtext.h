/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dm-po2zone text formats, as pure functions (no I/O; fuzzed): table and
 * status lines of the target, the stable identity of a namespace, mapping
 * names and UUIDs, and the lines of the persistent mapping file.
 *
 * Table line (Documentation/admin-guide/device-mapper/dm-po2zone.rst):
 *   "0 <nr zones * po2 zone sectors> po2zone <dev>"
 * Status (STATUSTYPE_INFO): "<zone sectors> <po2 zone sectors> <nr zones>".
 */
#ifndef ZNP_DMTEXT_H
#define ZNP_DMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev.h"

/* Longest name a user may choose: room for the ZNP_DM_CREATING_PREFIX. */
#define ZNP_DM_USER_NAME_MAX	100
/* Every mapping made by this toolkit has a UUID starting with this. */
#define ZNP_DM_UUID_PREFIX	"ZNPO2-"
/* Name of a mapping while it is being created (see dm.c). */
#define ZNP_DM_CREATING_PREFIX	"znp-creating-"
#define ZNP_DM_TARGET_MAX	16
#define ZNP_DM_DEV_MAX		64

/* One target line of a table: "<start> <len> <target> <params>". */
struct znp_dm_table {
	uint64_t start;			/* sectors */
	uint64_t len;			/* sectors */
	char target[ZNP_DM_TARGET_MAX];
	char dev[ZNP_DM_DEV_MAX];	/* po2zone's only parameter */
};

/* dm-po2zone status (STATUSTYPE_INFO), in 512-byte sectors. */
struct znp_po2_status {
	uint64_t zone_sectors;		/* device zone size */
	uint64_t po2_zone_sectors;	/* mapped zone size */
	uint64_t nr_zones;
};

/* Is @name a dm-po2zone target name ("po2zone", or "po2zoned" of later series)? */
bool znp_dm_is_po2_target(const char *name);

/**
 * znp_dm_table_len() - length in sectors of the full-device po2 table
 * @g: geometry of the device (after znp_geom_init())
 * @len: the length (nr_zones * po2 zone size, in 512-byte sectors)
 *
 * Return: 0, -EINVAL when the LBA size is below 512 bytes, -EOVERFLOW when
 * the length does not fit 64 bits.
 */
int znp_dm_table_len(const struct znp_geom *g, uint64_t *len);

/**
 * znp_dm_table_format() - "<start> <len> <target> <dev>" into @buf
 * Return: 0, -EINVAL for an empty or space-containing target or device,
 * -ENAMETOOLONG when @buf is too small.
 */
int znp_dm_table_format(char *buf, size_t size, const struct znp_dm_table *t);

/**
 * znp_dm_table_parse() - parse one table line
 * @line: "<start> <len> <target> <params>" (dmsetup table) NUL-terminated
 * @t: the result; @t->dev holds the first parameter ("" when none)
 *
 * Numbers are decimal without sign. Fields are separated by spaces or tabs;
 * a trailing newline is allowed.
 * Return: 0, -EINVAL (malformed), -ERANGE (number too big), -ENAMETOOLONG
 * (a field longer than its buffer).
 */
int znp_dm_table_parse(const char *line, struct znp_dm_table *t);

/**
 * znp_dm_status_parse() - parse dm-po2zone's status parameters
 * @params: "<zone sectors> <po2 zone sectors> <nr zones>"
 *
 * Also checks the invariants the target guarantees: non-zero values, the
 * po2 zone size a power of 2, at least the zone size and smaller than twice
 * it. Return: 0, -EINVAL or -ERANGE.
 */
int znp_dm_status_parse(const char *params, struct znp_po2_status *s);

/**
 * znp_ident_from_ns() - stable identity of an NVMe namespace
 * @ns: identity from Identify (nguid, eui64, serial) and sysfs (nsid)
 * @buf: "nguid:<32 hex>", else "eui64:<16 hex>" when non-zero, else
 *       "sn:<serial>:nsid:<n>" with bytes of the serial outside
 *       [A-Za-z0-9._-] written as "=XX" (hex)
 *
 * Instance names (nvme0n1) are never part of it: they change between boots.
 * Return: 0, -ENODATA when the namespace has no identity at all (no NGUID,
 * no EUI-64, no serial), -ENAMETOOLONG.
 */
int znp_ident_from_ns(const struct znp_ns_info *ns, char *buf, size_t size);

/**
 * znp_ident_valid() - is @s an identity as znp_ident_from_ns() writes them?
 * (the check the config parser and mapping UUIDs rely on)
 */
bool znp_ident_valid(const char *s);

/*
 * Mapping names: 1 to ZNP_DM_USER_NAME_MAX characters from [A-Za-z0-9._+:@=#-],
 * not starting with '.' or '-' nor with ZNP_DM_CREATING_PREFIX.
 * Return: NULL when valid, else a static reason.
 */
const char *znp_dm_name_invalid(const char *name);

/**
 * znp_dm_default_name() - readable default mapping name
 * @ns: the namespace (NULL for a non-NVMe device)
 * @kname: kernel name of the device ("nullb0"), used when @ns is NULL
 *
 * "po2-<serial>-n<nsid>" for a namespace (serial characters outside the
 * name alphabet become '_'), "po2-<kname>" otherwise: stable across boots
 * for namespaces, where instance names are not.
 * Return: 0, -EINVAL or -ENAMETOOLONG.
 */
int znp_dm_default_name(const struct znp_ns_info *ns, const char *kname,
			char *buf, size_t size);

/* "ZNPO2-<ident>" Return: 0 or -ENAMETOOLONG / -EINVAL. */
int znp_dm_uuid(const char *ident, char *buf, size_t size);
/* Is @uuid one of ours? */
bool znp_dm_uuid_is_ours(const char *uuid);
/* The identity inside one of our UUIDs, or NULL. */
const char *znp_dm_uuid_ident(const char *uuid);
/* Is @name the temporary name of a mapping being created? */
bool znp_dm_name_is_creating(const char *name);

#endif
