// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * export: a mapping's device as a namespace of the kernel's NVMe target
 * (nvmet, configfs under <sysfs>/kernel/config/nvmet), so that hosts on
 * stock kernels reach po2 zones over NVMe-oF. What nvmet's own tools
 * cannot know is decided here: which device mapping NAME is this boot,
 * that a namespace node (the npo2 namespace itself) is never exported,
 * and that a ublk mapping is exported only while its server serves
 * (nvmet reads the zones when it enables the namespace).
 *
 * One subsystem per export, the mapping's device as its namespace 1, with
 * a UUID, NGUID and serial number derived from the namespace's identity
 * (export_ids()); the port is shared with other subsystems on the same
 * address.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "map-priv.h"

#define NVMET_DIR	"kernel/config/nvmet"
#define NQN_MAX		223	/* NVMF_NQN_SIZE - 1 */
#define ANA_GROUPS	128	/* NVMET_MAX_ANAGRPS: groups 1 (every port's default) to 128 */
#define DRAIN_STEP_MS	50
#define DRAIN_QUIET_MS	250	/* nothing in flight this long: the answers are sent */
#define DRAIN_BOUND_MS	15000

static int cfs_path(const struct znp_map_ctx *c, char *buf, size_t size, const char *rel)
{
	const char *root = c->env && c->env->sysfs_root ? c->env->sysfs_root : "/sys";
	int n = snprintf(buf, size, "%s/" NVMET_DIR "%s%s", root, rel[0] ? "/" : "", rel);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Write @val to the attribute @path (configfs takes one write). Return: 0 or -errno. */
static int attr_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static int attr_read(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

/* An NQN nvmet takes: "nqn." and printable, no '/', at most 223 bytes. */
static bool is_valid_nqn(const char *nqn)
{
	size_t n = strlen(nqn);

	if (n < 5 || n > NQN_MAX || strncmp(nqn, "nqn.", 4))
		return false;
	for (const char *s = nqn; *s; s++)
		if (*s <= ' ' || *s > '~' || *s == '/')
			return false;
	return true;
}

/*
 * @arg names an NVMe namespace node (ngXnY, nvmeXnY): refuse it with what
 * serves it. Return: 0 not a namespace, or a negative errno with @e.
 */
static int refuse_namespace(const struct znp_map_ctx *c, const char *arg, struct znp_map_err *e)
{
	struct znp_map_found f;
	struct znp_dev *dev;
	const char *why;
	char node[64];
	bool nvme;
	int ret;

	if (znp_dev_open(c->env, arg, 0, &dev, &why))
		return 0;
	nvme = znp_dev_is_nvme(dev);
	znp_dev_close(dev);
	if (!nvme)
		return 0;
	ret = znp_map_serving(c, arg, &f, e);
	if (ret < 0)
		return ret;
	e->subject = arg;
	if (!ret)
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENXIO,
				    "is a namespace no mapping serves: map it first "
				    "(map --ublk %s --name NAME on a stock kernel), then export the "
				    "mapping", arg);
	znp_map_found_device(&f, node, sizeof(node));
	return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -EINVAL,
			    "is the namespace itself, which the target would export with its "
			    "npo2 zones (stock hosts hide it); its mapping is %s (%s): export %s",
			    znp_map_found_name(&f), node, znp_map_found_name(&f));
}

/*
 * Resolve @arg to a mapping that may be exported now; its name in @name
 * (which outlives @f: a refusal's subject). Return: 0 or a negative errno with @e.
 */
static int export_find(const struct znp_map_ctx *c, const char *arg, struct znp_map_found *f,
		       char *name, size_t size, struct znp_map_err *e)
{
	int ret = refuse_namespace(c, arg, e);

	if (ret)
		return ret;
	ret = znp_map_find(c, arg, f, e);
	if (ret)
		return ret;
	znp_strlcpy(name, znp_map_found_name(f), size);
	if (f->route->via == ZNP_MAP_VIA_UBLK && f->ublk.health != ZNP_UBLK_ALIVE) {
		e->subject = name;
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EAGAIN,
				    "its server does not serve (%s): the target would wait on "
				    "/dev/%s when it reads the zones; start the server first "
				    "(map --ublk, or systemctl start zns-npo2-ublk@%s)",
				    znp_ublk_health_name(f->ublk.health), f->ublk.device,
				    znp_map_found_name(f));
	}
	return 0;
}

