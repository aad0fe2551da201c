// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NVMe namespace identity from sysfs.
 *
 * Kernel naming (drivers/nvme/host): the generic node of a namespace is
 * ng<ctrl>n<head>, a child of the controller device, and so is its disk:
 * nvme<ctrl>n<head> with multipath off, nvme<subsys>n<head> with multipath
 * on (Debian's default) for a namespace that is not shared. With multipath the per-path disks nvme<subsys>c
 * <ctrl>n<head> are hidden, the usable disk is the head nvme<subsys>n<head>
 * and the only generic node is the head's ng<subsys>n<head>, a child of
 * nvme-subsys<subsys>. Instance numbers pair nodes; the NSID always comes
 * from the nsid attribute or NVME_IOCTL_ID.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nsinfo.h"
#include "sysfs.h"

/* Parse "<prefix>%u..." pieces strictly: digits only, no sign, no overflow. */
static const char *eat_uint(const char *p, unsigned int *v)
{
	unsigned long x = 0;

	if (*p < '0' || *p > '9')
		return NULL;
	while (*p >= '0' && *p <= '9') {
		x = x * 10 + (unsigned long)(*p++ - '0');
		if (x > 0xffffffffUL)
			return NULL;
	}
	*v = (unsigned int)x;
	return p;
}

static const char *eat(const char *p, const char *lit)
{
	size_t n = strlen(lit);

	return p && !strncmp(p, lit, n) ? p + n : NULL;
}

static bool parse_ng(const char *name, unsigned int *a, unsigned int *b)
{
	const char *p = eat(name, "ng");

	if (p)
		p = eat_uint(p, a);
	if (p)
		p = eat(p, "n");
	if (p)
		p = eat_uint(p, b);
	return p && !*p;
}

/* nvme<a>n<b> (path = false) or nvme<a>c<c>n<b> (path = true) */
static bool parse_disk(const char *name, unsigned int *a, unsigned int *c,
		       unsigned int *b, bool *path)
{
	const char *p = eat(name, "nvme");

	if (p)
		p = eat_uint(p, a);
	if (!p)
		return false;
	*path = *p == 'c';
	if (*path)
		p = eat_uint(p + 1, c);
	if (p)
		p = eat(p, "n");
	if (p)
		p = eat_uint(p, b);
	return p && !*p;
}

int znp_ctrl_instance(const char *name)
{
	const char *p = eat(name, "nvme");
	unsigned int a;

	if (p)
		p = eat_uint(p, &a);
	if (!p || *p || a > 0x7fffffff)
		return -1;
	return (int)a;
}

bool znp_name_is_ctrl(const char *name)
{
	return znp_ctrl_instance(name) >= 0;
}

bool znp_name_is_ng(const char *name)
{
	unsigned int a, b;

	return parse_ng(name, &a, &b);
}

bool znp_name_is_disk(const char *name)
{
	unsigned int a, b, c;
	bool path;

	return parse_disk(name, &a, &c, &b, &path);
}

static void read_ctrl_attrs(const struct znp_env *env, struct znp_ns_info *ns)
{
	char path[512];

	if (!ns->ctrl[0])
		return;
	if (!znp_sysfs_path(env, path, sizeof(path), "class/nvme/%s/serial", ns->ctrl))
		znp_attr_read(path, ns->serial, sizeof(ns->serial));
	if (!znp_sysfs_path(env, path, sizeof(path), "class/nvme/%s/model", ns->ctrl))
		znp_attr_read(path, ns->model, sizeof(ns->model));
	if (!znp_sysfs_path(env, path, sizeof(path), "class/nvme/%s/firmware_rev", ns->ctrl))
		znp_attr_read(path, ns->firmware, sizeof(ns->firmware));
}

static void read_nsid(const char *dir, struct znp_ns_info *ns)
{
	char path[600];
	uint64_t v;

	if (snprintf(path, sizeof(path), "%s/nsid", dir) < (int)sizeof(path) &&
	    !znp_attr_read_u64(path, &v) && v && v < 0xffffffffu)
		ns->nsid = (uint32_t)v;
}

/* Usable = present in <sysfs>/block and not hidden (npo2 on a stock kernel). */
static void set_blk(const struct znp_env *env, struct znp_ns_info *ns, const char *blk)
{
	char dir[512], path[600], val[8];

	if (znp_sysfs_path(env, dir, sizeof(dir), "block/%s", blk) || !znp_path_exists(dir))
		return;
	znp_strlcpy(ns->blk_name, blk, sizeof(ns->blk_name));
	snprintf(path, sizeof(path), "%s/hidden", dir);
	ns->blk_visible = znp_attr_read(path, val, sizeof(val)) || strcmp(val, "1");
	snprintf(path, sizeof(path), "%s/size", dir);
	ns->blk_size_known = !znp_attr_read_u64(path, &ns->blk_sectors);
	if (!ns->nsid)
		read_nsid(dir, ns);
}

/* First path controller of multipath head disk @blk, from <sysfs>/block/@blk/multipath. */
static void ctrl_from_multipath(const struct znp_env *env, const char *blk,
				struct znp_ns_info *ns)
{
	unsigned int a, b, c;
	struct dirent *de;
	char dir[512];
	bool path;
	DIR *d;
	int best = -1;

	if (znp_sysfs_path(env, dir, sizeof(dir), "block/%s/multipath", blk))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (parse_disk(de->d_name, &a, &c, &b, &path) && path && c <= 0x7fffffff &&
		    (best < 0 || (int)c < best))
			best = (int)c;
	}
	closedir(d);
	if (best >= 0)
		snprintf(ns->ctrl, sizeof(ns->ctrl), "nvme%d", best);
}

