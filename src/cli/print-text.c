// SPDX-License-Identifier: GPL-2.0-or-later
/* Text printer. LBAs in hex like nvme-cli; -H: decimal LBAs, sizes with units. */
#include <inttypes.h>
#include <string.h>

#include "print.h"
#include "svc.h"

#define LIST_FMT	"%-14s %-15s %5s %5s %-10s %-12s %-12s %8s %-4s %-7s %-16s %s\n"
#define REPORT_FMT	"%-8s %-14s %-14s %-14s %-10s %-13s %s\n"
#define REPORT_FMT_H	"%-8s %-14s %-10s %-14s %-10s %-10s %-13s %s\n"

static bool human(const struct znp_print *p)
{
	return p->flags & ZNP_PF_HUMAN;
}

static const char *lba_str(char *buf, size_t len, bool dec, uint64_t v)
{
	snprintf(buf, len, dec ? "%" PRIu64 : "0x%" PRIx64, v);
	return buf;
}

/* LBA count as hex, or with -H as bytes with units. */
static const char *lbas_str(const struct znp_print *p, char *buf, size_t len,
			    uint64_t lbas, uint32_t lba_size)
{
	if (human(p))
		znp_human_size(buf, len, lbas * lba_size);
	else
		snprintf(buf, len, "0x%" PRIx64, lbas);
	return buf;
}

static void text_list_begin(struct znp_print *p)
{
	fprintf(p->out, LIST_FMT, "NODE", "BLOCK", "NSID", "LBA", "SIZE", "ZONE-SIZE",
		"ZONE-CAP", "ZONES", "PO2", "BLKDEV", "MAPPED-AS", "MODEL");
}

static void text_list_row(struct znp_print *p, const struct znp_list_row *r)
{
	const struct znp_geom *g = r->geom;
	char nsid[16], lba[16], size[32], zs[32], zc[32], nz[24];
	const char *ng = r->ng_path ? r->ng_path : r->ns->ng_name;
	const char *blk = r->blk_path && r->ns->blk_visible ? r->blk_path : r->ns->blk_name;

	snprintf(nsid, sizeof(nsid), "%" PRIu32, r->ns->nsid);
	if (g) {
		snprintf(lba, sizeof(lba), "%" PRIu32, g->lba_size);
		znp_human_size(size, sizeof(size), g->nlbas * g->lba_size);
		lbas_str(p, zs, sizeof(zs), g->zone_size, g->lba_size);
		lbas_str(p, zc, sizeof(zc), g->zone_cap, g->lba_size);
		if (g->zone_cap_varies)
			snprintf(zc, sizeof(zc), "varies");
		snprintf(nz, sizeof(nz), "%" PRIu64, g->nr_zones);
	}
	fprintf(p->out, LIST_FMT, *r->ns->ng_name ? ng : "-",
		*r->ns->blk_name ? blk : "-", nsid,
		g ? lba : "?", g ? size : "?", g ? zs : "?", g ? zc : "?", g ? nz : "?",
		g ? (g->zone_size_is_po2 ? "yes" : "no") : "?",
		r->ns->blk_visible ? "visible" : "hidden",
		r->mapped_as ? r->mapped_as : "-", *r->ns->model ? r->ns->model : "-");
	if (!g && (p->flags & ZNP_PF_VERBOSE))
		fprintf(p->out, "  (%s: %s)\n", ng, znp_strerror(r->probe_ret));
	p->nr_items++;
}

static void text_list_end(struct znp_print *p)
{
	if (p->flags & ZNP_PF_VERBOSE)
		fprintf(p->out, "%" PRIu64 " namespace%s\n", p->nr_items,
			p->nr_items == 1 ? "" : "s");
}

