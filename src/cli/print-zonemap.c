// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Renderers of the zone picture: text (ANSI colours optional; without them
 * the characters alone carry the state) and standalone SVG (one rectangle
 * per cell with a <title>). Both stream: one row (text) or one cell (SVG)
 * at a time, everything sized in begin() from the view.
 */
#include <inttypes.h>
#include <string.h>

#include "print.h"
#include "zonemap.h"

/* text without colour: one ASCII character per state */
static const char mono_glyph[ZNP_ZM_NR] = {
	[ZNP_ZM_EMPTY] = '.', [ZNP_ZM_IMP_OPEN] = 'o', [ZNP_ZM_EXP_OPEN] = 'O',
	[ZNP_ZM_CLOSED] = 'c', [ZNP_ZM_FULL] = '#', [ZNP_ZM_READONLY] = 'r',
	[ZNP_ZM_OFFLINE] = 'X', [ZNP_ZM_NOT_WP] = '=',
};
#define MONO_PAD	'~'

/* ANSI SGR colours per state */
static const char *const sgr[ZNP_ZM_NR] = {
	[ZNP_ZM_EMPTY] = "90", [ZNP_ZM_IMP_OPEN] = "92", [ZNP_ZM_EXP_OPEN] = "36",
	[ZNP_ZM_CLOSED] = "33", [ZNP_ZM_FULL] = "34", [ZNP_ZM_READONLY] = "35",
	[ZNP_ZM_OFFLINE] = "1;31", [ZNP_ZM_NOT_WP] = "37",
};
#define SGR_PAD		"90"

/* fill in eighths of the capacity, 1/8 to 8/8 */
static const char *const blocks[9] = {
	" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"
};

/*
 * SVG colours: the written part, and the unwritten part of a zone (a full
 * zone is all written; a group of mostly full zones may not be)
 */
static const char *const svg_fill[ZNP_ZM_NR] = {
	[ZNP_ZM_EMPTY] = "#e6e6e6", [ZNP_ZM_IMP_OPEN] = "#43a047", [ZNP_ZM_EXP_OPEN] = "#00897b",
	[ZNP_ZM_CLOSED] = "#fb8c00", [ZNP_ZM_FULL] = "#1e5aa8", [ZNP_ZM_READONLY] = "#8e44ad",
	[ZNP_ZM_OFFLINE] = "#c62828", [ZNP_ZM_NOT_WP] = "#616161",
};
static const char *const svg_tint[ZNP_ZM_NR] = {
	[ZNP_ZM_EMPTY] = "#e6e6e6", [ZNP_ZM_IMP_OPEN] = "#c8e6c9", [ZNP_ZM_EXP_OPEN] = "#b2dfdb",
	[ZNP_ZM_CLOSED] = "#ffe0b2", [ZNP_ZM_FULL] = "#c5d5ee", [ZNP_ZM_READONLY] = "#e1cdea",
	[ZNP_ZM_OFFLINE] = "#c62828", [ZNP_ZM_NOT_WP] = "#616161",
};
#define SVG_PAD		"#fff59d"

static bool has_wp(enum znp_zm_state s)
{
	return s == ZNP_ZM_IMP_OPEN || s == ZNP_ZM_EXP_OPEN || s == ZNP_ZM_CLOSED ||
	       s == ZNP_ZM_EMPTY;
}

