// SPDX-License-Identifier: GPL-2.0-or-later
/* The zone picture's model: layout and grouping, sums, dominant state, fill. */
#include <stdint.h>
#include <string.h>

#include "../unit/test.h"
#include "zonemap.h"

static struct znp_zm_view layout(uint64_t nr_zones, unsigned int cols, unsigned int rows)
{
	struct znp_zm_view v = { .nr_zones = nr_zones };

	znp_zm_layout(&v, cols, rows);
	return v;
}

static void test_layout(void)
{
	struct znp_zm_view v;

	v = layout(10, 70, 16);		/* fits: one zone per cell, one row */
	CHECK(v.group == 1 && v.nr_cells == 10 && v.cols == 10 && v.rows == 1);
	v = layout(1120, 70, 16);	/* exactly 70 x 16 */
	CHECK(v.group == 1 && v.nr_cells == 1120 && v.cols == 70 && v.rows == 16);
	v = layout(1121, 70, 16);	/* one more: groups of 2 */
	CHECK(v.group == 2 && v.nr_cells == 561 && v.cols == 70 && v.rows == 9);
	v = layout(1000000, 70, 16);	/* 893 wanted -> 1000 */
	CHECK(v.group == 1000 && v.nr_cells == 1000 && v.rows == 15);
	v = layout(1000000, 100, 50);	/* 200 exactly */
	CHECK(v.group == 200 && v.nr_cells == 5000 && v.cols == 100 && v.rows == 50);
	v = layout(1000001, 100, 50);	/* a partial last cell: 500 per cell */
	CHECK(v.group == 500 && v.nr_cells == 2001);
	v = layout(3 * 5000 + 1, 100, 50);	/* 4 wanted -> 5 */
	CHECK(v.group == 5 && v.nr_cells == 3001);
	v = layout(UINT64_MAX, 100, 50);
	CHECK(v.group >= UINT64_MAX / 5000 && v.nr_cells <= 5000 && v.rows <= 50);
	v = layout(1, 0, 0);		/* degenerate space: still one cell */
	CHECK(v.group == 1 && v.nr_cells == 1 && v.cols == 1 && v.rows == 1);

	v = layout(10, 100, 50);
	znp_zm_svg_shape(&v);
	CHECK(v.cols == 10 && v.rows == 1);
	v = layout(50, 100, 50);
	znp_zm_svg_shape(&v);
	CHECK(v.cols == 20 && v.rows == 3);
	v = layout(1000000, 100, 50);
	znp_zm_svg_shape(&v);
	CHECK(v.cols == 100 && v.rows == 50);
}

static struct znp_zone zone(uint64_t start, uint64_t cap, uint64_t wp, uint8_t cond)
{
	return (struct znp_zone){ .start = start, .len = 100, .cap = cap, .wp = wp,
				  .cond = cond, .type = ZNP_ZT_SEQ_REQ };
}

static void test_sums(void)
{
	struct znp_zm_sum s = { 0 };
	struct znp_zone z;

	z = zone(0, 80, 0, ZNP_ZC_EMPTY);
	CHECK(znp_zm_sum_add(&s, &z) == ZNP_ZM_EMPTY);
	z = zone(100, 80, 120, ZNP_ZC_IMP_OPEN);	/* 20 written */
	CHECK(znp_zm_sum_add(&s, &z) == ZNP_ZM_IMP_OPEN);
	z = zone(200, 80, 240, ZNP_ZC_CLOSED);		/* 40 written */
	znp_zm_sum_add(&s, &z);
	z = zone(300, 80, UINT64_MAX, ZNP_ZC_FULL);	/* all 80 */
	znp_zm_sum_add(&s, &z);
	z = zone(400, 80, UINT64_MAX, ZNP_ZC_READONLY);	/* readable: 80 */
	znp_zm_sum_add(&s, &z);
	z = zone(500, 80, UINT64_MAX, ZNP_ZC_OFFLINE);	/* nothing */
	CHECK(znp_zm_sum_add(&s, &z) == ZNP_ZM_OFFLINE);
	z = zone(600, 100, 0, ZNP_ZC_NOT_WP);		/* no write pointer: no fill */
	CHECK(znp_zm_sum_add(&s, &z) == ZNP_ZM_NOT_WP);
	CHECK(s.zones == 7 && s.written == 220 && s.cap == 480);
	CHECK(s.count[ZNP_ZM_EMPTY] == 1 && s.count[ZNP_ZM_NOT_WP] == 1);
	CHECK(znp_zm_fill(&s) > 0.458 && znp_zm_fill(&s) < 0.459);
	/* one of each: the tie goes to the most alarming state */
	CHECK(znp_zm_dominant(&s) == ZNP_ZM_OFFLINE);

	memset(&s, 0, sizeof(s));
	CHECK(znp_zm_fill(&s) == 0.0);
	s.count[ZNP_ZM_EMPTY] = 2;
	s.count[ZNP_ZM_FULL] = 2;
	CHECK(znp_zm_dominant(&s) == ZNP_ZM_FULL);
	s.count[ZNP_ZM_EMPTY] = 3;
	CHECK(znp_zm_dominant(&s) == ZNP_ZM_EMPTY);
	s.count[ZNP_ZM_READONLY] = 3;
	CHECK(znp_zm_dominant(&s) == ZNP_ZM_READONLY);
	CHECK(znp_zm_state_of(0x5) == ZNP_ZM_NOT_WP && znp_zm_state_of(ZNP_ZC_EXP_OPEN) ==
	      ZNP_ZM_EXP_OPEN);
	CHECK(!strcmp(znp_zm_state_name(ZNP_ZM_READONLY), "read-only"));
}

int main(void)
{
	test_layout();
	test_sums();
	return t_done("cli-zonemap-model");
}