static void text_report_begin(struct znp_print *p, const struct znp_report_hdr *h)
{
	const struct znp_geom *g = h->geom;
	char zs[32], zc[32];

	p->lba_size = g->lba_size;
	if (p->flags & ZNP_PF_VERBOSE) {
		fprintf(p->out, "# %s:", h->device);
		if (h->ns)
			fprintf(p->out, " nsid %" PRIu32 ",", h->ns->nsid);
		znp_human_size(zs, sizeof(zs), g->zone_size * g->lba_size);
		znp_human_size(zc, sizeof(zc), g->zone_cap * g->lba_size);
		fprintf(p->out, " LBA size %" PRIu32 ", zone size 0x%" PRIx64
			" (%s, %s), zone capacity 0x%" PRIx64 " (%s)%s, %" PRIu64
			" zones\n", g->lba_size, g->zone_size, zs,
			g->zone_size_is_po2 ? "power of 2" : "not a power of 2",
			g->zone_cap, zc, g->zone_cap_varies ? " varies" : "",
			g->nr_zones);
	}
	if (h->summary)
		return;
	if (human(p))
		fprintf(p->out, REPORT_FMT_H, "ZONE", "START", "CAP", "WP", "USED",
			"STATE", "TYPE", "ATTRS");
	else
		fprintf(p->out, REPORT_FMT, "ZONE", "START", "CAP", "WP", "STATE",
			"TYPE", "ATTRS");
}

static void text_report_zone(struct znp_print *p, const struct znp_zone *z,
			     uint64_t zone_no)
{
	char no[24], start[24], cap[32], wp[24], used[32], attrs[8];
	bool dec = human(p);

	snprintf(no, sizeof(no), "%" PRIu64, zone_no);
	snprintf(attrs, sizeof(attrs), "0x%02x", z->attrs);
	lba_str(start, sizeof(start), dec, z->start);
	/* the "no valid write pointer" marker of full/read-only/offline zones */
	if (z->wp == UINT64_MAX)
		snprintf(wp, sizeof(wp), "-");
	else
		lba_str(wp, sizeof(wp), dec, z->wp);
	lbas_str(p, cap, sizeof(cap), z->cap, p->lba_size);
	if (!dec) {
		fprintf(p->out, REPORT_FMT, no, start, cap, wp,
			znp_zone_cond_name(z->cond), znp_zone_type_name(z->type), attrs);
	} else {
		/* full, read-only and offline zones have no valid write pointer */
		if (z->wp >= z->start && z->wp - z->start <= z->cap)
			znp_human_size(used, sizeof(used), (z->wp - z->start) * p->lba_size);
		else
			snprintf(used, sizeof(used), "-");
		fprintf(p->out, REPORT_FMT_H, no, start, cap, wp, used,
			znp_zone_cond_name(z->cond), znp_zone_type_name(z->type), attrs);
	}
	p->nr_items++;
}

static void text_limit(struct znp_print *p, const char *what, uint64_t n, uint32_t max)
{
	if (max)
		fprintf(p->out, "%-16s %8" PRIu64 " of at most %" PRIu32 "\n", what, n, max);
	else
		fprintf(p->out, "%-16s %8" PRIu64 " (no limit)\n", what, n);
}

static void text_report_summary(struct znp_print *p, const struct znp_zone_summary *s)
{
	fprintf(p->out, "%-16s %8s\n", "STATE", "ZONES");
	for (int f = ZNP_RF_EMPTY; f <= ZNP_RF_OFFLINE; f++)
		fprintf(p->out, "%-16s %8" PRIu64 "\n",
			znp_state_filter_name((enum znp_state_filter)f), s->by_state[f]);
	if (s->by_state[0])	/* conventional zones: no write pointer, no state */
		fprintf(p->out, "%-16s %8" PRIu64 "\n", "not-wp", s->by_state[0]);
	fprintf(p->out, "%-16s %8" PRIu64 "\n", "total", s->nr_zones);
	text_limit(p, "open", s->open, s->max_open);
	text_limit(p, "active", s->active, s->max_active);
	p->nr_items = s->nr_zones;
}

static void text_report_end(struct znp_print *p)
{
	if (p->flags & ZNP_PF_VERBOSE)
		fprintf(p->out, "# %" PRIu64 " zone%s reported\n", p->nr_items,
			p->nr_items == 1 ? "" : "s");
}

