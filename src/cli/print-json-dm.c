// SPDX-License-Identifier: GPL-2.0-or-later
/* JSON printers of the mapping commands: map, unmap, status, map --restore. */
#include <stdio.h>
#include <string.h>

#include "print-json.h"
#include "svc.h"

static struct json_object *str_or_null(const char *s)
{
	return s ? str(s) : NULL;
}

void znp_json_map(struct znp_print *p, const struct znp_map_view *v)
{
	const struct znp_geom *g = v->geom;
	char path[ZNP_DM_NAME_MAX + 16];

	snprintf(path, sizeof(path), "/dev/mapper/%s", v->name);
	j_begin(p);
	if (v->nr_devices) {
		struct json_object *devs = json_object_new_array();
		struct json_object *backs = json_object_new_array();

		for (unsigned int i = 0; i < v->nr_devices; i++) {
			json_object_array_add(devs, str(v->devices[i]));
			json_object_array_add(backs, str(v->backings + i * v->backing_stride));
		}
		j_put(p, "device", devs);
		j_put(p, "backing", backs);
	} else {
		j_put(p, "device", str(v->device));
		j_put(p, "backing", str(v->backing));
	}
	if (v->ns) {
		j_put(p, "nsid", u64(v->ns->nsid));
		j_put(p, "serial", str(v->ns->serial));
	}
	j_put(p, "identity", str_or_null(v->ident));
	j_put(p, "name", str(v->name));
	j_put(p, "dm_path", json_object_new_string(path));
	j_put(p, "uuid", str(v->uuid));
	j_put(p, "target", str(v->target));
	j_put(p, "table", str(v->table));
	j_put(p, "dry_run", json_object_new_boolean(v->dry_run));
	j_put(p, "dm", str_or_null(v->dm_kname));
	j_put(p, "leftover_removed", str_or_null(v->leftover));
	j_put(p, "lba_size", u64(g->lba_size));
	/* keys mean what they mean everywhere: the namespace's; po2_*: the mapping's */
	j_put(p, "zone_size", u64(g->zone_size));
	j_put(p, "zone_cap", u64(g->zone_cap));
	j_put(p, "nr_zones", u64(g->nr_zones));
	j_put(p, "po2_zone_size", u64(znp_po2_zone_size(g)));
	j_put(p, "po2_nlbas", u64(znp_po2_dev_lbas(g)));
	j_put(p, "size_sectors", u64(v->table_len));
	j_put(p, "persisted", json_object_new_boolean(v->persisted));
	j_put(p, "config", str_or_null(v->persisted ? v->config : NULL));
	j_end(p);
}

void znp_json_map_ublk(struct znp_print *p, const struct znp_map_ublk_view *v)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/ublkb%d", v->dev_id);
	j_begin(p);
	j_put(p, "device", str(v->device));
	j_put(p, "kind", str("ublk"));
	if (v->ns) {
		j_put(p, "nsid", u64(v->ns->nsid));
		j_put(p, "serial", str(v->ns->serial));
	}
	j_put(p, "identity", str(v->ident));
	j_put(p, "name", v->name && v->name[0] ? str(v->name) : NULL);
	j_put(p, "dry_run", json_object_new_boolean(v->dry_run));
	j_put(p, "ublk_dev_id", v->dev_id >= 0 ? u64((uint64_t)v->dev_id) : NULL);
	j_put(p, "ublk_path", v->dev_id >= 0 ? str(path) : NULL);
	j_put(p, "server_pid", v->pid ? json_object_new_int64(v->pid) : NULL);
	j_put(p, "recovered", json_object_new_boolean(v->recovered));
	j_put(p, "foreground", json_object_new_boolean(v->foreground));
	j_put(p, "lba_size", u64(v->geom->lba_size));
	j_put(p, "zone_size", u64(v->geom->zone_size));
	j_put(p, "zone_sectors", u64(v->zone_sectors));
	j_put(p, "zone_cap_sectors", u64(v->zone_cap_sectors));
	j_put(p, "nr_zones", u64(v->geom->nr_zones));
	j_put(p, "size_sectors", u64(v->dev_sectors));
	j_put(p, "queues", u64(v->queues));
	j_put(p, "queue_depth", u64(v->depth));
	j_put(p, "persisted", json_object_new_boolean(v->persisted));
	j_put(p, "config", v->persisted ? str(v->config) : NULL);
	j_end(p);
}

void znp_json_unmap(struct znp_print *p, const struct znp_unmap_view *v)
{
	j_begin(p);
	j_put(p, "name", str(v->name));
	j_put(p, "kind", str(v->ublk ? "ublk" : "dm"));
	j_put(p, "backing", str_or_null(v->backing));
	j_put(p, "dry_run", json_object_new_boolean(v->dry_run));
	j_put(p, "deferred", json_object_new_boolean(v->deferred));
	j_put(p, "forgotten", json_object_new_boolean(v->forgotten));
	j_end(p);
}

