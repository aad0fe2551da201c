/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to the JSON printer (print-json.c, print-json-dm.c): framing helpers. */
#ifndef ZNP_CLI_PRINT_JSON_H
#define ZNP_CLI_PRINT_JSON_H

#include <json-c/json.h>

#include "print.h"

#define JFLAGS	(JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Emit and release @v (NULL prints null). */
static inline void j_emit(struct znp_print *p, struct json_object *v)
{
	fputs(json_object_to_json_string_ext(v, JFLAGS), p->out);
	json_object_put(v);
}

static inline void j_begin(struct znp_print *p)
{
	fputc('{', p->out);
	p->first_key = true;
	p->started = true;
}

/* Keys are compile-time snake_case literals: no escaping needed. */
static inline void j_key(struct znp_print *p, const char *key)
{
	fprintf(p->out, "%s\"%s\": ", p->first_key ? "\n  " : ",\n  ", key);
	p->first_key = false;
}

static inline void j_put(struct znp_print *p, const char *key, struct json_object *v)
{
	j_key(p, key);
	j_emit(p, v);
}

static inline void j_array_begin(struct znp_print *p, const char *key)
{
	j_key(p, key);
	fputc('[', p->out);
	p->first_elem = true;
}

static inline void j_array_elem(struct znp_print *p, struct json_object *v)
{
	fputs(p->first_elem ? "\n    " : ",\n    ", p->out);
	p->first_elem = false;
	j_emit(p, v);
}

static inline void j_array_end(struct znp_print *p)
{
	fputs(p->first_elem ? "]" : "\n  ]", p->out);
}

static inline void j_end(struct znp_print *p)
{
	fputs(p->first_key ? "}\n" : "\n}\n", p->out);
}

static inline struct json_object *u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static inline struct json_object *str(const char *s)
{
	return json_object_new_string(s);
}

static inline void add(struct json_object *o, const char *key, struct json_object *v)
{
	json_object_object_add(o, key, v);
}

/* Geometry keys shared by list, report and check. */
static inline void add_geom(struct json_object *o, const struct znp_geom *g)
{
	add(o, "lba_size", u64(g->lba_size));
	add(o, "nlbas", u64(g->nlbas));
	add(o, "zone_size", u64(g->zone_size));
	add(o, "zone_cap", u64(g->zone_cap));
	add(o, "zone_cap_varies", json_object_new_boolean(g->zone_cap_varies));
	add(o, "nr_zones", u64(g->nr_zones));
	add(o, "zone_size_po2", json_object_new_boolean(g->zone_size_is_po2));
}

static inline void put_geom(struct znp_print *p, const struct znp_geom *g)
{
	j_put(p, "lba_size", u64(g->lba_size));
	j_put(p, "nlbas", u64(g->nlbas));
	j_put(p, "zone_size", u64(g->zone_size));
	j_put(p, "zone_cap", u64(g->zone_cap));
	j_put(p, "zone_cap_varies", json_object_new_boolean(g->zone_cap_varies));
	j_put(p, "zone_size_po2", json_object_new_boolean(g->zone_size_is_po2));
}


/* The "error" object of a failed command (print-json.c). */
struct json_object *znp_json_error(const struct znp_error_view *e);

/* The mapping printers (print-json-dm.c). */
void znp_json_map(struct znp_print *p, const struct znp_map_view *v);
void znp_json_map_ublk(struct znp_print *p, const struct znp_map_ublk_view *v);
void znp_json_unmap(struct znp_print *p, const struct znp_unmap_view *v);
void znp_json_export(struct znp_print *p, const struct znp_export_view *v);
void znp_json_status_begin(struct znp_print *p);
void znp_json_status_row(struct znp_print *p, const struct znp_status_row *r);
void znp_json_status_end(struct znp_print *p);
void znp_json_restore_begin(struct znp_print *p, const char *config);
void znp_json_restore_entry(struct znp_print *p, const struct znp_restore_entry *e);
void znp_json_restore_end(struct znp_print *p);
void znp_json_restore_no_file(struct znp_print *p, const char *config, bool dry_run);

#endif