/* Does @path exist? */
static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/*
 * Each export's namespace gets an ANA group of its own, so that its state
 * on a port can change without touching the other subsystems there (group
 * 1 is every port's default, shared by all): `export --remove` turns it
 * inaccessible before the hosts lose the subsystem (unexport_drain()).
 *
 * Mark in @used the groups named under <nvmet>/@top/X/@mid/Y: by Y's
 * attribute @attr, or by Y's own name when @attr is NULL.
 */
static void ana_mark(const struct znp_map_ctx *c, const char *top, const char *mid,
		     const char *attr, bool *used)
{
	char dir[PATH_MAX], path[PATH_MAX * 2], val[32];
	struct dirent *d, *n;
	unsigned long g;
	DIR *dp, *np;

	if (cfs_path(c, dir, sizeof(dir), top))
		return;
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", dir, d->d_name, mid);
		np = opendir(path);
		while (np && (n = readdir(np))) {
			if (n->d_name[0] == '.')
				continue;
			if (attr) {
				snprintf(path, sizeof(path), "%s/%s/%s/%s/%s", dir, d->d_name, mid,
					 n->d_name, attr);
				if (attr_read(path, val, sizeof(val)))
					continue;
				g = strtoul(val, NULL, 10);
			} else {
				g = strtoul(n->d_name, NULL, 10);
			}
			if (g <= ANA_GROUPS)
				used[g] = true;
		}
		if (np)
			closedir(np);
	}
	if (dp)
		closedir(dp);
}

/* The lowest ANA group no namespace uses and no port has; 0 when all are taken. */
static unsigned int ana_group_free(const struct znp_map_ctx *c)
{
	bool used[ANA_GROUPS + 1] = { false };

	ana_mark(c, "subsystems", "namespaces", "ana_grpid", used);
	ana_mark(c, "ports", "ana_groups", NULL, used);
	for (unsigned int g = 2; g <= ANA_GROUPS; g++)
		if (!used[g])
			return g;
	return 0;
}

/*
 * Group @g on port @port, optimized (nvmet makes a new group inaccessible),
 * as the ANA group of subsystem @s's namespace 1. @made: the group was made
 * here. Return: 0 or -errno.
 */
static int ana_group_join(const struct znp_map_ctx *c, unsigned int port, const char *s,
			  unsigned int g, bool *made)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], val[16];
	int ret;

	*made = false;
	if (cfs_path(c, dir, sizeof(dir), "ports"))
		return -ENAMETOOLONG;
	snprintf(path, sizeof(path), "%s/%u/ana_groups/%u", dir, port, g);
	if (mkdir(path, 0755)) {
		if (errno != EEXIST)
			return -errno;
	} else {
		*made = true;
	}
	snprintf(path, sizeof(path), "%s/%u/ana_groups/%u/ana_state", dir, port, g);
	ret = attr_write(path, "optimized");
	snprintf(path, sizeof(path), "%s/namespaces/1/ana_grpid", s);
	snprintf(val, sizeof(val), "%u", g);
	if (!ret)
		ret = attr_write(path, val);
	return ret;
}

/* Take group @g off port @port (the directory only: nvmet keeps it while in use). */
static void ana_group_leave(const struct znp_map_ctx *c, unsigned int port, unsigned int g)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];

	if (g < 2 || cfs_path(c, dir, sizeof(dir), "ports"))
		return;
	snprintf(path, sizeof(path), "%s/%u/ana_groups/%u", dir, port, g);
	rmdir(path);
}

/*
 * Wait until @device has had nothing in flight for DRAIN_QUIET_MS (the
 * block layer's count: the target's commands that reached the device),
 * at most DRAIN_BOUND_MS. @ms: the time it took.
 */
