// SPDX-License-Identifier: GPL-2.0-or-later
/* znp_check(): every verdict, precedence and reason bits. */
#include <errno.h>

#include "check.h"
#include "test.h"

struct row {
	const char *what;
	bool nvme, visible, zoned;
	uint64_t nlbas, zs, cap;
	bool varies;
	enum znp_verdict verdict;
	const char *vname;
	uint32_t reasons;
};

#define NPO2 ZNP_R_ZONE_SIZE_NPO2
#define PO2 ZNP_R_ZONE_SIZE_PO2

static const struct row rows[] = {
	{ "A: npo2 96M/96M visible", true, true, true, 10 * 24576, 24576, 24576, false,
	  ZNP_V_MAPPABLE, "mappable", NPO2 },
	{ "A on stock kernel: hidden", true, false, true, 10 * 24576, 24576, 24576, false,
	  ZNP_V_NEEDS_KERNEL, "needs-kernel-patches", NPO2 | ZNP_R_BLK_HIDDEN },
	{ "B: po2 128M/96M", true, true, true, 8 * 32768, 32768, 24576, false,
	  ZNP_V_PO2, "po2", PO2 | ZNP_R_CAP_LT_SIZE },
	{ "po2 with varying caps, hidden", true, false, true, 8 * 32768, 32768, 32768, true,
	  ZNP_V_PO2, "po2", PO2 | ZNP_R_CAP_VARIES | ZNP_R_BLK_HIDDEN },
	{ "C: npo2 80M/64M hidden", true, false, true, 10 * 20480, 20480, 16384, false,
	  ZNP_V_CAP_LT_SIZE, "capacity-lt-size", NPO2 | ZNP_R_CAP_LT_SIZE | ZNP_R_BLK_HIDDEN },
	{ "npo2 caps vary and lt size", true, true, true, 10 * 20480, 20480, 16384, true,
	  ZNP_V_CAP_VARIES, "capacity-varies", NPO2 | ZNP_R_CAP_LT_SIZE | ZNP_R_CAP_VARIES },
	{ "D: conventional", true, true, false, 1000, 0, 0, false,
	  ZNP_V_NOT_ZNS, "not-zns", ZNP_R_NOT_ZONED },
	{ "conventional, hidden", true, false, false, 1000, 0, 0, false,
	  ZNP_V_NOT_ZNS, "not-zns", ZNP_R_NOT_ZONED | ZNP_R_BLK_HIDDEN },
	{ "dm npo2 zoned block device", false, false, true, 10 * 24576, 24576, 24576, false,
	  ZNP_V_MAPPABLE, "mappable", NPO2 },
	{ "null_blk po2 with small last zone", false, false, true, 10 * 65536 + 5, 65536, 65536,
	  false, ZNP_V_PO2, "po2", PO2 | ZNP_R_SMALL_LAST_ZONE },
	{ "npo2 small last zone", true, true, true, 10 * 24576 + 5, 24576, 24576, false,
	  ZNP_V_MAPPABLE, "mappable", NPO2 | ZNP_R_SMALL_LAST_ZONE },
};

static void test_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *w = &rows[i];
		struct znp_ns_info ns = { .blk_visible = w->visible };
		struct znp_geom g = { .lba_size = 4096, .nlbas = w->nlbas, .zone_size = w->zs,
				      .zone_cap = w->cap, .zone_cap_varies = w->varies };
		struct znp_check_result r = { 0 };
		int ret;

		if (w->zoned)
			CHECK_INT(znp_geom_init(&g), 0);
		ret = znp_check(w->nvme ? &ns : NULL, &g, w->zoned, &r);
		CHECK(ret == 0, "%s: ret %d", w->what, ret);
		CHECK(r.verdict == w->verdict, "%s: verdict %s, want %s", w->what,
		      znp_verdict_name(r.verdict), w->vname);
		CHECK_STR(znp_verdict_name(r.verdict), w->vname);
		CHECK(r.reasons == w->reasons, "%s: reasons 0x%x, want 0x%x", w->what,
		      r.reasons, w->reasons);
	}
}

static void test_names_and_errors(void)
{
	struct znp_check_result r;
	struct znp_geom g = { 0 };
	uint32_t bit;
	int v;

	CHECK_INT(znp_check(NULL, &g, true, NULL), -EINVAL);
	CHECK_INT(znp_check(NULL, NULL, true, &r), -EINVAL);
	CHECK_INT(znp_check(NULL, &g, true, &r), -EINVAL);	/* zoned without zone size */
	CHECK_INT(znp_check(NULL, NULL, false, &r), 0);
	CHECK_INT(r.verdict, ZNP_V_NOT_ZNS);

	for (v = ZNP_V_MAPPABLE; v <= ZNP_V_UBLK; v++) {
		CHECK(strcmp(znp_verdict_name(v), "unknown"), "verdict %d has no name", v);
		CHECK(!strchr(znp_verdict_text(v), '\n'), "verdict %d text is not one line", v);
	}
	for (bit = 1; bit & ZNP_R_ALL; bit <<= 1)
		CHECK(znp_reason_name(bit) != NULL, "reason 0x%x has no name", bit);
	CHECK(znp_reason_name(ZNP_R_ALL + 1) == NULL, "undefined reason has a name");
	CHECK(znp_reason_name(ZNP_R_CAP_LT_SIZE | ZNP_R_CAP_VARIES) == NULL, "two bits");
	CHECK_STR(znp_reason_name(ZNP_R_ZONE_SIZE_NPO2), "zone-size-npo2");
	CHECK_STR(znp_reason_name(ZNP_R_BLK_HIDDEN), "block-device-hidden");
	CHECK_STR(znp_verdict_name(ZNP_V_CAP_VARIES), "capacity-varies");
}

int main(void)
{
	test_table();
	test_names_and_errors();
	return t_done("test-check");
}
