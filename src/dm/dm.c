// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dm-po2zone mappings through libdevmapper. libdevmapper's own logging is
 * captured (the library never prints): the last error is kept for the
 * command layer to show.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdevmapper.h>

#include "dm.h"
#include "core.h"

#define DM_LOG_LEVEL_MASK	0x0f	/* libdevmapper's level without its flag bits */
#define DM_LOG_ERR		3

static __thread char last_error[256];

__attribute__((format(printf, 5, 6)))
static void dm_log_capture(int level, const char *file, int line, int dm_errno_or_class,
			   const char *fmt, ...)
{
	va_list ap;

	if ((level & DM_LOG_LEVEL_MASK) > DM_LOG_ERR)
		return;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}

const char *znp_dm_last_error(void)
{
	return last_error;
}

static void dm_setup(void)
{
	last_error[0] = '\0';
	dm_log_with_errno_init(dm_log_capture);
}

/* errno of a failed task; -ENODEV when the control node is unusable. */
static int task_errno(struct dm_task *dmt)
{
	int err = dmt ? dm_task_get_errno(dmt) : 0;

	if (err == ENOENT || err == ENXIO)
		return -ENXIO;
	if (err > 0)
		return -err;
	/* libdevmapper failed before any ioctl: no device-mapper here */
	if (!dmt || access("/dev/mapper/control", R_OK | W_OK))
		return -ENODEV;
	return -EIO;
}

static struct dm_task *task_new(int type, const char *name)
{
	struct dm_task *dmt = dm_task_create(type);

	if (dmt && name && !dm_task_set_name(dmt, name)) {
		dm_task_destroy(dmt);
		return NULL;
	}
	return dmt;
}

int znp_dm_target_find(char *name, size_t size, uint32_t version[3])
{
	struct dm_versions *v, *last = NULL;
	struct dm_task *dmt;
	int ret = -EOPNOTSUPP;

	dm_setup();
	dmt = task_new(DM_DEVICE_LIST_VERSIONS, NULL);
	if (!dmt)
		return -ENODEV;
	if (!dm_task_run(dmt)) {
		ret = task_errno(dmt);
		if (ret == -ENXIO || ret == -EIO)
			ret = -ENODEV;
		goto out;
	}
	v = dm_task_get_versions(dmt);
	while (v && v != last) {
		if (znp_dm_is_po2_target(v->name)) {
			if (znp_strlcpy(name, v->name, size)) {
				ret = -ENAMETOOLONG;
				goto out;
			}
			memcpy(version, v->version, sizeof(v->version));
			ret = 0;
			goto out;
		}
		last = v;
		v = (struct dm_versions *)((char *)v + v->next);
	}
out:
	dm_task_destroy(dmt);
	return ret;
}

/* First target of the live table (DM_DEVICE_TABLE) or its status. */
static int first_target(int type, const char *name, char *target, size_t tsize,
			char *params, size_t psize, uint64_t *start, uint64_t *len,
			unsigned int *nr)
{
	char *ttype = NULL, *tparams = NULL;
	uint64_t s, l;
	struct dm_task *dmt;
	void *next = NULL;
	int ret = 0;

	*nr = 0;
	dmt = task_new(type, name);
	if (!dmt)
		return -ENOMEM;
	if (!dm_task_no_open_count(dmt) || !dm_task_run(dmt)) {
		ret = task_errno(dmt);
		goto out;
	}
	do {
		next = dm_get_next_target(dmt, next, &s, &l, &ttype, &tparams);
		if (!ttype)
			break;
		if (!(*nr)++) {
			*start = s;
			*len = l;
			znp_strlcpy(target, ttype, tsize);
			if (znp_strlcpy(params, tparams ? tparams : "", psize))
				params[0] = '\0';
		}
	} while (next);
out:
	dm_task_destroy(dmt);
	return ret;
}

static void fill_table(const char *name, struct znp_dm_info *info)
{
	char target[ZNP_DM_TARGET_MAX], params[512], line[700];
	uint64_t start = 0, len = 0;
	unsigned int nr;

	if (first_target(DM_DEVICE_TABLE, name, target, sizeof(target), params,
			 sizeof(params), &start, &len, &nr) || !nr)
		return;
	info->nr_targets = nr;
	snprintf(line, sizeof(line), "%llu %llu %s %s", (unsigned long long)start,
		 (unsigned long long)len, target, params);
	if (znp_dm_table_parse(line, &info->table)) {
		/* not parseable as ours: keep what identifies it */
		memset(&info->table, 0, sizeof(info->table));
		info->table.start = start;
		info->table.len = len;
		znp_strlcpy(info->table.target, target, sizeof(info->table.target));
	}
	if (nr != 1 || !znp_dm_is_po2_target(target))
		return;
	if (first_target(DM_DEVICE_STATUS, name, target, sizeof(target), params,
			 sizeof(params), &start, &len, &nr) || !nr)
		return;
	info->has_status = !znp_dm_status_parse(params, &info->status);
}

