/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The zone picture (`zonemap`): zones of a report range are folded into
 * cells, one zone per cell or a group of zones per cell when there are
 * more zones than cells (the cell then shows the dominant state and the
 * mean fill). Cells stream to a renderer (text or SVG, print-zonemap.c)
 * as they complete, so memory does not grow with the zone count.
 */
#ifndef ZNP_CLI_ZONEMAP_H
#define ZNP_CLI_ZONEMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "znp.h"

/* Picture states, in legend order. */
enum znp_zm_state {
	ZNP_ZM_EMPTY,
	ZNP_ZM_IMP_OPEN,
	ZNP_ZM_EXP_OPEN,
	ZNP_ZM_CLOSED,
	ZNP_ZM_FULL,
	ZNP_ZM_READONLY,
	ZNP_ZM_OFFLINE,
	ZNP_ZM_NOT_WP,		/* conventional zone: no write pointer */
	ZNP_ZM_NR
};

/*
 * Padding of a power-of-2 mapping on top of the device: each zone of
 * @zone_size LBAs occupies @po2_size LBAs of the mapped space. Generic so
 * that any mapping (dm-po2zone, a ublk server) can supply it.
 */
struct znp_zm_pad {
	const char *mapping;	/* its name ("po2-S123-n1") */
	const char *kind;	/* "dm-po2zone", "ublk" */
	uint64_t zone_size;	/* LBAs of the device's zone */
	uint64_t po2_size;	/* LBAs the zone occupies in the mapping */
};

/* What the picture covers and how it is laid out. */
struct znp_zm_view {
	const char *device;
	const struct znp_geom *geom;
	uint64_t first_zone;	/* of the range */
	uint64_t nr_zones;	/* in the range */
	uint64_t group;		/* zones per cell */
	uint64_t nr_cells;
	unsigned int cols;	/* cells per row */
	unsigned int rows;
	const struct znp_zm_pad *pad;	/* NULL: no padding shown */
};

/* Counts and fill of a set of zones (one cell, or the whole picture). */
struct znp_zm_sum {
	uint64_t count[ZNP_ZM_NR];
	uint64_t zones;
	uint64_t written;	/* LBAs below the write pointers */
	uint64_t cap;		/* writable LBAs (zones with a write pointer) */
};

struct znp_zm_cell {
	uint64_t index;		/* cell number, from 0 */
	uint64_t first_zone;
	uint64_t start_lba;	/* of the first zone */
	uint64_t wp;		/* single zone: its write pointer (raw) */
	uint64_t cap;		/* single zone: its capacity */
	struct znp_zm_sum sum;
	enum znp_zm_state state;	/* dominant */
	double fill;		/* written / cap, 0..1 (full, read-only: 1) */
};

/**
 * znp_zm_layout() - group size and grid for @nr_zones zones
 * @v: first_zone and nr_zones set; group, nr_cells, cols, rows filled in
 * @max_cols: cells per row available (>= 1)
 * @max_rows: rows available (>= 1)
 *
 * One zone per cell when they fit, else the smallest group of 1, 2 or 5
 * times a power of ten zones that fits, so that cells and row labels fall
 * on round zone numbers.
 */
void znp_zm_layout(struct znp_zm_view *v, unsigned int max_cols, unsigned int max_rows);

/* SVG: after znp_zm_layout(), rows of 10 to 100 cells, about 4 times wider than high. */
void znp_zm_svg_shape(struct znp_zm_view *v);

enum znp_zm_state znp_zm_state_of(uint8_t cond);
const char *znp_zm_state_name(enum znp_zm_state s);	/* "empty", "implicit-open", ... */

/* Add one reported zone to @s; Return: its picture state. */
enum znp_zm_state znp_zm_sum_add(struct znp_zm_sum *s, const struct znp_zone *z);

/*
 * The dominant state of @s: the most frequent; ties go to the state listed
 * first in ZNP_ZM_OFFLINE, READONLY, EXP_OPEN, IMP_OPEN, CLOSED, FULL,
 * EMPTY, NOT_WP (the one an admin must notice first).
 */
enum znp_zm_state znp_zm_dominant(const struct znp_zm_sum *s);
/* written / cap (0 when no capacity); full and read-only zones count as written. */
double znp_zm_fill(const struct znp_zm_sum *s);

/* A renderer: begin, one call per cell in order, end. */
struct znp_zm_ops {
	void (*begin)(void *priv, const struct znp_zm_view *v);
	void (*cell)(void *priv, const struct znp_zm_cell *c);
	/* @total: every zone drawn; @ret: 0, or the report stopped with this error */
	void (*end)(void *priv, const struct znp_zm_sum *total, int ret);
};

struct znp_zm_text {
	FILE *out;
	unsigned int width;	/* columns of the terminal */
	bool color;		/* ANSI colours */
	bool utf8;		/* block glyphs for the fill (with colour) */
	/* streaming state */
	const struct znp_zm_view *v;
	unsigned int col;
	unsigned int label_width;
};

struct znp_zm_svg {
	FILE *out;
	const struct znp_zm_view *v;
	unsigned int cell_px;
};

extern const struct znp_zm_ops znp_zm_text_ops;
extern const struct znp_zm_ops znp_zm_svg_ops;

/* Text: cells per row that fit in @width columns for @v (first_zone, nr_zones, pad). */
unsigned int znp_zm_text_cols(const struct znp_zm_view *v, unsigned int width);
#define ZNP_ZM_TEXT_ROWS	16
#define ZNP_ZM_SVG_COLS		100
#define ZNP_ZM_SVG_ROWS		50

#endif