/*
 * The paths of head ng<s>n<h>: the controllers linked from nvme-subsys<s>
 * (every kernel; <head disk>/multipath is newer than 6.12) that still have
 * the path disk nvme<s>c<c>n<h>, each with its controller's state.
 */
enum znp_ns_path znp_ns_path_state(const struct znp_env *env, const struct znp_ns_info *ns)
{
	enum znp_ns_path st = ZNP_NS_PATH_GONE;
	char dir[512], path[512], state[32];
	unsigned int s, h;
	struct dirent *de;
	DIR *d;

	if (!parse_ng(ns->ng_name, &s, &h) ||
	    znp_sysfs_path(env, dir, sizeof(dir), "class/nvme-subsystem/nvme-subsys%u", s))
		return ZNP_NS_PATH_GONE;
	d = opendir(dir);
	if (!d)
		return ZNP_NS_PATH_GONE;
	while (st != ZNP_NS_PATH_LIVE && (de = readdir(d))) {
		int c = znp_name_is_ctrl(de->d_name) ? znp_ctrl_instance(de->d_name) : -1;

		if (c < 0 ||
		    znp_sysfs_path(env, path, sizeof(path), "class/nvme/nvme%d/nvme%uc%dn%u", c, s,
				   c, h) || !znp_path_exists(path) ||
		    znp_sysfs_path(env, path, sizeof(path), "class/nvme/nvme%d/state", c) ||
		    znp_attr_read(path, state, sizeof(state)))
			continue;
		if (!strcmp(state, "live"))
			st = ZNP_NS_PATH_LIVE;
		else if (!strcmp(state, "resetting") || !strcmp(state, "connecting") ||
			 !strcmp(state, "new"))
			st = ZNP_NS_PATH_COMING;
	}
	closedir(d);
	return st;
}

/*
 * Disk of controller nvme<a> for head instance @b: nvme<a>n<b> (multipath
 * off), nvme<s>n<b> (multipath on but namespace not shared: the name takes
 * the subsystem instance), or the hidden path disk nvme<s>c<a>n<b> whose
 * head nvme<s>n<b> is the usable disk. Head instances are unique within a
 * subsystem, hence within a controller's directory.
 */
static void blk_of_ctrl(const struct znp_env *env, struct znp_ns_info *ns,
			unsigned int a, unsigned int b)
{
	unsigned int s, c, h;
	struct dirent *de;
	char dir[512], name[ZNP_NAME_MAX];
	bool path;
	DIR *d;

	snprintf(name, sizeof(name), "nvme%un%u", a, b);
	if (!znp_sysfs_path(env, dir, sizeof(dir), "class/nvme/%s/%s", ns->ctrl, name) &&
	    znp_path_exists(dir)) {
		set_blk(env, ns, name);
		return;
	}
	if (znp_sysfs_path(env, dir, sizeof(dir), "class/nvme/%s", ns->ctrl))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!parse_disk(de->d_name, &s, &c, &h, &path) || h != b || (path && c != a))
			continue;
		if (path) {
			char sub[800];

			snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
			read_nsid(sub, ns);
			snprintf(name, sizeof(name), "nvme%un%u", s, b);
			set_blk(env, ns, name);
		} else {
			set_blk(env, ns, de->d_name);
		}
		break;
	}
	closedir(d);
}