static void text_check(struct znp_print *p, const struct znp_check_view *v)
{
	const struct znp_geom *g = v->geom;
	bool first = true;
	char sz[32];

	fprintf(p->out, "device:       %s", v->device);
	if (v->ns)
		fprintf(p->out, " (nsid %" PRIu32 ", block device %s)", v->ns->nsid,
			v->ns->blk_visible ? "visible" : "hidden");
	fprintf(p->out, "\nverdict:      %s: %s\nreasons:     ",
		znp_verdict_name(v->res.verdict), znp_check_text(&v->res));
	for (unsigned int bit = 0; bit < 32; bit++) {
		if (!(v->res.reasons & ZNP_R_ALL & (1u << bit)))
			continue;
		fprintf(p->out, "%s%s", first ? " " : ", ", znp_reason_name(1u << bit));
		first = false;
	}
	fprintf(p->out, "%s\n", first ? " -" : "");
	if (!g)
		return;
	fprintf(p->out, "LBA size:     %" PRIu32 "\n", g->lba_size);
	znp_human_size(sz, sizeof(sz), g->zone_size * g->lba_size);
	fprintf(p->out, "zone size:    0x%" PRIx64 " LBAs (%s), %s\n", g->zone_size, sz,
		g->zone_size_is_po2 ? "a power of 2" : "not a power of 2");
	znp_human_size(sz, sizeof(sz), g->zone_cap * g->lba_size);
	fprintf(p->out, "zone cap:     0x%" PRIx64 " LBAs (%s)%s\n", g->zone_cap, sz,
		g->zone_cap_varies ? ", varies between zones" : "");
	fprintf(p->out, "zones:        %" PRIu64 "\n", g->nr_zones);
	if (!g->zone_size_is_po2) {
		uint64_t po2 = znp_po2_zone_size(g);

		znp_human_size(sz, sizeof(sz), po2 * g->lba_size);
		fprintf(p->out, "po2 zone:     0x%" PRIx64 " LBAs (%s) when mapped\n", po2, sz);
	}
}

static void text_zone_op_begin(struct znp_print *p, const struct znp_zone_op_view *v)
{
	p->op = v;
}

static void text_zone_op_cmd(struct znp_print *p, enum znp_zone_action a,
			     uint64_t slba, uint64_t zone_no, bool all)
{
	if (all)
		fprintf(p->out, "would send: %s select-all\n", znp_zone_action_name(a));
	else
		fprintf(p->out, "would send: %s zone %" PRIu64 " slba 0x%" PRIx64 "\n",
			znp_zone_action_name(a), zone_no, slba);
	p->nr_items++;
}

static void text_zone_op_end(struct znp_print *p, uint64_t done, int ret)
{
	const struct znp_zone_op_view *v = p->op;

	if (v->dry_run) {
		fprintf(p->out, "dry run: %" PRIu64 " command%s not sent to %s\n",
			p->nr_items, p->nr_items == 1 ? "" : "s", v->device);
		return;
	}
	if (ret)
		return;		/* the error line on stderr says it all */
	if (v->all)
		fprintf(p->out, "%s: all zones of %s\n", znp_zone_action_name(v->action),
			v->device);
	else
		fprintf(p->out, "%s: %" PRIu64 " zone%s from zone %" PRIu64
			" (slba 0x%" PRIx64 ") of %s\n", znp_zone_action_name(v->action),
			done, done == 1 ? "" : "s", v->first_zone, v->start_lba, v->device);
}

static void text_discard_begin(struct znp_print *p, const struct znp_discard_view *v)
{
	char sz[32];

	p->discard = v;
	if (!v->dry_run)
		return;
	znp_human_size(sz, sizeof(sz), v->bytes);
	fprintf(p->out, "plan: %s target %s, %" PRIu64 " range%s, %s, %" PRIu64
		" command%s with %s at queue depth %u\n", v->device, v->target, v->ranges,
		v->ranges == 1 ? "" : "s", sz, v->commands, v->commands == 1 ? "" : "s",
		v->engine, v->queue_depth);
}

static void text_discard_cmd(struct znp_print *p, uint64_t start, uint64_t len)
{
	const char *unit = p->discard->unit;

	/* hex, as the zone commands' dry run prints its LBAs */
	fprintf(p->out, "would send: %s start 0x%" PRIx64 " length 0x%" PRIx64 " %s\n",
		!strcmp(p->discard->target, "zoned") ? "zone reset" : "discard",
		start, len, !strcmp(unit, "lba") ? "LBAs" : "bytes");
	p->nr_items++;
}

