// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map --restore: every namespace recorded in the mapping file that is
 * present, found by its stable identity (never by instance names, which
 * change between boots), with the node each route maps (the block device
 * for dm-po2zone, the ng node for ublk) and whether its geometry is still
 * the recorded one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"

static int collect_ns(const struct znp_scan_entry *se, void *arg)
{
	struct znp_map_present *p = arg;
	struct znp_map_ns *f;

	f = znp_grow(p->ns, &p->cap, p->nr, sizeof(*f), 16);
	if (!f)
		return -ENOMEM;
	p->ns = f;
	f = &p->ns[p->nr++];
	memset(f, 0, sizeof(*f));
	f->ns = se->ns;
	f->geom = se->geom;
	f->ok = !se->probe_ret && se->is_zoned;
	if (znp_ident_from_ns(&se->ns, f->ident, sizeof(f->ident)))
		f->ident[0] = '\0';
	return 0;
}

int znp_map_present_scan(const struct znp_map_ctx *c, struct znp_map_present *p)
{
	*p = (struct znp_map_present){ 0 };
	return znp_scan(c->env, collect_ns, p);
}

void znp_map_present_free(struct znp_map_present *p)
{
	free(p->ns);
	p->ns = NULL;
	p->nr = p->cap = 0;
}

/* The namespace present with identity @ident, or NULL. */
static const struct znp_map_ns *find_ns(const struct znp_map_present *p, const char *ident)
{
	for (size_t i = 0; i < p->nr; i++)
		if (!strcmp(p->ns[i].ident, ident))
			return &p->ns[i];
	return NULL;
}

/* A recorded geometry value (0: not recorded) that the namespace no longer has. */
static bool geom_differs(const struct znp_dmconf_entry *ent, const struct znp_geom *g)
{
	return (ent->lba_size && ent->lba_size != g->lba_size) ||
	       (ent->zone_size && ent->zone_size != g->zone_size) ||
	       (ent->nr_zones && ent->nr_zones != g->nr_zones);
}

struct each {
	const struct znp_map_ctx *c;
	const struct znp_map_present *p;
	int (*cb)(const struct znp_map_restore_item *it, void *arg);
	void *arg;
};

static int each_cb(unsigned int lineno, const struct znp_dmconf_entry *ent, const char *why,
		   void *arg)
{
	struct each *x = arg;
	struct znp_map_restore_item it = { .line = lineno, .ent = ent, .why = why };
	const struct znp_map_ns *f;

	if (ent) {
		f = find_ns(x->p, ent->ident);
		it.ns = f;
		if (f) {
			znp_dev_path(x->c->env, it.path, sizeof(it.path),
				     !ent->ublk && f->ns.blk_visible && f->ns.blk_name[0] ?
				     f->ns.blk_name : f->ns.ng_name);
			it.geom_differs = f->ok && geom_differs(ent, &f->geom);
		}
	}
	x->cb(&it, x->arg);
	return 0;
}

int znp_map_restore_each(const struct znp_map_ctx *c, const struct znp_map_present *p,
			 const char *buf, size_t len,
			 int (*cb)(const struct znp_map_restore_item *it, void *arg), void *arg)
{
	struct each x = { .c = c, .p = p, .cb = cb, .arg = arg };

	return znp_dmconf_parse(buf, len, each_cb, &x);
}

static int only_ublk_cb(unsigned int lineno, const struct znp_dmconf_entry *ent,
			const char *why, void *arg)
{
	if (ent && !ent->ublk)
		*(bool *)arg = false;
	return 0;
}

bool znp_map_conf_only_ublk(const char *buf, size_t len)
{
	bool only = true;

	znp_dmconf_parse(buf, len, only_ublk_cb, &only);
	return only;
}