int znp_dm_get(const char *name, struct znp_dm_info *info)
{
	struct dm_info di;
	struct dm_task *dmt;
	const char *s;
	int ret = 0;

	dm_setup();
	memset(info, 0, sizeof(*info));
	dmt = task_new(DM_DEVICE_INFO, name);
	if (!dmt)
		return strlen(name) >= ZNP_DM_NAME_MAX ? -ENXIO : -ENODEV;
	if (!dm_task_run(dmt) || !dm_task_get_info(dmt, &di)) {
		ret = task_errno(dmt);
		goto out;
	}
	if (!di.exists) {
		ret = -ENXIO;
		goto out;
	}
	znp_strlcpy(info->name, name, sizeof(info->name));
	s = dm_task_get_uuid(dmt);
	znp_strlcpy(info->uuid, s ? s : "", sizeof(info->uuid));
	info->major = di.major;
	info->minor = di.minor;
	info->open_count = di.open_count;
	info->suspended = di.suspended;
	info->live_table = di.live_table;
	if (di.live_table)
		fill_table(name, info);
out:
	dm_task_destroy(dmt);
	return ret;
}

int znp_dm_list(int (*cb)(const struct znp_dm_info *info, void *arg), void *arg)
{
	struct dm_names *n;
	struct dm_task *dmt;
	struct znp_dm_info info;
	unsigned int next = 0;
	int ret = 0;

	dm_setup();
	dmt = task_new(DM_DEVICE_LIST, NULL);
	if (!dmt)
		return -ENODEV;
	if (!dm_task_run(dmt)) {
		ret = task_errno(dmt);
		if (ret == -ENXIO)
			ret = -ENODEV;
		goto out;
	}
	n = dm_task_get_names(dmt);
	if (!n || !n->dev)
		goto out;	/* no devices */
	do {
		n = (struct dm_names *)((char *)n + next);
		/* a device removed meanwhile is not an error */
		if (cb && !znp_dm_get(n->name, &info))
			ret = cb(&info, arg);
		next = n->next;
	} while (!ret && next);
out:
	dm_task_destroy(dmt);
	return ret;
}

struct uuid_match {
	const char *uuid;
	struct znp_dm_info *out;
};

static int match_uuid(const struct znp_dm_info *info, void *arg)
{
	struct uuid_match *m = arg;

	if (strcmp(info->uuid, m->uuid))
		return 0;
	*m->out = *info;
	return 1;
}

int znp_dm_find_uuid(const char *uuid, struct znp_dm_info *info)
{
	struct uuid_match m = { uuid, info };
	int ret = znp_dm_list(match_uuid, &m);

	return ret == 1 ? 0 : ret ? ret : -ENXIO;
}

/* Run @dmt with udev synchronisation (a no-op where udev does not run). */
static int run_synced(struct dm_task *dmt, uint16_t udev_flags)
{
	uint32_t cookie = 0;
	int ok;

	if (!dm_task_set_cookie(dmt, &cookie, udev_flags))
		return task_errno(dmt);
	ok = dm_task_run(dmt);
	/* also performs libdevmapper's own node operations when udev is absent */
	dm_udev_wait(cookie);
	return ok ? 0 : task_errno(dmt);
}

/* The temporary name only hides the device from users: udev need not probe it. */
#define TEMP_UDEV_FLAGS (DM_UDEV_DISABLE_DISK_RULES_FLAG | DM_UDEV_DISABLE_OTHER_RULES_FLAG)

static int step_create(const char *tmp, const char *uuid)
{
	struct dm_task *dmt = task_new(DM_DEVICE_CREATE, tmp);
	int ret;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_uuid(dmt, uuid)) {
		dm_task_destroy(dmt);
		return -EINVAL;
	}
	/*
	 * No udev cookie: since 5.17 the kernel adds the disk only when the
	 * first table is loaded, so a create without a table sends no uevent
	 * and a cookie would wait forever where udev runs (the resume's
	 * cookie covers the node, as lvm does it).
	 */
	ret = dm_task_run(dmt) ? 0 : task_errno(dmt);
	dm_task_destroy(dmt);
	return ret == -EBUSY ? -EEXIST : ret;
}

static int step_load(const char *tmp, const struct znp_dm_create_req *req)
{
	struct dm_task *dmt = task_new(DM_DEVICE_RELOAD, tmp);
	const struct znp_dm_table *t;
	int ret = 0;

	if (!dmt)
		return -ENOMEM;
	for (unsigned int i = 0; !ret && i <= req->nr_more; i++) {
		t = i ? &req->more[i - 1] : &req->table;
		if (!dm_task_add_target(dmt, t->start, t->len, t->target, t->dev))
			ret = -ENOMEM;
	}
	if (!ret && !dm_task_run(dmt))
		ret = task_errno(dmt);
	dm_task_destroy(dmt);
	return ret;
}