static unsigned int digits(uint64_t v)
{
	unsigned int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static uint64_t last_zone(const struct znp_zm_view *v)
{
	return v->nr_zones ? v->first_zone + v->nr_zones - 1 : v->first_zone;
}

static void geometry_line(FILE *f, const struct znp_zm_view *v, const char *dev)
{
	const struct znp_geom *g = v->geom;
	char size[32];

	znp_human_size(size, sizeof(size), g->zone_size * g->lba_size);
	fprintf(f, "%s: zones %" PRIu64 "-%" PRIu64 " of %" PRIu64 ", %" PRIu64
		" LBAs each (%s, %s)", dev, v->first_zone, last_zone(v), g->nr_zones,
		g->zone_size, size, g->zone_size_is_po2 ? "power of 2" : "not a power of 2");
}

static void group_line(FILE *f, const struct znp_zm_view *v)
{
	if (v->group == 1)
		fputs("one zone per cell", f);
	else
		fprintf(f, "%" PRIu64 " zones per cell: dominant state, mean fill", v->group);
}

static void xml_escaped(FILE *f, const char *s);

static void padding_line(FILE *f, const struct znp_zm_pad *pad, bool xml)
{
	uint64_t gap = pad->po2_size - pad->zone_size;

	fputs("padding: ", f);
	if (xml)
		xml_escaped(f, pad->mapping);
	else
		fputs(pad->mapping, f);
	fprintf(f, " (%s), %" PRIu64 " LBAs per zone: %" PRIu64 " padding (%.1f%%)",
		pad->kind, pad->po2_size, gap, 100.0 * (double)gap / (double)pad->po2_size);
}

/* ---- text --------------------------------------------------------------- */

unsigned int znp_zm_text_cols(const struct znp_zm_view *v, unsigned int width)
{
	unsigned int label = digits(last_zone(v)) + 1, cell = v->pad ? 2 : 1;
	unsigned int cols = width > label + cell ? (width - label) / cell : 1;

	return cols >= 20 ? cols / 10 * 10 : cols;
}

static void text_glyph(const struct znp_zm_text *t, enum znp_zm_state s, double fill)
{
	const char *g;
	char mono[2] = { mono_glyph[s], 0 };

	if (!t->color) {
		fputc(mono_glyph[s], t->out);
		return;
	}
	g = mono;
	if (t->utf8) {
		if (s == ZNP_ZM_EMPTY)
			g = "\u00b7";
		else if (s != ZNP_ZM_OFFLINE && s != ZNP_ZM_NOT_WP) {
			int e = (int)(fill * 8.0);

			if (e < fill * 8.0)
				e++;	/* any data shows */
			g = blocks[e < 1 ? 1 : e > 8 ? 8 : e];
		}
	}
	fprintf(t->out, "\033[%sm%s\033[0m", sgr[s], g);
}

static void text_pad(const struct znp_zm_text *t)
{
	if (!t->color)
		fputc(MONO_PAD, t->out);
	else
		fprintf(t->out, "\033[" SGR_PAD "m%s\033[0m", t->utf8 ? "\u2591" : "~");
}

static void text_begin(void *priv, const struct znp_zm_view *v)
{
	struct znp_zm_text *t = priv;

	t->v = v;
	t->col = 0;
	t->label_width = digits(last_zone(v));
	geometry_line(t->out, v, v->device);
	fputc('\n', t->out);
	group_line(t->out, v);
	fputc('\n', t->out);
	if (v->pad) {
		padding_line(t->out, v->pad, false);
		fputc('\n', t->out);
	}
}

static void text_cell(void *priv, const struct znp_zm_cell *c)
{
	struct znp_zm_text *t = priv;

	if (!t->col)
		fprintf(t->out, "%*" PRIu64 " ", (int)t->label_width, c->first_zone);
	text_glyph(t, c->state, c->fill);
	if (t->v->pad)
		text_pad(t);
	if (++t->col == t->v->cols) {
		fputc('\n', t->out);
		t->col = 0;
	}
}

/* Legend items, wrapped at the width. */
static void text_item(struct znp_zm_text *t, unsigned int *used, unsigned int len)
{
	if (*used && *used + 2 + len > t->width) {
		fputc('\n', t->out);
		*used = 0;
	} else if (*used) {
		fputs("  ", t->out);
		*used += 2;
	}
	*used += len;
}

static void text_end(void *priv, const struct znp_zm_sum *total, int ret)
{
	struct znp_zm_text *t = priv;
	unsigned int used = 0;
	char buf[64];

	if (t->col)
		fputc('\n', t->out);
	for (int s = 0; s < ZNP_ZM_NR; s++) {
		if (s == ZNP_ZM_NOT_WP && !total->count[s])
			continue;
		snprintf(buf, sizeof(buf), " %s %" PRIu64, znp_zm_state_name(s), total->count[s]);
		text_item(t, &used, 1 + (unsigned int)strlen(buf));
		text_glyph(t, s, 1.0);
		fputs(buf, t->out);
	}
	if (t->v->pad) {
		text_item(t, &used, 9);
		text_pad(t);
		fputs(" padding", t->out);
	}
	fputc('\n', t->out);
	if (t->color && t->utf8) {
		fputs("fill ", t->out);
		for (int e = 1; e <= 8; e++)
			fputs(blocks[e], t->out);
		fputs(" = written / capacity\n", t->out);
	}
	fprintf(t->out, "written: %.1f%% of the capacity (%" PRIu64 " of %" PRIu64 " LBAs)%s\n",
		100.0 * znp_zm_fill(total), total->written, total->cap,
		ret ? ", report incomplete" : "");
}

const struct znp_zm_ops znp_zm_text_ops = {
	.begin = text_begin,
	.cell = text_cell,
	.end = text_end,
};

/* ---- SVG ---------------------------------------------------------------- */

#define SVG_MARGIN	10u
#define SVG_TOP		58u	/* header lines above the grid */
#define SVG_ITEM_W	150u	/* one legend item */
#define SVG_LINE	18u

static void xml_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* XML 1.0 forbids most control characters */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}

