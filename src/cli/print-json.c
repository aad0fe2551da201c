// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * JSON printer, the only user of json-c. The outer object and the streamed
 * arrays are framed by hand; values are json-c objects serialized and freed
 * at once, so memory stays flat however many zones a report has. The one
 * exception is the zone row of a report (millions of them): its keys and
 * condition/type names are constant ASCII and its values unsigned integers,
 * so it is formatted directly, byte for byte what json-c prints (the golden
 * files in tests/cli/golden/ were produced by json-c and pin that). Keys
 * are snake_case; 64-bit quantities are JSON numbers (never int32).
 * The mapping printers (map, unmap, status, restore) are in print-json-dm.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* strerrorname_np() */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cmdtab.h"
#include "exit.h"
#include "print-json.h"
#include "print.h"
#include "svc.h"

/*
 * errno and NVMe status as numbers a script compares, with their names;
 * the one that does not apply is null.
 */
struct json_object *znp_json_error(const struct znp_error_view *e)
{
	struct json_object *o = json_object_new_object();
	const char *name = e->ret > 0 ? strstr(znp_strerror(e->ret), ": ") : NULL;

	add(o, "errno", e->ret < 0 ? u64((uint64_t)-e->ret) : NULL);
	add(o, "errno_name", e->ret < 0 && strerrorname_np(-e->ret) ?
		str(strerrorname_np(-e->ret)) : NULL);
	add(o, "nvme_status", e->ret > 0 ? u64((uint64_t)e->ret) : NULL);
	add(o, "nvme_status_name", name ? str(name + 2) : NULL);
	add(o, "device", e->device ? str(e->device) : NULL);
	add(o, "message", str(e->message ? e->message : znp_strerror(e->ret)));
	if (e->exit_code)
		add(o, "exit_code", u64((uint64_t)e->exit_code));
	return o;
}

/*
 * The error of a command that failed after its document began: the same
 * object as before output, with the exit status the command will return
 * (znp_exit_from_ret(): report, the zone commands, discard and list
 * declare no exceptions in the command table).
 */
static struct json_object *midrun_error(int ret, const char *device)
{
	const struct znp_error_view e = { .ret = ret, .device = device,
					  .exit_code = znp_exit_from_ret(ret) };

	return znp_json_error(&e);
}