static enum znp_map_drain drain_wait(const struct znp_map_ctx *c, const char *device,
				     unsigned int *ms)
{
	static const struct timespec step = { .tv_nsec = DRAIN_STEP_MS * 1000000L };
	const char *root = c->env && c->env->sysfs_root ? c->env->sysfs_root : "/sys";
	unsigned long rd, wr;
	unsigned int t, quiet = 0;
	char path[PATH_MAX], val[64];
	struct stat st;

	*ms = 0;
	if (stat(device, &st) || !S_ISBLK(st.st_mode))
		return ZNP_MAP_DRAIN_UNKNOWN;
	snprintf(path, sizeof(path), "%s/dev/block/%u:%u/inflight", root, major(st.st_rdev),
		 minor(st.st_rdev));
	for (t = 0; t <= DRAIN_BOUND_MS; t += DRAIN_STEP_MS) {
		if (attr_read(path, val, sizeof(val)) || sscanf(val, "%lu %lu", &rd, &wr) != 2)
			return ZNP_MAP_DRAIN_UNKNOWN;
		quiet = rd + wr ? 0 : quiet + DRAIN_STEP_MS;
		if (quiet > DRAIN_QUIET_MS)
			break;
		nanosleep(&step, NULL);
	}
	*ms = t;
	return quiet > DRAIN_QUIET_MS ? ZNP_MAP_DRAIN_DONE : ZNP_MAP_DRAIN_TIMEOUT;
}

/*
 * The nvmet port with this address (@out->port), or a new one numbered
 * after the highest (@out->port_created). Return: 0 or a negative errno with @e.
 */
static int port_get(const struct znp_map_ctx *c, const struct znp_map_export_req *r,
		    struct znp_map_export_done *out, struct znp_map_err *e)
{
	static const char *const fields[] = { "addr_trtype", "addr_adrfam", "addr_traddr",
					      "addr_trsvcid" };
	const char *want[4] = { r->transport, r->adrfam, r->traddr, r->trsvcid };
	char dir[PATH_MAX], path[PATH_MAX + 320], val[256];
	unsigned long id, top = 0;
	struct dirent *d;
	DIR *dp;
	int ret;

	if (cfs_path(c, dir, sizeof(dir), "ports"))
		return znp_map_fail(e, ZNP_MAP_FAILED, -ENAMETOOLONG, "path too long");
	dp = opendir(dir);
	if (!dp)
		return znp_map_fail(e, ZNP_MAP_FAILED, -errno, "cannot read %s: %s", dir,
				    strerror(errno));
	while (!out->port && (d = readdir(dp))) {
		unsigned int i;

		if (d->d_name[0] == '.')
			continue;
		id = strtoul(d->d_name, NULL, 10);
		if (id > top)
			top = id;
		for (i = 0; i < 4; i++) {
			if (!want[i])
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", dir, d->d_name, fields[i]);
			if (attr_read(path, val, sizeof(val)) || strcmp(val, want[i]))
				break;
		}
		if (i == 4 && id)
			out->port = (unsigned int)id;
	}
	closedir(dp);
	if (out->port)
		return 0;
	if (top >= 65534)
		return znp_map_fail(e, ZNP_MAP_FAILED, -ENOSPC, "no free NVMe target port number");
	snprintf(path, sizeof(path), "%s/%lu", dir, top + 1);
	if (mkdir(path, 0755))
		return znp_map_fail(e, ZNP_MAP_FAILED, -errno, "cannot create NVMe target port %lu: %s",
				    top + 1, strerror(errno));
	out->port = (unsigned int)(top + 1);
	out->port_created = true;
	for (unsigned int i = 0; i < 4; i++) {
		if (!want[i])
			continue;
		snprintf(path, sizeof(path), "%s/%u/%s", dir, out->port, fields[i]);
		ret = attr_write(path, want[i]);
		if (ret) {
			snprintf(path, sizeof(path), "%s/%u", dir, out->port);
			rmdir(path);
			out->port_created = false;
			return znp_map_fail(e, ZNP_MAP_USAGE, ret,
					    "the NVMe target refused %s %s: %s", fields[i],
					    want[i], strerror(-ret));
		}
	}
	return 0;
}

/* Undo what znp_map_export() made of subsystem @s (a path), in reverse order. */
static void subsys_undo(const char *s, const char *hostnqn)
{
	char path[PATH_MAX + 300];

	snprintf(path, sizeof(path), "%s/namespaces/1/enable", s);
	attr_write(path, "0");
	snprintf(path, sizeof(path), "%s/namespaces/1", s);
	rmdir(path);
	if (hostnqn) {
		snprintf(path, sizeof(path), "%s/allowed_hosts/%s", s, hostnqn);
		unlink(path);
	}
	rmdir(s);
}