int znp_nsinfo_from_ng(const struct znp_env *env, const char *ng, struct znp_ns_info *ns)
{
	char path[512], parent[ZNP_NAME_MAX], blk[ZNP_NAME_MAX];
	unsigned int a, b, s;
	const char *p;

	if (!parse_ng(ng, &a, &b))
		return -EINVAL;
	znp_strlcpy(ns->ng_name, ng, sizeof(ns->ng_name));

	parent[0] = '\0';
	if (!znp_sysfs_path(env, path, sizeof(path), "class/nvme-generic/%s/device", ng))
		znp_link_basename(path, parent, sizeof(parent));

	p = eat(parent, "nvme-subsys");
	if (p)
		p = eat_uint(p, &s);
	if (p && !*p) {
		/* multipath head node */
		ns->mpath = true;
		snprintf(blk, sizeof(blk), "nvme%un%u", s, b);
		set_blk(env, ns, blk);
		ctrl_from_multipath(env, blk, ns);
	} else {
		if (znp_name_is_ctrl(parent))
			znp_strlcpy(ns->ctrl, parent, sizeof(ns->ctrl));
		else
			snprintf(ns->ctrl, sizeof(ns->ctrl), "nvme%u", a);
		blk_of_ctrl(env, ns, a, b);
	}
	read_ctrl_attrs(env, ns);
	return 0;
}

int znp_nsinfo_from_blk(const struct znp_env *env, const char *blk, struct znp_ns_info *ns)
{
	char path[512], parent[ZNP_NAME_MAX], ng[ZNP_NAME_MAX];
	unsigned int a, b, c;
	bool is_path;

	if (!parse_disk(blk, &a, &c, &b, &is_path) || is_path)
		return -EINVAL;
	set_blk(env, ns, blk);
	if (!ns->blk_name[0])
		znp_strlcpy(ns->blk_name, blk, sizeof(ns->blk_name));

	parent[0] = '\0';
	if (!znp_sysfs_path(env, path, sizeof(path), "block/%s/device", blk))
		znp_link_basename(path, parent, sizeof(parent));
	if (znp_name_is_ctrl(parent)) {
		/* the generic node takes the controller instance */
		znp_strlcpy(ns->ctrl, parent, sizeof(ns->ctrl));
		snprintf(ng, sizeof(ng), "ng%dn%u", znp_ctrl_instance(parent), b);
	} else {
		/* multipath head: ng<subsys>n<head>, like the disk */
		ns->mpath = true;
		ctrl_from_multipath(env, blk, ns);
		if (!ns->ctrl[0])
			snprintf(ns->ctrl, sizeof(ns->ctrl), "nvme%u", a);
		snprintf(ng, sizeof(ng), "ng%un%u", a, b);
	}
	if (!znp_sysfs_path(env, path, sizeof(path), "class/nvme-generic/%s", ng) &&
	    znp_path_exists(path))
		znp_strlcpy(ns->ng_name, ng, sizeof(ns->ng_name));
	read_ctrl_attrs(env, ns);
	return 0;
}

void znp_nsinfo_set_nsid(struct znp_ns_info *ns, uint32_t nsid, bool via_ng)
{
	if (ns->nsid && ns->nsid != nsid) {
		if (via_ng) {
			ns->blk_name[0] = '\0';
			ns->blk_visible = false;
		} else {
			ns->ng_name[0] = '\0';
		}
	}
	ns->nsid = nsid;
}

int znp_nsinfo_ng_of_ctrl(const struct znp_env *env, const char *ctrl, uint32_t nsid,
			  char *ng, size_t len)
{
	char dir[512], path[512];
	struct znp_ns_info ns;
	unsigned int s, h;
	struct dirent *de;
	int ret = -ENOENT;
	DIR *d;

	if (znp_sysfs_path(env, dir, sizeof(dir), "class/nvme-generic"))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -ENOENT;
	while (ret == -ENOENT && (de = readdir(d))) {
		if (!parse_ng(de->d_name, &s, &h))
			continue;
		memset(&ns, 0, sizeof(ns));
		if (znp_nsinfo_from_ng(env, de->d_name, &ns) || ns.nsid != nsid)
			continue;
		if (strcmp(ns.ctrl, ctrl) &&
		    (!ns.mpath || znp_sysfs_path(env, path, sizeof(path),
						 "class/nvme-subsystem/nvme-subsys%u/%s", s, ctrl) ||
		     !znp_path_exists(path)))
			continue;
		ret = znp_strlcpy(ng, de->d_name, len) ? -ENAMETOOLONG : 0;
	}
	closedir(d);
	return ret;
}

int znp_ns_from_blk(const struct znp_env *env, const char *blk, struct znp_ns_info *ns)
{
	memset(ns, 0, sizeof(*ns));
	if (!blk || !znp_name_is_disk(blk))
		return -EINVAL;
	return znp_nsinfo_from_blk(env, blk, ns);
}
