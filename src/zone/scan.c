// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Namespace discovery from sysfs. Unlike libnvme 1.3's scan, which opens
 * /dev/nvmeXnY and drops namespaces whose block device the kernel hid,
 * this starts from the generic char nodes (<sysfs>/class/nvme-generic)
 * and adds block-only namespaces from each controller's directory.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsinfo.h"
#include "sysfs.h"
#include "zone.h"

struct ns_list {
	struct znp_scan_entry *v;
	size_t n, cap;
};

static struct znp_scan_entry *list_add(struct ns_list *l)
{
	struct znp_scan_entry *e;

	e = znp_grow(l->v, &l->cap, l->n, sizeof(*e), 16);
	if (!e)
		return NULL;
	l->v = e;
	e = &l->v[l->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

static bool list_has_blk(const struct ns_list *l, const char *blk)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].ns.blk_name, blk))
			return true;
	return false;
}

static int add_generic_nodes(const struct znp_env *env, struct ns_list *l)
{
	struct dirent *de;
	char dir[512];
	DIR *d;
	int ret = 0;

	ret = znp_sysfs_path(env, dir, sizeof(dir), "class/nvme-generic");
	if (ret)
		return ret;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct znp_scan_entry *e;

		if (!znp_name_is_ng(de->d_name))
			continue;
		e = list_add(l);
		if (!e) {
			ret = -ENOMEM;
			break;
		}
		znp_nsinfo_from_ng(env, de->d_name, &e->ns);
	}
	closedir(d);
	return ret;
}

/* Disks of controller @ctrl that no generic node led to (old kernels). */
static int add_ctrl_disks(const struct znp_env *env, const char *ctrl, struct ns_list *l)
{
	struct dirent *de;
	char dir[512], head[ZNP_NAME_MAX];
	DIR *d;
	int ret = 0;

	ret = znp_sysfs_path(env, dir, sizeof(dir), "class/nvme/%s", ctrl);
	if (ret)
		return ret;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		unsigned int s, c, b;
		struct znp_scan_entry *e;
		const char *blk = de->d_name;

		if (!znp_name_is_disk(blk))
			continue;
		/* a hidden multipath path disk nvmeScCnB stands for head nvmeSnB */
		if (sscanf(blk, "nvme%uc%un%u", &s, &c, &b) == 3) {
			snprintf(head, sizeof(head), "nvme%un%u", s, b);
			blk = head;
		}
		if (list_has_blk(l, blk))
			continue;
		e = list_add(l);
		if (!e) {
			ret = -ENOMEM;
			break;
		}
		znp_nsinfo_from_blk(env, blk, &e->ns);
	}
	closedir(d);
	return ret;
}

static int add_block_only(const struct znp_env *env, struct ns_list *l)
{
	struct dirent *de;
	char dir[512];
	DIR *d;
	int ret = 0;

	ret = znp_sysfs_path(env, dir, sizeof(dir), "class/nvme");
	if (ret)
		return ret;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (de = readdir(d)))
		if (znp_name_is_ctrl(de->d_name))
			ret = add_ctrl_disks(env, de->d_name, l);
	closedir(d);
	return ret;
}

/* Open the namespace through its generic node (works when hidden) and probe. */
static void probe_entry(const struct znp_env *env, struct znp_scan_entry *e)
{
	const char *node = e->ns.ng_name[0] ? e->ns.ng_name :
			   e->ns.blk_visible ? e->ns.blk_name : NULL;
	char path[PATH_MAX];
	struct znp_dev *dev;
	int ret;

	if (!node) {
		e->probe_ret = -ENODEV;
		return;
	}
	ret = znp_dev_path(env, path, sizeof(path), node);
	if (!ret)
		ret = znp_dev_open(env, path, 0, &dev, NULL);
	if (ret) {
		e->probe_ret = ret;
		return;
	}
	e->probe_ret = znp_dev_probe(dev);
	e->ns = dev->ns;	/* NSID from the device, serial etc. from Identify */
	e->geom = dev->geom;
	e->is_zoned = dev->is_zoned;
	znp_dev_close(dev);
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct znp_scan_entry *a = pa, *b = pb;
	int ca = znp_ctrl_instance(a->ns.ctrl), cb = znp_ctrl_instance(b->ns.ctrl);

	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (a->ns.nsid != b->ns.nsid)
		return a->ns.nsid < b->ns.nsid ? -1 : 1;
	return strcmp(a->ns.ng_name, b->ns.ng_name);
}

int znp_scan(const struct znp_env *env,
	     int (*cb)(const struct znp_scan_entry *e, void *arg), void *arg)
{
	struct ns_list l = { 0 };
	size_t i;
	int ret;

	if (!cb)
		return -EINVAL;
	ret = add_generic_nodes(env, &l);
	if (!ret)
		ret = add_block_only(env, &l);
	if (ret)
		goto out_free;
	for (i = 0; i < l.n; i++)
		probe_entry(env, &l.v[i]);
	if (l.n)	/* no namespaces: l.v is NULL, which qsort() must not get */
		qsort(l.v, l.n, sizeof(*l.v), entry_cmp);
	for (i = 0; i < l.n && !ret; i++)
		ret = cb(&l.v[i], arg);
out_free:
	free(l.v);
	return ret;
}