void znp_json_export(struct znp_print *p, const struct znp_export_view *v)
{
	j_begin(p);
	j_put(p, "name", str(v->name));
	j_put(p, "device", v->device[0] ? str(v->device) : NULL);
	j_put(p, "nqn", v->nqn[0] ? str(v->nqn) : NULL);
	j_put(p, "removed", json_object_new_boolean(v->removed));
	j_put(p, "config", str_or_null(v->config));
	j_put(p, "port", json_object_new_int64(v->port));
	j_put(p, "ana_group", v->ana_group ? json_object_new_int64(v->ana_group) : NULL);
	if (v->removed) {
		j_put(p, "drain", str_or_null(v->drain));
		j_put(p, "drain_ms", v->drain ? json_object_new_int64(v->drain_ms) : NULL);
	} else {
		j_put(p, "port_created", json_object_new_boolean(v->port_created));
		j_put(p, "transport", str(v->transport));
		j_put(p, "traddr", str_or_null(v->traddr));
		j_put(p, "trsvcid", str_or_null(v->trsvcid));
		j_put(p, "hostnqn", str_or_null(v->hostnqn));
	}
	j_end(p);
}

void znp_json_status_begin(struct znp_print *p)
{
	j_begin(p);
	j_array_begin(p, "mappings");
}

static void json_status_ublk(struct znp_print *p, const struct znp_status_row *r)
{
	const struct znp_ublk_rec *u = r->ublk->rec;
	struct json_object *o = json_object_new_object();

	add(o, "name", str(u->name[0] ? u->name : r->ublk->device));
	add(o, "kind", str("ublk"));
	add(o, "device", str(r->ublk->device));
	add(o, "ublk_dev_id", u64((uint64_t)u->dev_id));
	add(o, "identity", str(u->ident));
	add(o, "backing", u->ng[0] ? str(u->ng) : NULL);
	add(o, "nsid", u->nsid ? u64(u->nsid) : NULL);
	add(o, "lba_size", u64(u->lba_size));
	add(o, "zone_sectors", u64(u->zone_size * (u->lba_size / 512)));
	add(o, "zone_cap_sectors", u64(u->zone_cap * (u->lba_size / 512)));
	add(o, "po2_zone_sectors", u64(u->po2_zone_sectors));
	add(o, "nr_zones", u64(u->nr_zones));
	add(o, "size_sectors", u64(u->po2_zone_sectors * u->nr_zones));
	add(o, "server_pid", json_object_new_int64(u->pid));
	add(o, "health", str(r->ublk->health));
	add(o, "dev_state", r->ublk->dev_state >= 0 ?
	    json_object_new_int64(r->ublk->dev_state) : NULL);
	add(o, "persisted", json_object_new_boolean(r->persisted));
	j_array_elem(p, o);
	p->nr_items++;
}

void znp_json_status_row(struct znp_print *p, const struct znp_status_row *r)
{
	const struct znp_dm_info *d = r->dm;
	struct json_object *o;
	char kname[32];

	if (r->ublk) {
		json_status_ublk(p, r);
		return;
	}
	o = json_object_new_object();
	snprintf(kname, sizeof(kname), "dm-%u", d->minor);
	add(o, "name", str(d->name));
	add(o, "kind", str("dm"));
	add(o, "dm", str(kname));
	add(o, "uuid", str(d->uuid));
	add(o, "identity", str_or_null(r->ident));
	add(o, "backing", str_or_null(r->backing));
	add(o, "ctrl", r->ns ? str(r->ns->ctrl) : NULL);
	add(o, "nsid", r->ns ? u64(r->ns->nsid) : NULL);
	add(o, "target", d->nr_targets ? str(d->table.target) : NULL);
	if (d->has_status) {
		add(o, "zone_sectors", u64(d->status.zone_sectors));
		add(o, "po2_zone_sectors", u64(d->status.po2_zone_sectors));
		add(o, "nr_zones", u64(d->status.nr_zones));
	}
	add(o, "size_sectors", d->nr_targets ? u64(d->table.len) : NULL);
	add(o, "open_count", json_object_new_int64(d->open_count));
	add(o, "suspended", json_object_new_boolean(d->suspended));
	add(o, "creating", json_object_new_boolean(znp_dm_name_is_creating(d->name)));
	add(o, "persisted", json_object_new_boolean(r->persisted));
	j_array_elem(p, o);
	p->nr_items++;
}

void znp_json_status_end(struct znp_print *p)
{
	j_array_end(p);
	j_put(p, "nr_mappings", u64(p->nr_items));
	j_end(p);
}

void znp_json_restore_begin(struct znp_print *p, const char *config)
{
	j_begin(p);
	j_put(p, "config", str(config));
	j_array_begin(p, "entries");
}

void znp_json_restore_entry(struct znp_print *p, const struct znp_restore_entry *e)
{
	struct json_object *o = json_object_new_object();

	add(o, "line", u64(e->line));
	add(o, "name", str_or_null(e->name));
	add(o, "identity", str_or_null(e->ident));
	add(o, "result", str(e->result));
	add(o, "device", str_or_null(e->device));
	if (e->error) {
		const struct znp_error_view v = { .device = e->name, .message = e->error };

		add(o, "error", znp_json_error(&v));
	} else {
		add(o, "error", NULL);
	}
	j_array_elem(p, o);
	p->nr_items++;
}

/* The document says it already: "entries": [], "nr_entries": 0. */
void znp_json_restore_no_file(struct znp_print *p, const char *config, bool dry_run)
{
}

void znp_json_restore_end(struct znp_print *p)
{
	j_array_end(p);
	j_put(p, "nr_entries", u64(p->nr_items));
	j_end(p);
}