static void text_discard_end(struct znp_print *p, const struct znp_discard_summary *s)
{
	const struct znp_discard_view *v = p->discard;
	char sz[32];

	if (!s) {
		fprintf(p->out, "dry run: %" PRIu64 " command%s not sent to %s\n",
			p->nr_items, p->nr_items == 1 ? "" : "s", v->device);
		return;
	}
	if (s->ret && !s->interrupted)
		return;		/* the error line on stderr says it all */
	znp_human_size(sz, sizeof(sz), s->bytes);
	fprintf(p->out, "%s %s of %s: %" PRIu64 " of %" PRIu64 " commands in %.3f s"
		" (%.0f IOPS) with %s%s%s\n",
		!strcmp(v->target, "zoned") ? "reset" : "discarded", sz, v->device,
		s->completed, s->commands, s->seconds, s->iops, s->engine,
		s->fallbacks ? ", io_uring unsupported: fell back" : "",
		s->interrupted ? ", interrupted" : "");
}

static void text_version(struct znp_print *p, const char *prog, const char *version)
{
	fprintf(p->out, "%s version %s\n", prog, version);
}

/* ---- map, unmap, status (cmd_map.c, cmd_unmap.c, cmd_status.c) ---------- */

static void text_map_geom(struct znp_print *p, const struct znp_map_view *v, const char *pfx)
{
	const struct znp_geom *g = v->geom;
	uint64_t po2 = znp_po2_zone_size(g);
	char a[32], b[32], c[32];

	znp_human_size(a, sizeof(a), po2 * g->lba_size);
	znp_human_size(b, sizeof(b), g->zone_size * g->lba_size);
	fprintf(p->out, "%szone size:    0x%" PRIx64 " LBAs (%s), a power of 2 (device zone: 0x%"
		PRIx64 " LBAs, %s)\n", pfx, po2, a, g->zone_size, b);
	znp_human_size(c, sizeof(c), g->zone_cap * g->lba_size);
	fprintf(p->out, "%szone cap:     0x%" PRIx64 " LBAs (%s)\n", pfx, g->zone_cap, c);
	fprintf(p->out, "%szones:        %" PRIu64 "\n", pfx, g->nr_zones);
	znp_human_size(a, sizeof(a), v->table_len * 512);
	fprintf(p->out, "%ssize:         0x%" PRIx64 " LBAs (%s)\n", pfx, znp_po2_dev_lbas(g), a);
	fprintf(p->out, "%sLBA size:     %" PRIu32 "\n", pfx, g->lba_size);
}

static void text_map(struct znp_print *p, const struct znp_map_view *v)
{
	const char *pfx = v->dry_run ? "# " : "";

	if (v->dry_run)
		fprintf(p->out, "dmsetup create %s --uuid %s --table '%s'\n", v->name, v->uuid,
			v->table);
	else
		fprintf(p->out, "mapped %s as /dev/mapper/%s (%s)\n", v->device, v->name,
			v->dm_kname ? v->dm_kname : "?");
	fprintf(p->out, "%sbacking:      %s", pfx, v->backing);
	if (v->ns)
		fprintf(p->out, " (nsid %" PRIu32 ", serial %s)", v->ns->nsid, v->ns->serial);
	fprintf(p->out, "\n%sidentity:     %s\n", pfx, v->ident ? v->ident : "-");
	text_map_geom(p, v, pfx);
	fprintf(p->out, "%stable:        %s\n", pfx, v->table);
	if (v->persisted)
		fprintf(p->out, "%spersisted in: %s\n", pfx, v->config);
	if (v->dry_run)
		fprintf(p->out, "dry run: /dev/mapper/%s not created%s\n", v->name,
			v->persisted ? ", nothing recorded" : "");
}

