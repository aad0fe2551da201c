/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dm-po2zone mappings through libdevmapper: target detection, creation
 * (complete or not at all), removal, listing. Also the sysfs view of who
 * holds a block device, which works without device-mapper access.
 *
 * A mapping made by this toolkit has a UUID "ZNPO2-<identity>" (dmtext.h):
 * the kernel keeps UUIDs unique, so one namespace cannot be mapped twice,
 * and mappings that are not ours are recognisable. While it is being
 * created, a mapping is named ZNP_DM_CREATING_PREFIX<name>; it gets its
 * real name only once its table is live, so a process killed midway leaves
 * at most a "creating" device that znp_dm_remove_leftover() removes.
 */
#ifndef ZNP_DM_H
#define ZNP_DM_H

#include <stdbool.h>
#include <stdint.h>

#include "dev.h"
#include "dmtext.h"

struct znp_dm_info {
	char name[ZNP_DM_NAME_MAX];
	char uuid[ZNP_DM_UUID_MAX];	/* "" when none */
	uint32_t major, minor;
	int32_t open_count;
	bool suspended;
	bool live_table;
	unsigned int nr_targets;	/* of the live table */
	struct znp_dm_table table;	/* first target; valid when nr_targets */
	bool has_status;		/* po2 target with a parsed status */
	struct znp_po2_status status;
};

/**
 * znp_dm_target_find() - look for the po2 target in the kernel's target list
 * @name: the target name found ("po2zone" or "po2zoned")
 * @version: its version
 *
 * The list comes from DM_DEVICE_LIST_VERSIONS: only targets that are built
 * in or loaded are listed (nothing is guessed from kernel versions).
 * Return: 0, -ENODEV when device-mapper itself is unusable (no kernel
 * support or no access to its control node), -EOPNOTSUPP when the kernel
 * has device-mapper but no po2 target.
 */
int znp_dm_target_find(char *name, size_t size, uint32_t version[3]);

/**
 * znp_dm_get() - information, table and status of a device by name
 * Return: 0, -ENXIO when there is no such device, -ENODEV (no
 * device-mapper), or another -errno.
 */
int znp_dm_get(const char *name, struct znp_dm_info *info);

/**
 * znp_dm_find_uuid() - the device with UUID @uuid
 * Return: 0, -ENXIO when none, or another -errno.
 */
int znp_dm_find_uuid(const char *uuid, struct znp_dm_info *info);

/**
 * znp_dm_list() - call @cb for every device-mapper device
 * @cb: a non-zero return stops the walk and is returned; NULL only checks
 *      that device-mapper can be used
 * Return: 0, -ENODEV (no device-mapper), another -errno, or @cb's value.
 */
int znp_dm_list(int (*cb)(const struct znp_dm_info *info, void *arg), void *arg);

/* Steps of znp_dm_create(), in order. */
enum znp_dm_step {
	ZNP_DM_STEP_CREATE = 1,	/* create the device under its temporary name */
	ZNP_DM_STEP_LOAD,	/* load the table */
	ZNP_DM_STEP_RESUME,	/* make the table live */
	ZNP_DM_STEP_RENAME,	/* give it its real name */
	ZNP_DM_STEP_NR,
};

struct znp_dm_create_req {
	const char *name;		/* final name (validated by the caller) */
	const char *uuid;		/* ZNP_DM_UUID_PREFIX... */
	struct znp_dm_table table;
	/* further targets after @table, in table order (a concatenation) */
	const struct znp_dm_table *more;
	unsigned int nr_more;
	/* called before each step; a non-zero return aborts with that error */
	int (*before_step)(enum znp_dm_step step, void *arg);
	void *arg;
};

/**
 * znp_dm_create() - create a mapping completely or not at all
 * @req: name, UUID, table and an optional step hook
 * @info: the created device
 *
 * Creates the device under a temporary name, loads and resumes the table,
 * then renames it; on any failure, removes what was created. Waits for udev
 * where udev runs; where it does not, libdevmapper creates the
 * /dev/mapper node itself, and a missing node is created at the end.
 * Return: 0, -EEXIST (name or UUID taken), -ENODEV, or another -errno; the
 * kernel's reason is in znp_dm_last_error().
 */
int znp_dm_create(const struct znp_dm_create_req *req, struct znp_dm_info *info);

/**
 * znp_dm_remove() - remove a device
 * @deferred: when it is open, let the kernel remove it at the last close
 * Return: 0, 1 when the removal was deferred, -EBUSY when open and not
 * @deferred, -ENXIO when it does not exist, or another -errno.
 */
int znp_dm_remove(const char *name, bool deferred);

/**
 * znp_dm_remove_leftover() - remove the device with UUID @uuid if it is a
 * mapping whose creation was interrupted (temporary name)
 * @name: set to the leftover's name when one was removed (may be NULL)
 * Return: 1 removed, 0 nothing to do, or -errno.
 */
int znp_dm_remove_leftover(const char *uuid, char *name, size_t size);

/* The last message libdevmapper logged as an error in this thread ("" if none). */
const char *znp_dm_last_error(void);

/**
 * znp_blk_po2_holder() - our mapping on top of @blk, from sysfs
 * @h: the first holder whose UUID is ours
 * Return: 1 found, 0 none.
 */
int znp_blk_po2_holder(const struct znp_env *env, const char *blk, struct znp_holder *h);

#endif