/*
 * --persist: record the export that was just made in out->config, or take
 * it away again. Return: 0 or a negative errno with @e.
 */
static int export_record(const struct znp_map_ctx *c, const struct znp_map_export_req *r,
			 struct znp_map_export_done *out, struct znp_map_err *e)
{
	struct znp_map_ctx once = *c;
	struct znp_map_export_done undo;
	struct znp_map_err ignored = { 0 };
	int ret = znp_map_export_conf_write(out->config, r, e);

	if (!ret) {
		out->config_changed = true;
		return 0;
	}
	once.persist = false;
	znp_map_unexport(&once, out->name, &undo, &ignored);
	return ret;
}

/*
 * The names hosts know the export by, the same for the same namespace
 * whenever and wherever it is exported (a node's reboot, the export unit
 * restarted, another mapping route): nvmet otherwise draws a random
 * namespace UUID and subsystem serial each time, and a host that
 * reconnects to a namespace whose identifiers changed removes it, under
 * whatever it had mounted (the kernel logs "identifiers changed"). Each
 * is the FNV-1a hash of the backing namespace's identity in a domain of
 * its own, so none equals an identifier of the namespace itself.
 */
struct export_ids {
	char uuid[37];			/* device_uuid: version 8 (custom), RFC 9562 variant */
	char nguid[33];			/* device_nguid */
	char serial[21];		/* attr_serial: 20 hex digits */
};

/* The hash of @ident in the domain @what ("uuid", "nguid", "serial"). */
static void ids_hash(const char *what, const char *ident, uint8_t h[16])
{
	char buf[ZNP_DM_UUID_MAX + ZNP_IDENT_MAX + 32];
	int n = snprintf(buf, sizeof(buf), "zns-npo2 export %s\n%s", what, ident);

	znp_fnv1a128(buf, (size_t)n, h);
}

/* The first @n bytes of @h as lower-case hex in @out (2 * @n + 1 bytes). */
static void ids_hex(char *out, const uint8_t *h, int n)
{
	for (int i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
}

static int export_ids(const struct znp_map_found *f, struct export_ids *ids)
{
	struct znp_dm_info info;
	const char *ident = f->ublk.rec.ident;
	uint8_t h[16];

	if (f->route->via == ZNP_MAP_VIA_DM) {
		if (znp_dm_get(f->name, &info) || !info.uuid[0])
			return -ENODATA;
		ident = info.uuid;
	}
	if (!ident[0])
		return -ENODATA;
	ids_hash("uuid", ident, h);
	h[6] = (h[6] & 0x0f) | 0x80;
	h[8] = (h[8] & 0x3f) | 0x80;
	snprintf(ids->uuid, sizeof(ids->uuid),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11],
		 h[12], h[13], h[14], h[15]);
	ids_hash("nguid", ident, h);
	ids_hex(ids->nguid, h, 16);
	ids_hash("serial", ident, h);
	ids_hex(ids->serial, h, 10);
	return 0;
}

int znp_map_export(const struct znp_map_ctx *c, const char *arg,
		   const struct znp_map_export_req *r, struct znp_map_export_done *out,
		   struct znp_map_err *e)
{
	char s[PATH_MAX], path[PATH_MAX + 300], host[PATH_MAX + 300], holder[256];
	struct export_ids ids;
	struct znp_map_found f;
	bool grp_made = false, grp_failed;
	int ret;

	memset(out, 0, sizeof(*out));
	e->subject = arg;
	if (!is_valid_nqn(r->nqn)) {
		e->subject = r->nqn;
		return znp_map_fail(e, ZNP_MAP_USAGE, -EINVAL,
				    "not an NQN (nqn.YYYY-MM.reverse.domain:name, at most %d bytes, "
				    "no '/')", NQN_MAX);
	}
	if (r->hostnqn && !is_valid_nqn(r->hostnqn)) {
		e->subject = r->hostnqn;
		return znp_map_fail(e, ZNP_MAP_USAGE, -EINVAL, "not a host NQN");
	}
	ret = export_find(c, arg, &f, out->name, sizeof(out->name), e);
	if (ret)
		return ret;
	znp_map_found_device(&f, out->device, sizeof(out->device));
	if (export_ids(&f, &ids)) {
		e->subject = out->name;
		return znp_map_fail(e, ZNP_MAP_FAILED, -ENODATA, "cannot tell the identity of the "
				    "namespace it maps: not exported");
	}
	znp_strlcpy(out->nqn, r->nqn, sizeof(out->nqn));
	e->subject = out->name;