/* The served device in 512-byte sectors, as the kernel and blkzone show it. */
static void text_map_ublk_sectors(struct znp_print *p, const struct znp_map_ublk_view *v,
				  const char *pfx)
{
	char a[32], b[32], c[32];

	znp_human_size(a, sizeof(a), v->zone_sectors * 512);
	znp_human_size(b, sizeof(b), v->geom->zone_size * v->geom->lba_size);
	znp_human_size(c, sizeof(c), v->zone_cap_sectors * 512);
	fprintf(p->out, "%szone size:    %" PRIu64 " sectors (%s), a power of 2 (device zone: 0x%"
		PRIx64 " LBAs, %s)\n", pfx, v->zone_sectors, a, v->geom->zone_size, b);
	fprintf(p->out, "%szone cap:     %" PRIu64 " sectors (%s)\n", pfx, v->zone_cap_sectors, c);
	fprintf(p->out, "%szones:        %" PRIu64 "\n", pfx, v->geom->nr_zones);
	znp_human_size(a, sizeof(a), v->dev_sectors * 512);
	fprintf(p->out, "%ssize:         %" PRIu64 " sectors (%s)\n", pfx, v->dev_sectors, a);
	fprintf(p->out, "%sLBA size:     %" PRIu32 "\n", pfx, v->geom->lba_size);
}

/* The plan in the namespace's LBAs, in hex: the dm dry run's lines (text_map_geom()). */
static void text_map_ublk_lbas(struct znp_print *p, const struct znp_map_ublk_view *v,
			       const char *pfx)
{
	const struct znp_geom *g = v->geom;
	uint64_t spl = g->lba_size / 512;	/* sectors per LBA (>= 1: 512 B is the least) */
	char a[32], b[32], c[32];

	znp_human_size(a, sizeof(a), v->zone_sectors * 512);
	znp_human_size(b, sizeof(b), g->zone_size * g->lba_size);
	fprintf(p->out, "%szone size:    0x%" PRIx64 " LBAs (%s), a power of 2 (device zone: 0x%"
		PRIx64 " LBAs, %s)\n", pfx, v->zone_sectors / spl, a, g->zone_size, b);
	znp_human_size(c, sizeof(c), v->zone_cap_sectors * 512);
	fprintf(p->out, "%szone cap:     0x%" PRIx64 " LBAs (%s)\n", pfx, v->zone_cap_sectors / spl,
		c);
	fprintf(p->out, "%szones:        %" PRIu64 "\n", pfx, g->nr_zones);
	znp_human_size(a, sizeof(a), v->dev_sectors * 512);
	fprintf(p->out, "%ssize:         0x%" PRIx64 " LBAs (%s)\n", pfx, v->dev_sectors / spl, a);
	fprintf(p->out, "%sLBA size:     %" PRIu32 "\n", pfx, g->lba_size);
}

static void text_map_ublk(struct znp_print *p, const struct znp_map_ublk_view *v)
{
	const char *pfx = v->dry_run ? "# " : "";

	if (v->dry_run)
		fprintf(p->out, "dry run: would serve %s through ublk\n", v->device);
	else
		/* the path alone first: scripts read the first line */
		fprintf(p->out, "/dev/ublkb%d\n%s %s through ublk (server pid %ld%s)\n",
			v->dev_id, v->recovered ? "took back, serving" : "serving", v->device,
			v->pid, v->foreground ? ", foreground" : "");
	fprintf(p->out, "%sbacking:      %s", pfx, v->device);
	if (v->ns)
		fprintf(p->out, " (nsid %" PRIu32 ", serial %s)", v->ns->nsid, v->ns->serial);
	fprintf(p->out, "\n%sidentity:     %s\n", pfx, v->ident);
	if (v->dry_run)
		text_map_ublk_lbas(p, v, pfx);
	else
		text_map_ublk_sectors(p, v, pfx);
	fprintf(p->out, "%squeues:       %u x depth %u\n", pfx, v->queues, v->depth);
	if (v->persisted)
		fprintf(p->out, "%spersisted in: %s\n", pfx, v->config);
}

static void text_unmap(struct znp_print *p, const struct znp_unmap_view *v)
{
	if (v->dry_run && v->ublk) {
		fprintf(p->out, "dry run: %s not unmapped (would stop and delete the ublk device)\n",
			v->name);
		return;
	}
	if (v->dry_run) {
		fprintf(p->out, "dmsetup remove %s\n", v->name);
		fprintf(p->out, "dry run: %s not removed\n", v->name);
		return;
	}
	if (v->ublk) {
		fprintf(p->out, "unmapped %s%s%s (ublk device stopped and deleted)\n", v->name,
			v->backing ? " from " : "", v->backing ? v->backing : "");
		if (v->forgotten)
			fprintf(p->out, "forgotten in %s\n", v->config);
		return;
	}
	fprintf(p->out, "%s %s%s%s%s\n", v->deferred ? "deferred removal of" : "unmapped",
		v->name, v->backing ? " from " : "", v->backing ? v->backing : "",
		v->deferred ? " (removed at its last close)" : "");
	if (v->forgotten)
		fprintf(p->out, "forgotten in %s\n", v->config);
}