struct svg_geo {
	unsigned int label, grid_w, grid_h, width, legend_y, legend_cols, height;
};

static void svg_geometry(const struct znp_zm_svg *s, struct svg_geo *sg)
{
	const struct znp_zm_view *v = s->v;
	unsigned int items = ZNP_ZM_NR + (v->pad ? 1 : 0), rows;

	sg->label = v->rows > 1 ? 7 * digits(last_zone(v)) + 8 : 0;
	sg->grid_w = v->cols * s->cell_px;
	sg->grid_h = v->rows * s->cell_px;
	sg->width = 2 * SVG_MARGIN + sg->label + sg->grid_w;
	if (sg->width < 640)
		sg->width = 640;
	sg->legend_cols = (sg->width - 2 * SVG_MARGIN) / SVG_ITEM_W;
	rows = (items + sg->legend_cols - 1) / sg->legend_cols;
	sg->legend_y = SVG_TOP + sg->grid_h + 12;
	sg->height = sg->legend_y + rows * SVG_LINE + SVG_LINE + SVG_MARGIN;
}

static void svg_begin(void *priv, const struct znp_zm_view *v)
{
	struct znp_zm_svg *s = priv;
	struct svg_geo sg;
	unsigned int px;

	s->v = v;
	px = 800 / (v->cols ? v->cols : 1);
	s->cell_px = px < 8 ? 8 : px > 48 ? 48 : px;
	svg_geometry(s, &sg);
	fprintf(s->out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" font-family=\"sans-serif\" font-size=\"12\">\n",
		sg.width, sg.height, sg.width, sg.height);
	fprintf(s->out, "<title>zones of ");
	xml_escaped(s->out, v->device);
	fprintf(s->out, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
	fprintf(s->out, "<text x=\"%u\" y=\"16\">", SVG_MARGIN);
	/* the device is the only free text in the geometry line */
	xml_escaped(s->out, v->device);
	geometry_line(s->out, v, "");
	fprintf(s->out, "</text>\n<text x=\"%u\" y=\"32\">", SVG_MARGIN);
	group_line(s->out, v);
	fputs("</text>\n", s->out);
	if (v->pad) {
		fprintf(s->out, "<text x=\"%u\" y=\"48\">", SVG_MARGIN);
		padding_line(s->out, v->pad, true);
		fputs("</text>\n", s->out);
	}
}

static void svg_state_list(FILE *f, const struct znp_zm_sum *sum)
{
	bool first = true;

	for (int i = 0; i < ZNP_ZM_NR; i++) {
		if (!sum->count[i])
			continue;
		fprintf(f, "%s%" PRIu64 " %s", first ? "" : ", ", sum->count[i],
			znp_zm_state_name(i));
		first = false;
	}
}

static void svg_cell(void *priv, const struct znp_zm_cell *c)
{
	struct znp_zm_svg *s = priv;
	const struct znp_zm_view *v = s->v;
	unsigned int row = (unsigned int)(c->index / v->cols), col = (unsigned int)(c->index % v->cols);
	unsigned int cs = s->cell_px - 1, zw = cs, x, y, fh;
	struct svg_geo sg;
	uint64_t last = c->first_zone + c->sum.zones - 1;

	svg_geometry(s, &sg);
	x = SVG_MARGIN + sg.label + col * s->cell_px;
	y = SVG_TOP + row * s->cell_px;
	/* label rows at least 14 px apart */
	if (!col && sg.label && !(row % ((14 + s->cell_px - 1) / s->cell_px)))
		fprintf(s->out, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\" font-size=\"%u\">%"
			PRIu64 "</text>\n", x - 4, y + cs / 2 + 4, s->cell_px < 12 ? 9 : 11,
			c->first_zone);
	if (v->pad)
		zw = (unsigned int)((double)cs * (double)v->pad->zone_size /
				    (double)v->pad->po2_size + 0.5);
	fprintf(s->out, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\">"
		"<title>", x, y, zw, cs, svg_tint[c->state]);
	if (c->sum.zones == 1) {
		fprintf(s->out, "zone %" PRIu64 ": start LBA 0x%" PRIx64 ", %s, write pointer ",
			c->first_zone, c->start_lba, znp_zm_state_name(c->state));
		if (has_wp(c->state))
			fprintf(s->out, "0x%" PRIx64 " (%" PRIu64 " of %" PRIu64 " LBAs written)",
				c->wp, c->sum.written, c->cap);
		else
			fputs("-", s->out);
	} else {
		fprintf(s->out, "zones %" PRIu64 "-%" PRIu64 ": start LBA 0x%" PRIx64
			", mostly %s (", c->first_zone, last, c->start_lba,
			znp_zm_state_name(c->state));
		svg_state_list(s->out, &c->sum);
		fprintf(s->out, "), write pointers at %.1f%% of the capacity", 100.0 * c->fill);
	}
	fputs("</title></rect>\n", s->out);
	/* the written part, from the bottom */
	fh = (unsigned int)(c->fill * cs + 0.5);
	if (c->fill > 0 && !fh)
		fh = 1;
	if (fh && strcmp(svg_tint[c->state], svg_fill[c->state]))
		fprintf(s->out, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\" "
			"pointer-events=\"none\"/>\n", x, y + cs - fh, zw, fh, svg_fill[c->state]);
	if (v->pad && zw < cs)
		fprintf(s->out, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\">"
			"<title>padding of zone%s %" PRIu64 "%s%" PRIu64 ": %" PRIu64
			" LBAs per zone in the mapping</title></rect>\n", x + zw, y, cs - zw, cs,
			SVG_PAD, c->sum.zones == 1 ? "" : "s", c->first_zone,
			c->sum.zones == 1 ? "" : "-", c->sum.zones == 1 ? c->first_zone : last,
			v->pad->po2_size - v->pad->zone_size);
}

static void svg_end(void *priv, const struct znp_zm_sum *total, int ret)
{
	struct znp_zm_svg *s = priv;
	struct svg_geo sg;
	unsigned int n = 0;

	svg_geometry(s, &sg);
	for (int i = 0; i <= ZNP_ZM_NR; i++) {
		unsigned int x, y;

		if (i == ZNP_ZM_NR && !s->v->pad)
			break;
		x = SVG_MARGIN + (n % sg.legend_cols) * SVG_ITEM_W;
		y = sg.legend_y + (n / sg.legend_cols) * SVG_LINE;
		n++;
		fprintf(s->out, "<rect x=\"%u\" y=\"%u\" width=\"12\" height=\"12\" fill=\"%s\"/>",
			x, y, i == ZNP_ZM_NR ? SVG_PAD : svg_fill[i]);
		if (i == ZNP_ZM_NR)
			fprintf(s->out, "<text x=\"%u\" y=\"%u\">padding</text>\n", x + 16, y + 11);
		else
			fprintf(s->out, "<text x=\"%u\" y=\"%u\">%s %" PRIu64 "</text>\n", x + 16,
				y + 11, znp_zm_state_name(i), total->count[i]);
	}
	fprintf(s->out, "<text x=\"%u\" y=\"%u\">written: %.1f%% of the capacity (%" PRIu64
		" of %" PRIu64 " LBAs)%s</text>\n</svg>\n", SVG_MARGIN, sg.height - SVG_MARGIN - 4,
		100.0 * znp_zm_fill(total), total->written, total->cap,
		ret ? ", report incomplete" : "");
}

const struct znp_zm_ops znp_zm_svg_ops = {
	.begin = svg_begin,
	.cell = svg_cell,
	.end = svg_end,
};
