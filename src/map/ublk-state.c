// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ublk route after creation: find a mapping by what names it, its
 * health (lock, sysfs, GET_DEV_INFO), `status`, `unmap` (STOP_DEV, wait
 * for the server to leave, DEL_DEV, forget the record and the entry). The
 * records are written by the servers znp_map_ublk_serve() runs; see
 * src/svc/svc.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "map.h"


void znp_map_ublk_route(const struct znp_map_ctx *c, struct znp_ublk_route_info *out)
{
	bool fake = c->env->sysfs_root || c->env->dev_root;
	char ctl[PATH_MAX], mods[PATH_MAX + 80];
	struct utsname u;
	int (*probe)(uint64_t *) = NULL;

	if (znp_dev_path(c->env, ctl, sizeof(ctl), "ublk-control"))
		ctl[0] = '\0';
	if (!fake && !uname(&u))
		snprintf(mods, sizeof(mods), "/lib/modules/%s", u.release);
	else
		mods[0] = '\0';
	if (!fake)
		probe = znp_ublk_probe;
	znp_ublk_route(ctl[0] ? ctl : NULL, mods[0] ? mods : NULL, probe, out);
}

/* Health of a record's mapping: lock, sysfs, and GET_DEV_INFO when we can. */
static enum znp_ublk_health rec_health(const struct znp_map_ctx *c, int dirfd,
				       const struct znp_ublk_rec *r, int *state)
{
	struct znp_ublk_presence pr;
	int held = znp_ns_lock_held(dirfd, r->ident);

	znp_ublk_presence(c->env->sysfs_root, r->dev_id, &pr);
	if (!c->env->sysfs_root && (pr.cdev || pr.disk)) {
		struct znp_ublk_info info;

		if (!znp_ublk_dev_info(r->dev_id, &info))
			pr.state = info.state;
	}
	*state = pr.state;
	return znp_ublk_health(held > 0, &pr);
}

const char *znp_map_ublk_mapped_as(const struct znp_map_ctx *c, const struct znp_ns_info *ns,
				   char *buf, size_t size)
{
	char ident[ZNP_IDENT_MAX];
	struct znp_ublk_rec r;
	struct znp_ublk_presence pr;
	int dirfd;
	const char *ret = NULL;

	if (znp_ident_from_ns(ns, ident, sizeof(ident)))
		return NULL;
	dirfd = znp_run_dir_open(c->run_dir, false);
	if (dirfd < 0)
		return NULL;
	if (!znp_ublk_rec_get(dirfd, ident, &r)) {
		znp_ublk_presence(c->env->sysfs_root, r.dev_id, &pr);
		if (pr.cdev || pr.disk) {
			snprintf(buf, size, "ublkb%d", r.dev_id);
			ret = buf;
		}
	}
	close(dirfd);
	return ret;
}

/* ---- which mapping does an argument name? ------------------------------- */

struct ublk_match {
	const struct znp_map_ctx *c;
	const char *arg;
	char ident[ZNP_IDENT_MAX];	/* of the namespace @arg names, "" if not one */
	int dev_id;			/* ublkbN named, -1 */
	struct znp_ublk_rec rec;
	bool found;
};

static int parse_ublkb(const char *s)
{
	const char *b = strrchr(s, '/');
	char *end;
	long v;

	b = b ? b + 1 : s;
	if (strncmp(b, "ublkb", 5) || b[5] < '0' || b[5] > '9')
		return -1;
	v = strtol(b + 5, &end, 10);
	return *end || v > INT_MAX ? -1 : (int)v;
}

static void match_prepare(struct ublk_match *m)
{
	struct znp_dev *dev;
	const char *why;

	m->dev_id = parse_ublkb(m->arg);
	m->ident[0] = '\0';
	if (m->dev_id >= 0 || !strchr(m->arg, '/'))
		return;
	/* a namespace node: its identity */
	if (!znp_dev_open(m->c->env, m->arg, 0, &dev, &why)) {
		int ret = znp_dev_probe_flags(dev, ZNP_PROBE_DEFER_CAP);

		/* the identity (NGUID, EUI-64) is the Identify's, read by the probe */
		if (ret && ret != -EMEDIUMTYPE)
			m->ident[0] = '\0';
		else if (znp_dev_is_nvme(dev) &&
			 znp_ident_from_ns(&dev->ns, m->ident, sizeof(m->ident)))
			m->ident[0] = '\0';
		znp_dev_close(dev);
	}
}

static bool match_rec(const struct ublk_match *m, const struct znp_ublk_rec *r)
{
	if (m->dev_id >= 0)
		return r->dev_id == m->dev_id;
	if (m->ident[0])
		return !strcmp(r->ident, m->ident);
	return r->name[0] && !strcmp(r->name, m->arg);
}

static int find_cb(const struct znp_ublk_rec *r, const char *file, const char *why, void *arg)
{
	struct ublk_match *m = arg;

	if (!r || !match_rec(m, r))
		return 0;
	m->rec = *r;
	m->found = true;
	return 1;
}

/* The records cannot be listed (ENOMEM, EACCES). Return: a negative errno. */
static int records_error(const struct znp_map_ctx *c, int ret, struct znp_map_err *e)
{
	return znp_map_fail(e, ZNP_MAP_FAILED, ret, "cannot read the ublk mapping records in "
			    "%s: %s", c->run_dir, znp_strerror(ret));
}