static void text_export(struct znp_print *p, const struct znp_export_view *v)
{
	if (v->removed && !v->device[0]) {
		fprintf(p->out, "%s is not mapped; forgot %s\n", v->name, v->config);
		return;
	}
	if (v->removed && !v->nqn[0]) {
		fprintf(p->out, "%s (%s) was not exported; forgot %s\n", v->name, v->device,
			v->config);
		return;
	}
	if (v->removed) {
		fprintf(p->out, "%s (%s) no longer exported as %s%s\n", v->name, v->device, v->nqn,
			v->port ? "" : " (it was on no port)");
		if (!strcmp(v->drain, "done"))
			fprintf(p->out, "hosts' commands drained in %u ms (ANA group %u inaccessible "
				"first)\n", v->drain_ms, v->ana_group);
		else if (!strcmp(v->drain, "timeout"))
			fprintf(p->out, "requests of %s still in flight after %u ms (ANA group %u "
				"inaccessible): removed anyway\n", v->device, v->drain_ms,
				v->ana_group);
		else if (!strcmp(v->drain, "unknown"))
			fprintf(p->out, "the requests in flight of %s could not be read: not "
				"drained\n", v->device);
		else if (v->ana_group == 1)
			fprintf(p->out, "not drained: ANA group %u is shared by the port's "
				"subsystems\n", v->ana_group);
		if (v->config)
			fprintf(p->out, "forgot %s\n", v->config);
		return;
	}
	fprintf(p->out, "exported %s (%s) as %s namespace 1\n", v->name, v->device, v->nqn);
	fprintf(p->out, "port %u%s: %s", v->port, v->port_created ? " (new)" : "", v->transport);
	if (v->traddr)
		fprintf(p->out, " %s%s%s", v->traddr, v->trsvcid ? ":" : "",
			v->trsvcid ? v->trsvcid : "");
	fprintf(p->out, "\nhosts: %s\nANA group: %u\n", v->hostnqn ? v->hostnqn : "any",
		v->ana_group);
	if (v->config)
		fprintf(p->out, "recorded in %s\n", v->config);
}

#define STATUS_FMT "%-24s %-7s %-10s %5s %-10s %-10s %6s %5s %-8s %s\n"

static void text_status_begin(struct znp_print *p)
{
	fprintf(p->out, STATUS_FMT, "NAME", "DEVICE", "BACKING", "NSID", "ZONE", "PO2-ZONE",
		"ZONES", "OPEN", "PERSIST", "STATE");
}

static void text_status_ublk(struct znp_print *p, const struct znp_status_row *r)
{
	const struct znp_ublk_rec *u = r->ublk->rec;
	char nsid[16] = "-", zs[32], pz[32], nz[24], state[64];

	if (u->nsid)
		snprintf(nsid, sizeof(nsid), "%" PRIu32, u->nsid);
	znp_human_size(zs, sizeof(zs), u->zone_size * u->lba_size);
	znp_human_size(pz, sizeof(pz), u->po2_zone_sectors * 512);
	snprintf(nz, sizeof(nz), "%" PRIu64, u->nr_zones);
	snprintf(state, sizeof(state), "ublk %s, pid %ld", r->ublk->health, (long)u->pid);
	fprintf(p->out, STATUS_FMT, u->name[0] ? u->name : r->ublk->device, r->ublk->device,
		u->ng[0] ? u->ng : "-", nsid, zs, pz, nz, "-", r->persisted ? "yes" : "no", state);
	if (p->flags & ZNP_PF_VERBOSE)
		fprintf(p->out, "  identity %s, ublk device %d, zone capacity %" PRIu64
			" LBAs of %" PRIu32 " bytes\n", u->ident, u->dev_id, u->zone_cap, u->lba_size);
	p->nr_items++;
}

