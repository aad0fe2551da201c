// SPDX-License-Identifier: GPL-2.0-or-later
/* The zone picture's model: layout, per-cell sums, dominant state. */
#include "zonemap.h"

static const char *const state_names[ZNP_ZM_NR] = {
	[ZNP_ZM_EMPTY] = "empty",
	[ZNP_ZM_IMP_OPEN] = "implicit-open",
	[ZNP_ZM_EXP_OPEN] = "explicit-open",
	[ZNP_ZM_CLOSED] = "closed",
	[ZNP_ZM_FULL] = "full",
	[ZNP_ZM_READONLY] = "read-only",
	[ZNP_ZM_OFFLINE] = "offline",
	[ZNP_ZM_NOT_WP] = "conventional",
};

const char *znp_zm_state_name(enum znp_zm_state s)
{
	return s < ZNP_ZM_NR ? state_names[s] : "?";
}

enum znp_zm_state znp_zm_state_of(uint8_t cond)
{
	switch (cond) {
	case ZNP_ZC_EMPTY:
		return ZNP_ZM_EMPTY;
	case ZNP_ZC_IMP_OPEN:
		return ZNP_ZM_IMP_OPEN;
	case ZNP_ZC_EXP_OPEN:
		return ZNP_ZM_EXP_OPEN;
	case ZNP_ZC_CLOSED:
		return ZNP_ZM_CLOSED;
	case ZNP_ZC_FULL:
		return ZNP_ZM_FULL;
	case ZNP_ZC_READONLY:
		return ZNP_ZM_READONLY;
	case ZNP_ZC_OFFLINE:
		return ZNP_ZM_OFFLINE;
	default:
		return ZNP_ZM_NOT_WP;
	}
}

enum znp_zm_state znp_zm_sum_add(struct znp_zm_sum *s, const struct znp_zone *z)
{
	enum znp_zm_state st = znp_zm_state_of(z->cond);
	uint64_t written = 0;

	s->count[st]++;
	s->zones++;
	switch (st) {
	case ZNP_ZM_IMP_OPEN:
	case ZNP_ZM_EXP_OPEN:
	case ZNP_ZM_CLOSED:
		/* the report validated start <= wp <= start + cap */
		written = z->wp > z->start ? z->wp - z->start : 0;
		if (written > z->cap)
			written = z->cap;
		break;
	case ZNP_ZM_FULL:
	case ZNP_ZM_READONLY:
		written = z->cap;
		break;
	case ZNP_ZM_NOT_WP:
		return st;	/* no write pointer: no fill */
	default:
		break;
	}
	s->written += written;
	s->cap += z->cap;
	return st;
}

enum znp_zm_state znp_zm_dominant(const struct znp_zm_sum *s)
{
	static const enum znp_zm_state prio[ZNP_ZM_NR] = {
		ZNP_ZM_OFFLINE, ZNP_ZM_READONLY, ZNP_ZM_EXP_OPEN, ZNP_ZM_IMP_OPEN,
		ZNP_ZM_CLOSED, ZNP_ZM_FULL, ZNP_ZM_EMPTY, ZNP_ZM_NOT_WP,
	};
	enum znp_zm_state best = prio[0];

	for (int i = 1; i < ZNP_ZM_NR; i++)
		if (s->count[prio[i]] > s->count[best])
			best = prio[i];
	return best;
}

double znp_zm_fill(const struct znp_zm_sum *s)
{
	return s->cap ? (double)s->written / (double)s->cap : 0.0;
}

/* Smallest of 1, 2, 5, 10, 20, 50, ... that is >= @want. */
static uint64_t round_group(uint64_t want)
{
	uint64_t g = 1;

	for (;;) {
		if (g >= want)
			return g;
		if (2 * g >= want)
			return 2 * g;
		if (5 * g >= want)
			return 5 * g;
		if (g > UINT64_MAX / 100)
			return want;
		g *= 10;
	}
}

void znp_zm_layout(struct znp_zm_view *v, unsigned int max_cols, unsigned int max_rows)
{
	uint64_t max_cells, want;

	if (!max_cols)
		max_cols = 1;
	if (!max_rows)
		max_rows = 1;
	max_cells = (uint64_t)max_cols * max_rows;
	want = v->nr_zones / max_cells + (v->nr_zones % max_cells != 0);
	v->group = round_group(want ? want : 1);
	v->nr_cells = v->nr_zones / v->group + (v->nr_zones % v->group != 0);
	v->cols = v->nr_cells < max_cols ? (unsigned int)v->nr_cells : max_cols;
	if (!v->cols)
		v->cols = 1;
	v->rows = (unsigned int)(v->nr_cells / v->cols + (v->nr_cells % v->cols != 0));
}

void znp_zm_svg_shape(struct znp_zm_view *v)
{
	unsigned int cols = 10;

	/* about 4:1, rows of a multiple of 10 cells, at most ZNP_ZM_SVG_COLS */
	while (cols < ZNP_ZM_SVG_COLS && (uint64_t)cols * cols < 4 * v->nr_cells)
		cols += 10;
	if (cols > v->nr_cells)
		cols = v->nr_cells ? (unsigned int)v->nr_cells : 1;
	v->cols = cols;
	v->rows = (unsigned int)(v->nr_cells / cols + (v->nr_cells % cols != 0));
}