	if (cfs_path(c, s, sizeof(s), "subsystems") || !exists(s))
		return znp_map_fail(e, ZNP_MAP_UNSUPPORTED, -ENOENT,
				    "the kernel's NVMe target is not loaded (modprobe nvmet "
				    "nvmet-%s)", r->transport);
	if (!znp_map_export_holder(c, out->device, holder, sizeof(holder)))
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EEXIST, "%s is exported already (%s)",
				    out->device, holder);
	snprintf(path, sizeof(path), "%s/%s", s, r->nqn);
	if (exists(path)) {
		e->subject = r->nqn;
		return znp_map_fail(e, ZNP_MAP_REFUSED, -EEXIST,
				    "an NVMe target subsystem of that name exists");
	}
	if (c->persist) {
		ret = znp_map_export_conf(c, out->name, r, out->config, sizeof(out->config), e);
		if (ret < 0)
			return ret;
	}
	znp_strlcpy(s + strlen(s), "/", sizeof(s) - strlen(s));
	znp_strlcpy(s + strlen(s), r->nqn, sizeof(s) - strlen(s));
	if (mkdir(s, 0755))
		return znp_map_fail(e, ZNP_MAP_FAILED, -errno, "cannot create subsystem %s: %s",
				    r->nqn, strerror(errno));
	snprintf(path, sizeof(path), "%s/attr_serial", s);
	ret = attr_write(path, ids.serial);
	snprintf(path, sizeof(path), "%s/attr_allow_any_host", s);
	if (!ret)
		ret = attr_write(path, r->hostnqn ? "0" : "1");
	if (!ret && r->hostnqn) {
		if (cfs_path(c, host, sizeof(host), "hosts"))
			ret = -ENAMETOOLONG;
		else {
			znp_strlcpy(host + strlen(host), "/", sizeof(host) - strlen(host));
			znp_strlcpy(host + strlen(host), r->hostnqn, sizeof(host) - strlen(host));
			if (mkdir(host, 0755) && errno != EEXIST)
				ret = -errno;
			snprintf(path, sizeof(path), "%s/allowed_hosts/%s", s, r->hostnqn);
			if (!ret && symlink(host, path))
				ret = -errno;
		}
	}
	snprintf(path, sizeof(path), "%s/namespaces/1", s);
	if (!ret && mkdir(path, 0755))
		ret = -errno;
	snprintf(path, sizeof(path), "%s/namespaces/1/device_path", s);
	if (!ret)
		ret = attr_write(path, out->device);
	snprintf(path, sizeof(path), "%s/namespaces/1/device_uuid", s);
	if (!ret)
		ret = attr_write(path, ids.uuid);
	snprintf(path, sizeof(path), "%s/namespaces/1/device_nguid", s);
	if (!ret)
		ret = attr_write(path, ids.nguid);
	if (ret) {
		subsys_undo(s, r->hostnqn);
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot set up subsystem %s: %s",
				    r->nqn, strerror(-ret));
	}
	snprintf(path, sizeof(path), "%s/namespaces/1/enable", s);
	ret = attr_write(path, "1");
	if (ret) {
		subsys_undo(s, r->hostnqn);
		return znp_map_fail(e, ZNP_MAP_FAILED, ret,
				    "the NVMe target refused to enable %s as a namespace (%s; the "
				    "kernel log says why)", out->device, strerror(-ret));
	}
	ret = port_get(c, r, out, e);
	if (ret) {
		subsys_undo(s, r->hostnqn);
		return ret;
	}
	out->ana_group = ana_group_free(c);
	if (out->ana_group)
		ret = ana_group_join(c, out->port, s, out->ana_group, &grp_made);
	else
		out->ana_group = 1;	/* every group taken: the port's default */
	grp_failed = ret != 0;
	if (!ret && cfs_path(c, host, sizeof(host), "ports"))
		ret = -ENAMETOOLONG;
	else if (!ret) {
		snprintf(path, sizeof(path), "%s/%u/subsystems/%s", host, out->port, r->nqn);
		if (symlink(s, path))
			ret = -errno;
	}
	if (!ret)
		return c->persist ? export_record(c, r, out, e) : 0;
	if (grp_made)
		ana_group_leave(c, out->port, out->ana_group);
	if (out->port_created && !cfs_path(c, host, sizeof(host), "ports")) {
		snprintf(path, sizeof(path), "%s/%u", host, out->port);
		rmdir(path);
	}
	subsys_undo(s, r->hostnqn);
	if (grp_failed)
		return znp_map_fail(e, ZNP_MAP_FAILED, ret,
				    "the NVMe target refused ANA group %u on port %u: %s",
				    out->ana_group, out->port, strerror(-ret));
	return znp_map_fail(e, ZNP_MAP_FAILED, ret,
			    "the NVMe target did not enable port %u (%s %s:%s): %s; is "
			    "nvmet-%s loaded?", out->port, r->transport,
			    r->traddr ? r->traddr : "-", r->trsvcid ? r->trsvcid : "-",
			    strerror(-ret), r->transport);
}