static int step_resume(const char *tmp)
{
	struct dm_task *dmt = task_new(DM_DEVICE_RESUME, tmp);
	int ret;

	if (!dmt)
		return -ENOMEM;
	ret = run_synced(dmt, TEMP_UDEV_FLAGS);
	dm_task_destroy(dmt);
	return ret;
}

static int step_rename(const char *tmp, const char *name)
{
	struct dm_task *dmt = task_new(DM_DEVICE_RENAME, tmp);
	int ret;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_newname(dmt, name)) {
		dm_task_destroy(dmt);
		return -EINVAL;
	}
	ret = run_synced(dmt, 0);
	dm_task_destroy(dmt);
	return ret == -EBUSY ? -EEXIST : ret;
}

static int remove_task(const char *name, bool deferred)
{
	struct dm_task *dmt = task_new(DM_DEVICE_REMOVE, name);
	int ret;

	if (!dmt)
		return -ENOMEM;
	dm_task_retry_remove(dmt);
	if (deferred)
		dm_task_deferred_remove(dmt);
	ret = run_synced(dmt, 0);
	dm_task_destroy(dmt);
	return ret;
}

int znp_dm_create(const struct znp_dm_create_req *req, struct znp_dm_info *info)
{
	char tmp[ZNP_DM_NAME_MAX], path[PATH_MAX], err[sizeof(last_error)];
	struct znp_dm_info existing;
	enum znp_dm_step step;
	int ret = 0;

	dm_setup();
	if (snprintf(tmp, sizeof(tmp), ZNP_DM_CREATING_PREFIX "%s", req->name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (!znp_dm_get(req->name, &existing))
		return -EEXIST;
	for (step = ZNP_DM_STEP_CREATE; step < ZNP_DM_STEP_NR; step++) {
		if (req->before_step)
			ret = req->before_step(step, req->arg);
		if (!ret) {
			switch (step) {
			case ZNP_DM_STEP_CREATE:
				ret = step_create(tmp, req->uuid);
				break;
			case ZNP_DM_STEP_LOAD:
				ret = step_load(tmp, req);
				break;
			case ZNP_DM_STEP_RESUME:
				ret = step_resume(tmp);
				break;
			case ZNP_DM_STEP_RENAME:
				ret = step_rename(tmp, req->name);
				break;
			case ZNP_DM_STEP_NR:
				break;
			}
		}
		if (ret)
			break;
	}
	if (ret) {
		if (step == ZNP_DM_STEP_CREATE)
			return ret;	/* nothing was created */
		/* keep the reason: the cleanup may log its own messages */
		znp_strlcpy(err, last_error, sizeof(err));
		if (remove_task(tmp, false) && !znp_dm_get(req->name, &existing) &&
		    !strcmp(existing.uuid, req->uuid))
			remove_task(req->name, false);	/* renamed after all */
		znp_strlcpy(last_error, err, sizeof(last_error));
		return ret;
	}
	/* no udev rules ran and libdevmapper did not make the node either */
	snprintf(path, sizeof(path), "%s/%s", dm_dir(), req->name);
	if (access(path, F_OK))
		dm_mknodes(req->name);
	return znp_dm_get(req->name, info);
}

int znp_dm_remove(const char *name, bool deferred)
{
	struct znp_dm_info info;
	int ret;

	ret = znp_dm_get(name, &info);
	if (ret)
		return ret;
	if (info.open_count > 0 && !deferred)
		return -EBUSY;
	dm_setup();
	ret = remove_task(name, deferred && info.open_count > 0);
	if (ret)
		return ret;
	return deferred && info.open_count > 0 ? 1 : 0;
}

int znp_dm_remove_leftover(const char *uuid, char *name, size_t size)
{
	struct znp_dm_info info;
	int ret;

	ret = znp_dm_find_uuid(uuid, &info);
	if (ret == -ENXIO)
		return 0;
	if (ret)
		return ret;
	if (!znp_dm_name_is_creating(info.name))
		return 0;
	dm_setup();
	ret = remove_task(info.name, false);
	if (ret)
		return ret;
	if (name)
		znp_strlcpy(name, info.name, size);
	return 1;
}

/* ---- our mapping among the holders ----------------------------------- */

static int first_ours(const struct znp_holder *h, void *arg)
{
	if (!znp_dm_uuid_is_ours(h->dm_uuid))
		return 0;
	*(struct znp_holder *)arg = *h;
	return 1;
}

int znp_blk_po2_holder(const struct znp_env *env, const char *blk, struct znp_holder *h)
{
	return znp_blk_holders(env, blk, first_ours, h) == 1;
}