/*
 * The state directory for reading. None, or one that is not ours alone
 * (znp_run_dir_open() refuses it: others could plant records), holds no
 * records: a negative return means "none", not a failure.
 */
static int open_records(const struct znp_map_ctx *c)
{
	return znp_run_dir_open(c->run_dir, false);
}

/* Return: 1 found (@m->rec), 0 not, or -errno: not "not found". */
static int find_rec(const struct znp_map_ctx *c, int dirfd, const char *arg,
		    struct ublk_match *m)
{
	int ret;

	*m = (struct ublk_match){ .c = c, .arg = arg };
	match_prepare(m);
	ret = znp_ublk_rec_each(dirfd, find_cb, m);
	return ret < 0 ? ret : m->found;
}

struct conf_match {
	const char *ident;
	bool found;
};

static int conf_match_cb(unsigned int lineno, const struct znp_dmconf_entry *ent,
			 const char *why, void *arg)
{
	struct conf_match *cm = arg;

	if (ent && ent->ublk && !strcmp(ent->ident, cm->ident))
		cm->found = true;
	return cm->found;
}

/* Is the namespace recorded as a ublk mapping in the (default) mapping file? */
static bool persisted(const char *ident)
{
	struct conf_match cm = { .ident = ident };
	char *buf;
	size_t len;

	if (znp_dmconf_read(ZNP_DMCONF_PATH, &buf, &len))
		return false;
	znp_dmconf_parse(buf, len, conf_match_cb, &cm);
	free(buf);
	return cm.found;
}

static void found_fill(const struct znp_map_ctx *c, int dirfd, const struct znp_ublk_rec *r,
		       struct znp_map_ublk_found *f, bool with_persisted)
{
	f->rec = *r;
	snprintf(f->device, sizeof(f->device), "ublkb%d", r->dev_id);
	f->health = rec_health(c, dirfd, r, &f->dev_state);
	f->persisted = with_persisted && (r->persist || persisted(r->ident));
}

int znp_map_ublk_find(const struct znp_map_ctx *c, const char *arg,
		      struct znp_map_ublk_found *out, struct znp_map_err *e)
{
	struct ublk_match m;
	int dirfd = open_records(c), ret;

	e->subject = arg;
	if (dirfd < 0)
		return 0;
	ret = find_rec(c, dirfd, arg, &m);
	if (ret > 0 && out)
		found_fill(c, dirfd, &m.rec, out, true);
	close(dirfd);
	return ret < 0 ? records_error(c, ret, e) : ret;
}

int znp_map_ublk_serving(const struct znp_map_ctx *c, const struct znp_dev *dev,
			 struct znp_map_ublk_found *out, struct znp_map_err *e)
{
	/* the lookup of znp_map_ublk_find() for a namespace node, the identity known */
	struct ublk_match m = { .c = c, .dev_id = -1 };
	int dirfd, ret;

	if (!znp_dev_is_nvme(dev) || znp_ident_from_ns(&dev->ns, m.ident, sizeof(m.ident)))
		return 0;
	dirfd = open_records(c);
	if (dirfd < 0)
		return 0;
	ret = znp_ublk_rec_each(dirfd, find_cb, &m);
	if (ret >= 0 && m.found)
		found_fill(c, dirfd, &m.rec, out, false);
	close(dirfd);
	if (ret < 0)
		return records_error(c, ret, e);
	return m.found && out->health != ZNP_UBLK_MISSING;
}

int znp_map_ublk_served(const struct znp_map_ctx *c, const char *ng, struct znp_map_err *e)
{
	struct znp_map_ublk_found f;
	struct ublk_match m;
	int dirfd = open_records(c), ret;

	if (dirfd < 0)
		return 0;
	ret = find_rec(c, dirfd, ng, &m);
	if (ret > 0)
		found_fill(c, dirfd, &m.rec, &f, false);
	close(dirfd);
	if (ret < 0)
		return records_error(c, ret, e);
	return ret > 0 && f.health == ZNP_UBLK_ALIVE;
}

struct status_each {
	const struct znp_map_ctx *c;
	void (*cb)(const struct znp_map_ublk_found *f, void *arg);
	void (*bad)(const char *file, const char *why, void *arg);
	void *arg;
	int dirfd, rows;
};

static int status_cb(const struct znp_ublk_rec *r, const char *file, const char *why, void *arg)
{
	struct status_each *s = arg;
	struct znp_map_ublk_found f;

	if (!s->cb) {		/* counting */
		s->rows++;
		return 0;
	}
	if (!r) {
		if (s->bad)
			s->bad(file, why, s->arg);
		return 0;
	}
	found_fill(s->c, s->dirfd, r, &f, true);
	s->cb(&f, s->arg);
	s->rows++;
	return 0;
}

int znp_map_ublk_status(const struct znp_map_ctx *c,
			void (*cb)(const struct znp_map_ublk_found *f, void *arg),
			void (*bad)(const char *file, const char *why, void *arg), void *arg,
			struct znp_map_err *e)
{
	struct status_each s = { .c = c, .cb = cb, .bad = bad, .arg = arg };
	int ret;

	s.dirfd = open_records(c);
	if (s.dirfd < 0)
		return 0;
	ret = znp_ublk_rec_each(s.dirfd, status_cb, &s);
	close(s.dirfd);
	return ret < 0 ? records_error(c, ret, e) : s.rows;
}