/* A measurement rounded to @decimals places, printed as such ("0.000137"). */
static struct json_object *rounded(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

static void json_error(struct znp_print *p, const struct znp_error_view *e)
{
	j_begin(p);
	j_put(p, "error", znp_json_error(e));
	j_end(p);
}

static void json_list_begin(struct znp_print *p)
{
	j_begin(p);
	j_array_begin(p, "namespaces");
}

static void json_list_row(struct znp_print *p, const struct znp_list_row *r)
{
	struct json_object *o = json_object_new_object();
	const struct znp_ns_info *ns = r->ns;

	add(o, "ctrl", str(ns->ctrl));
	add(o, "ng", *ns->ng_name ? str(ns->ng_name) : NULL);
	add(o, "block", *ns->blk_name ? str(ns->blk_name) : NULL);
	add(o, "ng_path", *ns->ng_name && r->ng_path ? str(r->ng_path) : NULL);
	add(o, "block_path", *ns->blk_name && r->blk_path && ns->blk_visible ?
			     str(r->blk_path) : NULL);
	add(o, "block_visible", json_object_new_boolean(ns->blk_visible));
	add(o, "nsid", u64(ns->nsid));
	add(o, "model", str(ns->model));
	add(o, "serial", str(ns->serial));
	if (r->geom)
		add_geom(o, r->geom);
	else {
		/* the error object of a failed command, for this row alone */
		const struct znp_error_view e = {
			.ret = r->probe_ret,
			.device = *ns->ng_name ? ns->ng_name : ns->blk_name,
		};

		add(o, "error", znp_json_error(&e));
		/* the first one is the command's error too (list exits with it) */
		if (!p->list_ret) {
			p->list_ret = r->probe_ret;
			znp_strlcpy(p->list_err_dev, r->ng_path ? r->ng_path : e.device,
				    sizeof(p->list_err_dev));
		}
	}
	add(o, "mapped_as", r->mapped_as ? str(r->mapped_as) : NULL);
	j_array_elem(p, o);
	p->nr_items++;
}

static void json_list_end(struct znp_print *p)
{
	j_array_end(p);
	j_put(p, "nr_namespaces", u64(p->nr_items));
	if (p->list_ret)
		j_put(p, "error", midrun_error(p->list_ret, p->list_err_dev));
	j_end(p);
}

static void json_report_begin(struct znp_print *p, const struct znp_report_hdr *h)
{
	p->device = h->device;
	j_begin(p);
	j_put(p, "device", str(h->device));
	if (h->ns)
		j_put(p, "nsid", u64(h->ns->nsid));
	put_geom(p, h->geom);
	/* the namespace's zone count, as nvme-cli's report-zones header gives it */
	j_put(p, "nr_zones", u64(h->geom->nr_zones));
	j_put(p, "start_lba", u64(h->start_lba));
	j_put(p, "state_filter", str(h->state_filter));
	p->summary = h->summary;
	if (!h->summary)
		j_array_begin(p, "zone_list");
}

static struct json_object *limit(uint32_t v)
{
	return v ? u64(v) : NULL;
}

static void json_report_summary(struct znp_print *p, const struct znp_zone_summary *s)
{
	struct json_object *o = json_object_new_object();

	for (int f = ZNP_RF_EMPTY; f <= ZNP_RF_OFFLINE; f++) {
		char key[32];
		size_t i;

		/* snake_case of the canonical name: implicit_open, read_only */
		znp_strlcpy(key, znp_state_filter_name((enum znp_state_filter)f), sizeof(key));
		for (i = 0; key[i]; i++)
			key[i] = key[i] == '-' ? '_' : key[i];
		add(o, key, u64(s->by_state[f]));
	}
	add(o, "not_wp", u64(s->by_state[0]));
	j_put(p, "summary", o);
	j_put(p, "open", u64(s->open));
	j_put(p, "max_open", limit(s->max_open));
	j_put(p, "active", u64(s->active));
	j_put(p, "max_active", limit(s->max_active));
	p->nr_items = s->nr_zones;
}

/* Same keys and strings as nvme-cli 2.3's `zns report-zones -o json`. */
static char *put_u64(char *q, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*q++ = tmp[--n];
	return q;
}

/*
 * The hot path of large reports: one row per zone formatted directly (keys
 * and condition/type names are constant ASCII, numbers are decimal), which
 * is what json-c would print, without an object per zone.
 */
static void json_report_zone(struct znp_print *p, const struct znp_zone *z,
			     uint64_t zone_no)
{
	char row[400], *q = row;

	q = stpcpy(q, p->first_elem ? "\n    { \"slba\": " : ",\n    { \"slba\": ");
	p->first_elem = false;
	q = put_u64(q, z->start);
	q = stpcpy(q, ", \"wp\": ");
	q = put_u64(q, z->wp);
	q = stpcpy(q, ", \"cap\": ");
	q = put_u64(q, z->cap);
	q = stpcpy(q, ", \"state\": \"");
	q = stpcpy(q, znp_zone_cond_name(z->cond));
	q = stpcpy(q, "\", \"type\": \"");
	q = stpcpy(q, znp_zone_type_name(z->type));
	q = stpcpy(q, "\", \"attrs\": ");
	q = put_u64(q, z->attrs);
	q = stpcpy(q, ", \"attrs_info\": ");
	q = put_u64(q, z->attrs_info);
	q = stpcpy(q, ", \"zone\": ");
	q = put_u64(q, zone_no);
	q = stpcpy(q, ", \"len\": ");
	q = put_u64(q, z->len);
	if (z->bad) {	/* a descriptor the drive got wrong: which field, and how */
		char why[128];

		q = stpcpy(q, ", \"bad\": \"");
		q = stpcpy(q, znp_zone_bad_str(z, why, sizeof(why)));
		q = stpcpy(q, "\"");
	}
	q = stpcpy(q, " }");
	fwrite(row, 1, (size_t)(q - row), p->out);
	p->nr_items++;
}

/* nr_reported last: it counts what was actually streamed. */
static void json_report_end(struct znp_print *p)
{
	if (!p->summary)
		j_array_end(p);
	j_put(p, "nr_reported", u64(p->nr_items));
	/* a report cut short by the device says so: the zone list is partial */
	if (p->report_ret)
		j_put(p, "error", midrun_error(p->report_ret, p->device));
	j_end(p);
}

static void json_check(struct znp_print *p, const struct znp_check_view *v)
{
	struct json_object *reasons = json_object_new_array();

	for (unsigned int bit = 0; bit < 32; bit++)
		if (v->res.reasons & ZNP_R_ALL & (1u << bit))
			json_object_array_add(reasons, str(znp_reason_name(1u << bit)));
	j_begin(p);
	j_put(p, "device", str(v->device));
	if (v->ns) {
		j_put(p, "nsid", u64(v->ns->nsid));
		j_put(p, "block_visible", json_object_new_boolean(v->ns->blk_visible));
	}
	j_put(p, "verdict", str(znp_verdict_name(v->res.verdict)));
	j_put(p, "explanation", str(znp_check_text(&v->res)));
	j_put(p, "reasons", reasons);
	j_put(p, "exit_code", json_object_new_int64(v->exit_code));
	j_put(p, "zoned", json_object_new_boolean(v->is_zoned));
	if (v->geom) {
		put_geom(p, v->geom);
		j_put(p, "nr_zones", u64(v->geom->nr_zones));
		j_put(p, "po2_zone_size", u64(znp_po2_zone_size(v->geom)));
	}
	j_end(p);
}

static void json_zone_op_begin(struct znp_print *p, const struct znp_zone_op_view *v)
{
	p->op = v;
	j_begin(p);
	j_put(p, "device", str(v->device));
	j_put(p, "action", str(znp_zone_action_name(v->action)));
	j_put(p, "select_all", json_object_new_boolean(v->all));
	j_put(p, "dry_run", json_object_new_boolean(v->dry_run));
	if (!v->all) {
		j_put(p, "start_lba", u64(v->start_lba));
		j_put(p, "first_zone", u64(v->first_zone));
		j_put(p, "nr_zones", u64(v->nr_zones));
	}
	if (v->dry_run)
		j_array_begin(p, "commands");
}

static void json_zone_op_cmd(struct znp_print *p, enum znp_zone_action a,
			     uint64_t slba, uint64_t zone_no, bool all)
{
	struct json_object *o = json_object_new_object();

	add(o, "action", str(znp_zone_action_name(a)));
	add(o, "select_all", json_object_new_boolean(all));
	if (!all) {
		add(o, "slba", u64(slba));
		add(o, "zone", u64(zone_no));
	}
	j_array_elem(p, o);
	p->nr_items++;
}

static void json_zone_op_end(struct znp_print *p, uint64_t done, int ret)
{
	if (p->op->dry_run)
		j_array_end(p);
	j_put(p, "zones_done", u64(done));
	j_put(p, "result", str(ret ? "error" : "ok"));
	if (ret)
		j_put(p, "error", midrun_error(ret, p->op->device));
	j_end(p);
}

static void json_discard_begin(struct znp_print *p, const struct znp_discard_view *v)
{
	p->discard = v;
	j_begin(p);
	j_put(p, "device", str(v->device));
	j_put(p, "target", str(v->target));
	j_put(p, "engine", str(v->engine));
	j_put(p, "unit", str(v->unit));
	j_put(p, "dry_run", json_object_new_boolean(v->dry_run));
	j_put(p, "queue_depth", u64(v->queue_depth));
	j_put(p, "ranges", u64(v->ranges));
	j_put(p, "commands", u64(v->commands));
	j_put(p, "bytes", u64(v->bytes));
	if (v->dry_run)
		j_array_begin(p, "plan");
}

static void json_discard_cmd(struct znp_print *p, uint64_t start, uint64_t len)
{
	struct json_object *o = json_object_new_object();

	add(o, "start", u64(start));
	add(o, "length", u64(len));
	j_array_elem(p, o);
	p->nr_items++;
}

static void json_discard_end(struct znp_print *p, const struct znp_discard_summary *s)
{
	struct json_object *o;

	if (p->discard->dry_run)
		j_array_end(p);
	if (s) {
		o = json_object_new_object();
		add(o, "engine", str(s->engine));
		add(o, "fallbacks", u64(s->fallbacks));
		add(o, "fallback_reason", s->fallback_reason ? str(s->fallback_reason) : NULL);
		add(o, "commands", u64(s->commands));
		add(o, "submitted", u64(s->submitted));
		add(o, "completed", u64(s->completed));
		add(o, "failed", u64(s->failed));
		add(o, "bytes", u64(s->bytes));
		/* measured: microseconds and tenths of a command are what they mean */
		add(o, "seconds", rounded(s->seconds, 6));
		add(o, "iops", rounded(s->iops, 1));
		add(o, "interrupted", json_object_new_boolean(s->interrupted));
		j_put(p, "result", o);
		/* with every other command's: top-level, where `jq -e .error` looks */
		if (s->ret)
			j_put(p, "error", midrun_error(s->ret, p->discard->device));
	}
	j_end(p);
}

static void json_version(struct znp_print *p, const char *prog, const char *version)
{
	j_begin(p);
	j_put(p, "program", str(prog));
	j_put(p, "version", str(version));
	j_end(p);
}

/* ---- map, unmap, status (cmd_map.c, cmd_unmap.c, cmd_status.c) ---------- */

const struct znp_print_ops znp_print_json_ops = {
	.name = "json",
	.list_begin = json_list_begin,
	.list_row = json_list_row,
	.list_end = json_list_end,
	.report_begin = json_report_begin,
	.report_zone = json_report_zone,
	.report_summary = json_report_summary,
	.report_end = json_report_end,
	.check = json_check,
	.zone_op_begin = json_zone_op_begin,
	.zone_op_cmd = json_zone_op_cmd,
	.zone_op_end = json_zone_op_end,
	.discard_begin = json_discard_begin,
	.discard_cmd = json_discard_cmd,
	.discard_end = json_discard_end,
	.version = json_version,
	.map = znp_json_map,
	.map_ublk = znp_json_map_ublk,
	.unmap = znp_json_unmap,
	.export = znp_json_export,
	.status_begin = znp_json_status_begin,
	.status_row = znp_json_status_row,
	.status_end = znp_json_status_end,
	.restore_begin = znp_json_restore_begin,
	.restore_entry = znp_json_restore_entry,
	.restore_no_file = znp_json_restore_no_file,
	.restore_end = znp_json_restore_end,
	.error = json_error,
};

static struct json_object *opt_json(const struct znp_opt_desc *d)
{
	static const char *const kinds[] = {
		[ZNP_OK_FLAG] = "flag", [ZNP_OK_U64] = "u64", [ZNP_OK_U32] = "u32",
		[ZNP_OK_STATE] = "state", [ZNP_OK_FMT] = "format", [ZNP_OK_STRING] = "string",
	};
	struct json_object *o = json_object_new_object();
	char s[2] = { d->short_name, '\0' };

	add(o, "long", str(d->long_name));
	add(o, "short", d->short_name ? str(s) : NULL);
	add(o, "alias", d->alias ? str(d->alias) : NULL);
	add(o, "meta", d->meta ? str(d->meta) : NULL);
	add(o, "kind", str(kinds[d->kind]));
	add(o, "help", str(d->help));
	if (d->values) {
		struct json_object *vals = json_object_new_array();
		const char *v = d->values;

		while (*v) {
			size_t n = strcspn(v, "|");

			json_object_array_add(vals, json_object_new_string_len(v, (int)n));
			v += n + (v[n] == '|');
		}
		add(o, "values", vals);
	} else {
		add(o, "values", NULL);
	}
	return o;
}

void znp_print_table_json(FILE *out, const char *prog)
{
	struct json_object *root = json_object_new_object();
	struct json_object *opts = json_object_new_array();
	struct json_object *cmds = json_object_new_array();

	for (int i = 0; i < ZNP_O_NR; i++)
		json_object_array_add(opts, opt_json(&znp_opt_descs[i]));
	for (size_t i = 0; i < znp_nr_cmds; i++) {
		const struct znp_cmd_desc *c = &znp_cmds[i];
		struct json_object *o = json_object_new_object();
		struct json_object *names = json_object_new_array();
		struct json_object *ohelp = json_object_new_object();

		for (const enum znp_opt_id *p = c->opts; *p != ZNP_O_NR; p++)
			json_object_array_add(names, str(znp_opt_descs[*p].long_name));
		for (const struct znp_opt_help *h = c->opt_help; h && h->id != ZNP_O_NR; h++)
			add(ohelp, znp_opt_descs[h->id].long_name, str(h->help));
		add(o, "name", str(c->name));
		add(o, "help", str(c->help));
		add(o, "args", str(c->args));
		add(o, "min_args", json_object_new_int64(c->min_args));
		add(o, "max_args", json_object_new_int64(c->max_args));
		add(o, "hidden", json_object_new_boolean(c->hidden));
		add(o, "zoned", json_object_new_boolean(c->zoned_args));
		add(o, "options", names);
		add(o, "option_help", ohelp);
		json_object_array_add(cmds, o);
	}
	add(root, "program", str(prog));
	add(root, "options", opts);
	add(root, "commands", cmds);
	fprintf(out, "%s\n", json_object_to_json_string_ext(root,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}
