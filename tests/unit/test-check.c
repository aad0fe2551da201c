// SPDX-License-Identifier: GPL-2.0-or-later
/* znp_check(): every verdict, precedence and reason bits. */
#include <errno.h>

#include "dev.h"
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
	/* the boundary: one LBA of capacity short is capacity-lt-size, not capacity == size */
	{ "npo2 96M, capacity one LBA below", true, false, true, 10 * 24576, 24576, 24575, false,
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

/* LBA formats (QEMU nvme-ns ms=/mset=/pi=) on an npo2 96M/96M namespace. */
struct fmt_row {
	const char *what;
	bool visible;
	uint16_t ms;
	bool ext;
	uint8_t pi;
	enum znp_verdict verdict, with_ublk;
	uint32_t reasons;
};

#define MD ZNP_R_LBA_METADATA
#define PI ZNP_R_PROT_INFO
#define HID ZNP_R_BLK_HIDDEN
#define V_MD ZNP_V_METADATA

static const struct fmt_row fmt_rows[] = {
	{ "no metadata, hidden", false, 0, false, 0, ZNP_V_NEEDS_KERNEL, ZNP_V_UBLK, NPO2 | HID },
	{ "ms=8 extended, hidden", false, 8, true, 0, V_MD, V_MD, NPO2 | HID | MD },
	{ "ms=8 separate, hidden", false, 8, false, 0, V_MD, V_MD, NPO2 | HID | MD },
	{ "ms=8 pi=1 separate, hidden", false, 8, false, 1, V_MD, V_MD, NPO2 | HID | MD | PI },
	{ "ms=8 pi=3 extended, hidden", false, 8, true, 3, V_MD, V_MD, NPO2 | HID | MD | PI },
	{ "pi without metadata (bogus Identify), hidden", false, 0, false, 2, V_MD, V_MD,
	  NPO2 | HID | PI },
	{ "ms=64 separate, hidden", false, 64, false, 0, V_MD, V_MD, NPO2 | HID | MD },
	/* the kernel's block device: separate metadata and exact PI tuples are served */
	{ "ms=8 separate, visible", true, 8, false, 0, ZNP_V_MAPPABLE, ZNP_V_MAPPABLE, NPO2 | MD },
	{ "ms=8 pi=1 separate, visible", true, 8, false, 1, ZNP_V_MAPPABLE, ZNP_V_MAPPABLE,
	  NPO2 | MD | PI },
	{ "ms=8 pi=1 extended, visible", true, 8, true, 1, ZNP_V_MAPPABLE, ZNP_V_MAPPABLE,
	  NPO2 | MD | PI },
	{ "ms=16 pi=2 extended, visible", true, 16, true, 2, ZNP_V_MAPPABLE, ZNP_V_MAPPABLE,
	  NPO2 | MD | PI },
	/* ... but an extended format with other metadata gets no capacity */
	{ "ms=8 extended, visible", true, 8, true, 0, V_MD, V_MD, NPO2 | MD },
	{ "ms=64 pi=1 extended, visible", true, 64, true, 1, V_MD, V_MD, NPO2 | MD | PI },
};

static void test_formats(void)
{
	size_t i;

	for (i = 0; i < sizeof(fmt_rows) / sizeof(fmt_rows[0]); i++) {
		const struct fmt_row *w = &fmt_rows[i];
		struct znp_ns_info ns = { .blk_visible = w->visible };
		struct znp_geom g = { .lba_size = 4096, .nlbas = 10 * 24576, .zone_size = 24576,
				      .zone_cap = 24576, .md_bytes = w->ms, .md_extended = w->ext,
				      .pi_type = w->pi };
		struct znp_check_result r = { 0 };

		CHECK_INT(znp_geom_init(&g), 0);
		CHECK_INT(znp_check(&ns, &g, true, &r), 0);
		CHECK(r.verdict == w->verdict, "%s: verdict %s, want %s", w->what,
		      znp_verdict_name(r.verdict), znp_verdict_name(w->verdict));
		CHECK(r.reasons == w->reasons, "%s: reasons 0x%x, want 0x%x", w->what,
		      r.reasons, w->reasons);
		CHECK(znp_lba_format_has_md(&g) == (w->ms || w->pi), "%s: has_md", w->what);
		/* a kernel with zoned ublk (loaded or not) changes nothing for metadata */
		znp_check_ublk(&r, true, true);
		CHECK(r.verdict == w->with_ublk, "%s: with ublk %s, want %s", w->what,
		      znp_verdict_name(r.verdict), znp_verdict_name(w->with_ublk));
		if (w->with_ublk != ZNP_V_UBLK)
			CHECK(!(r.reasons & ZNP_R_UBLK_ROUTE), "%s: ublk route reason", w->what);
	}
	/* precedence: po2, capacity < size and not-zoned win over the format */
	{
		struct znp_ns_info ns = { .blk_visible = false };
		struct znp_geom g = { .lba_size = 4096, .nlbas = 8 * 32768, .zone_size = 32768,
				      .zone_cap = 32768, .md_bytes = 8, .md_extended = true };
		struct znp_check_result r = { 0 };

		CHECK_INT(znp_geom_init(&g), 0);
		CHECK_INT(znp_check(&ns, &g, true, &r), 0);
		CHECK_INT(r.verdict, ZNP_V_PO2);
		g.zone_size = 20480;
		g.zone_cap = 16384;
		g.nlbas = 10 * 20480;
		CHECK_INT(znp_geom_init(&g), 0);
		CHECK_INT(znp_check(&ns, &g, true, &r), 0);
		CHECK_INT(r.verdict, ZNP_V_CAP_LT_SIZE);
		CHECK(r.reasons & MD, "capacity-lt-size keeps the metadata reason");
	}
	/* the kernel's answer: a visible block device of capacity 0 */
	{
		struct znp_ns_info ns = { .blk_visible = true, .blk_size_known = true };
		struct znp_geom g = { .lba_size = 4096, .nlbas = 10 * 24576, .zone_size = 24576,
				      .zone_cap = 24576, .md_bytes = 8 };
		struct znp_check_result r = { 0 };

		CHECK_INT(znp_geom_init(&g), 0);
		CHECK_INT(znp_check(&ns, &g, true, &r), 0);
		CHECK_INT(r.verdict, ZNP_V_METADATA);
		ns.blk_sectors = 10 * 24576 * 8;
		CHECK_INT(znp_check(&ns, &g, true, &r), 0);
		CHECK_INT(r.verdict, ZNP_V_MAPPABLE);
		ns.blk_size_known = false;
		ns.blk_sectors = 0;
		CHECK_INT(znp_check(&ns, &g, true, &r), 0);
		CHECK_INT(r.verdict, ZNP_V_MAPPABLE);
	}
	CHECK_STR(znp_verdict_name(ZNP_V_METADATA), "metadata-format");
	CHECK_STR(znp_reason_name(ZNP_R_LBA_METADATA), "lba-metadata");
	CHECK_STR(znp_reason_name(ZNP_R_PROT_INFO), "protection-info");
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

	for (v = ZNP_V_MAPPABLE; v <= ZNP_V_METADATA; v++) {
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
	test_formats();
	test_names_and_errors();
	return t_done("test-check");
}