/*
 * Is @device the enabled namespace of a subsystem? @nqn: its subsystem's
 * NQN. Return: 0 found, -ENOENT not, another -errno.
 */
int znp_map_export_holder(const struct znp_map_ctx *c, const char *device, char *nqn,
			  size_t size)
{
	char dir[PATH_MAX], path[PATH_MAX * 2], val[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int ret = -ENOENT;

	if (cfs_path(c, dir, sizeof(dir), "subsystems"))
		return -ENAMETOOLONG;
	dp = opendir(dir);
	if (!dp)
		return errno == ENOENT ? -ENOENT : -errno;
	while (ret == -ENOENT && (d = readdir(dp))) {
		DIR *np;
		struct dirent *n;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/namespaces", dir, d->d_name);
		np = opendir(path);
		if (!np)
			continue;
		while ((n = readdir(np))) {
			if (n->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/namespaces/%s/device_path", dir,
				 d->d_name, n->d_name);
			if (attr_read(path, val, sizeof(val)) || strcmp(val, device))
				continue;
			znp_strlcpy(nqn, d->d_name, size);
			ret = 0;
			break;
		}
		closedir(np);
	}
	closedir(dp);
	return ret;
}

/*
 * --remove --persist of a name no mapping has (unmapped since it was
 * exported): the export file is all there is to forget. With no file the
 * refusal @e of the mapping's lookup stands.
 */
static int forget_unmapped(const struct znp_map_ctx *c, const char *name, int refused,
			   struct znp_map_export_done *out, struct znp_map_err *e)
{
	struct znp_map_err fe = { 0 };
	int conf;

	conf = znp_map_export_conf(c, name, NULL, out->config, sizeof(out->config), &fe);
	if (conf == 0)
		return refused;
	if (conf < 0) {
		*e = fe;
		return conf;
	}
	znp_strlcpy(out->name, name, sizeof(out->name));
	e->subject = out->name;
	conf = znp_map_export_conf_remove(out->config, e);
	out->config_changed = !conf;
	return conf;
}

/*
 * Before the hosts lose subsystem @s (NQN @nqn): its namespace's ANA group
 * inaccessible on every port that offers it, so that the hosts stop
 * sending (a multipath host holds new commands until a path comes back:
 * the next export, within its ctrl_loss_tmo), then wait until the device
 * has nothing in flight, so that every command the target received is
 * answered before the connection goes. Without it a host sends again what
 * it never saw answered, and a Zone Append is written twice. Group 1 is
 * every port's default, shared with other subsystems: an export made so
 * (by hand, or when every group was taken) is not drained.
 */
static void unexport_drain(const struct znp_map_ctx *c, const char *s, const char *nqn,
			   struct znp_map_export_done *out)
{
	char dir[PATH_MAX], path[PATH_MAX * 2], val[32];
	struct dirent *d;
	bool any = false;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/namespaces/1/ana_grpid", s);
	out->ana_group = attr_read(path, val, sizeof(val)) ? 0 : (unsigned int)strtoul(val, NULL, 10);
	out->drain = ZNP_MAP_DRAIN_NONE;
	if (out->ana_group < 2 || cfs_path(c, dir, sizeof(dir), "ports"))
		return;
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/subsystems/%s", dir, d->d_name, nqn);
		if (!exists(path))
			continue;
		snprintf(path, sizeof(path), "%s/%s/ana_groups/%u/ana_state", dir, d->d_name,
			 out->ana_group);
		if (!attr_write(path, "inaccessible"))
			any = true;
	}
	if (dp)
		closedir(dp);
	if (any)
		out->drain = drain_wait(c, out->device, &out->drain_ms);
}