static void text_status_row(struct znp_print *p, const struct znp_status_row *r)
{
	const struct znp_dm_info *d = r->dm;
	char kname[32], nsid[16] = "-", zs[32] = "?", pz[32] = "?", nz[24] = "?", open[16];
	const char *state;

	if (r->ublk) {
		text_status_ublk(p, r);
		return;
	}
	snprintf(kname, sizeof(kname), "dm-%" PRIu32, d->minor);
	if (r->ns)
		snprintf(nsid, sizeof(nsid), "%" PRIu32, r->ns->nsid);
	if (d->has_status) {
		znp_human_size(zs, sizeof(zs), d->status.zone_sectors * 512);
		znp_human_size(pz, sizeof(pz), d->status.po2_zone_sectors * 512);
		snprintf(nz, sizeof(nz), "%" PRIu64, d->status.nr_zones);
	}
	snprintf(open, sizeof(open), "%" PRId32, d->open_count);
	if (znp_dm_name_is_creating(d->name))
		state = "creating";
	else if (!d->live_table)
		state = "no-table";
	else
		state = d->suspended ? "suspended" : "active";
	fprintf(p->out, STATUS_FMT, d->name, kname, r->backing ? r->backing : "-", nsid,
		zs, pz, nz, open, r->persisted ? "yes" : "no", state);
	if (p->flags & ZNP_PF_VERBOSE)
		fprintf(p->out, "  uuid %s, table %" PRIu64 " %" PRIu64 " %s %s\n", d->uuid,
			d->table.start, d->table.len, d->table.target, d->table.dev);
	p->nr_items++;
}

static void text_status_end(struct znp_print *p)
{
	if (p->flags & ZNP_PF_VERBOSE)
		fprintf(p->out, "%" PRIu64 " mapping%s\n", p->nr_items, p->nr_items == 1 ? "" : "s");
}

static void text_restore_begin(struct znp_print *p, const char *config)
{
	if (p->flags & ZNP_PF_VERBOSE)
		fprintf(p->out, "restoring mappings recorded in %s\n", config);
}

/* A boot's restore stays quiet; a dry run or -v says why nothing happens. */
static void text_restore_no_file(struct znp_print *p, const char *config, bool dry_run)
{
	if (dry_run || (p->flags & ZNP_PF_VERBOSE))
		fprintf(p->out, "%sno mapping file %s: nothing recorded, nothing to restore\n",
			dry_run ? "dry run: " : "", config);
}

static void text_restore_entry(struct znp_print *p, const struct znp_restore_entry *e)
{
	fprintf(p->out, "%s: %s", e->name ? e->name : "-", e->result);
	if (e->device)
		fprintf(p->out, " (%s)", e->device);
	if (e->error)
		fprintf(p->out, ": %s", e->error);
	fputc('\n', p->out);
	p->nr_items++;
}

static void text_restore_end(struct znp_print *p)
{
	if (p->flags & ZNP_PF_VERBOSE)
		fprintf(p->out, "%" PRIu64 " recorded mapping%s\n", p->nr_items,
			p->nr_items == 1 ? "" : "s");
}

/* The error line is already on stderr; stdout stays as it was. */
static void text_error(struct znp_print *p, const struct znp_error_view *e)
{
}

const struct znp_print_ops znp_print_text_ops = {
	.name = "normal",
	.list_begin = text_list_begin,
	.list_row = text_list_row,
	.list_end = text_list_end,
	.report_begin = text_report_begin,
	.report_zone = text_report_zone,
	.report_summary = text_report_summary,
	.report_end = text_report_end,
	.check = text_check,
	.zone_op_begin = text_zone_op_begin,
	.zone_op_cmd = text_zone_op_cmd,
	.zone_op_end = text_zone_op_end,
	.discard_begin = text_discard_begin,
	.discard_cmd = text_discard_cmd,
	.discard_end = text_discard_end,
	.version = text_version,
	.map = text_map,
	.map_ublk = text_map_ublk,
	.unmap = text_unmap,
	.export = text_export,
	.status_begin = text_status_begin,
	.status_row = text_status_row,
	.status_end = text_status_end,
	.restore_begin = text_restore_begin,
	.restore_no_file = text_restore_no_file,
	.restore_entry = text_restore_entry,
	.restore_end = text_restore_end,
	.error = text_error,
};