int znp_map_unexport(const struct znp_map_ctx *c, const char *arg,
		     struct znp_map_export_done *out, struct znp_map_err *e)
{
	char dir[PATH_MAX], s[PATH_MAX], path[PATH_MAX * 2];
	struct znp_map_found f;
	struct dirent *d;
	int ret, conf = 0;
	DIR *dp;

	memset(out, 0, sizeof(*out));
	e->subject = arg;
	ret = refuse_namespace(c, arg, e);
	if (!ret)
		ret = znp_map_find(c, arg, &f, e);
	if (ret && c->persist && !strchr(arg, '/') &&
	    (e->kind == ZNP_MAP_UNSUITABLE || e->kind == ZNP_MAP_UNSUPPORTED))
		return forget_unmapped(c, arg, ret, out, e);
	if (ret)
		return ret;
	znp_strlcpy(out->name, znp_map_found_name(&f), sizeof(out->name));
	znp_map_found_device(&f, out->device, sizeof(out->device));
	e->subject = out->name;
	if (c->persist) {
		conf = znp_map_export_conf(c, out->name, NULL, out->config, sizeof(out->config),
					   e);
		if (conf < 0)
			return conf;
	}
	ret = znp_map_export_holder(c, out->device, out->nqn, sizeof(out->nqn));
	if (ret == -ENOENT && conf == 1) {
		/* not exported (this boot): only the file to forget */
		out->nqn[0] = '\0';
		ret = znp_map_export_conf_remove(out->config, e);
		out->config_changed = !ret;
		return ret;
	}
	if (ret == -ENOENT)
		return znp_map_fail(e, ZNP_MAP_UNSUITABLE, -ENOENT,
				    "%s is not exported by the NVMe target%s", out->device,
				    c->persist ? " and has no export file" : "");
	if (ret)
		return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot read the NVMe target: %s",
				    strerror(-ret));
	if (cfs_path(c, s, sizeof(s), "subsystems") || cfs_path(c, dir, sizeof(dir), "ports"))
		return znp_map_fail(e, ZNP_MAP_FAILED, -ENAMETOOLONG, "path too long");
	znp_strlcpy(s + strlen(s), "/", sizeof(s) - strlen(s));
	znp_strlcpy(s + strlen(s), out->nqn, sizeof(s) - strlen(s));
	unexport_drain(c, s, out->nqn, out);
	/* the ports next: hosts lose the subsystem, then the namespace goes */
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/subsystems/%s", dir, d->d_name, out->nqn);
		if (unlink(path))
			continue;
		out->port = (unsigned int)strtoul(d->d_name, NULL, 10);
		ana_group_leave(c, out->port, out->ana_group);
	}
	if (dp)
		closedir(dp);
	/* allowed hosts: links to remove before the subsystem can go */
	snprintf(path, sizeof(path), "%s/allowed_hosts", s);
	dp = opendir(path);
	while (dp && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/allowed_hosts/%s", s, d->d_name);
		unlink(path);
	}
	if (dp)
		closedir(dp);
	subsys_undo(s, NULL);
	if (exists(s))
		return znp_map_fail(e, ZNP_MAP_FAILED, -EBUSY,
				    "NVMe target subsystem %s could not be removed (another "
				    "namespace in it?)", out->nqn);
	if (conf == 1) {
		ret = znp_map_export_conf_remove(out->config, e);
		out->config_changed = !ret;
	}
	return ret;
}
