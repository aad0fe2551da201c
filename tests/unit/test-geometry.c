// SPDX-License-Identifier: GPL-2.0-or-later
/* Zone geometry: npo2 and po2 sizes, last short zone, values near 2^64. */
#include <errno.h>

#include "geometry.h"
#include "test.h"

#define U64MAX UINT64_MAX

static struct znp_geom geom(uint32_t lba_size, uint64_t nlbas, uint64_t zs)
{
	struct znp_geom g = { .lba_size = lba_size, .nlbas = nlbas, .zone_size = zs,
			      .zone_cap = zs };
	int ret = znp_geom_init(&g);

	CHECK_INT(ret, 0);
	return g;
}

static void test_po2_helpers(void)
{
	CHECK(!znp_is_po2(0), "0 is not po2");
	CHECK(znp_is_po2(1), "1 is po2");
	CHECK(znp_is_po2(UINT64_C(1) << 63), "2^63 is po2");
	CHECK(!znp_is_po2(24576), "24576 is not po2");
	CHECK(!znp_is_po2(U64MAX), "2^64-1 is not po2");
	CHECK_U64(znp_po2_roundup(0), 0);
	CHECK_U64(znp_po2_roundup(1), 1);
	CHECK_U64(znp_po2_roundup(2), 2);
	CHECK_U64(znp_po2_roundup(3), 4);
	CHECK_U64(znp_po2_roundup(24576), 32768);
	CHECK_U64(znp_po2_roundup(32768), 32768);
	CHECK_U64(znp_po2_roundup(UINT64_C(1) << 63), UINT64_C(1) << 63);
	CHECK_U64(znp_po2_roundup((UINT64_C(1) << 63) + 1), 0);
	CHECK_U64(znp_po2_roundup(U64MAX), 0);
	CHECK_U64(znp_nr_zones(0, 10), 0);
	CHECK_U64(znp_nr_zones(10, 0), 0);
	CHECK_U64(znp_nr_zones(30, 10), 3);
	CHECK_U64(znp_nr_zones(31, 10), 4);
	CHECK_U64(znp_nr_zones(U64MAX, 1), U64MAX);
	CHECK_U64(znp_nr_zones(U64MAX, 2), UINT64_C(1) << 63);
	CHECK_U64(znp_nr_zones(U64MAX, U64MAX), 1);
	CHECK_U64(znp_nr_zones(U64MAX, 24576), U64MAX / 24576 + 1);
}

static void test_init_errors(void)
{
	struct znp_geom g = { .lba_size = 4096, .nlbas = 100, .zone_size = 10 };

	CHECK_INT(znp_geom_init(NULL), -EINVAL);
	g.lba_size = 0;
	CHECK_INT(znp_geom_init(&g), -EINVAL);
	g.lba_size = 3000;
	CHECK_INT(znp_geom_init(&g), -EINVAL);
	g.lba_size = 512;
	g.zone_size = 0;
	CHECK_INT(znp_geom_init(&g), -EINVAL);
	g.zone_size = 101;
	CHECK_INT(znp_geom_init(&g), -EINVAL);
	/* one zone as large as the namespace is a geometry; a capacity equal to the size too */
	g.zone_size = 100;
	g.zone_cap = 100;
	CHECK_INT(znp_geom_init(&g), 0);
	CHECK_U64(g.nr_zones, 1);
	CHECK_U64(znp_zone_len(&g, 0), 100);
	g.zone_size = 10;
	g.zone_cap = 11;
	CHECK_INT(znp_geom_init(&g), -EINVAL);
	g.zone_cap = 10;
	CHECK_INT(znp_geom_init(&g), 0);
	CHECK_U64(g.nr_zones, 10);
	g.nlbas = 0;
	CHECK_INT(znp_geom_init(&g), -EINVAL);
}

/* 96 MiB zones of 4 KiB LBAs: the QEMU "A" namespace. */
static void test_npo2(void)
{
	struct znp_geom g = geom(4096, 10 * UINT64_C(24576), 24576);

	CHECK(!g.zone_size_is_po2, "24576 flagged po2");
	CHECK_U64(g.nr_zones, 10);
	CHECK_U64(znp_zone_no(&g, 0), 0);
	CHECK_U64(znp_zone_no(&g, 24575), 0);
	CHECK_U64(znp_zone_no(&g, 24576), 1);
	CHECK_U64(znp_zone_no(&g, 32768), 1);	/* a po2 boundary is not a zone boundary */
	CHECK_U64(znp_zone_start(&g, 3), 73728);
	CHECK_U64(znp_offset_from_zone_start(&g, 73728 + 5), 5);
	CHECK(znp_is_zone_start(&g, 73728), "73728 is a zone start");
	CHECK(!znp_is_zone_start(&g, 32768), "32768 is not a zone start");
	CHECK_U64(znp_zone_len(&g, 9), 24576);
	CHECK_U64(znp_zone_len(&g, 10), 0);
	CHECK_U64(znp_next_zone_start(&g, 24577), 49152);
	CHECK(!znp_has_small_last_zone(&g), "no small last zone");
	CHECK_U64(znp_po2_zone_size(&g), 32768);
	CHECK_U64(znp_po2_gap(&g), 8192);
	CHECK_U64(znp_po2_dev_lbas(&g), 327680);
}

static void test_last_short_zone(void)
{
	struct znp_geom g = geom(512, 10 * UINT64_C(24576) + 100, 24576);
	uint64_t lba = 0;

	CHECK_U64(g.nr_zones, 11);
	CHECK(znp_has_small_last_zone(&g), "small last zone not detected");
	CHECK_U64(znp_zone_len(&g, 10), 100);
	CHECK_U64(znp_zone_len(&g, 11), 0);	/* past the last zone */
	CHECK_U64(znp_zone_start(&g, 10), 245760);
	CHECK_U64(znp_zone_no(&g, g.nlbas - 1), 10);
	CHECK_U64(znp_po2_dev_lbas(&g), 11 * UINT64_C(32768));
	CHECK(znp_po2_to_dev(&g, 10 * UINT64_C(32768) + 99, &lba), "last LBA of short zone");
	CHECK_U64(lba, 245760 + 99);
	CHECK(!znp_po2_to_dev(&g, 10 * UINT64_C(32768) + 100, &lba), "past short zone is padding");
}

/* The last zone one LBA short of the zone size: short, and its last LBA the last data. */
static void test_last_zone_one_short(void)
{
	struct znp_geom g = geom(4096, 10 * UINT64_C(24576) - 1, 24576);

	CHECK_U64(g.nr_zones, 10);
	CHECK_U64(znp_zone_len(&g, 8), 24576);
	CHECK_U64(znp_zone_len(&g, 9), 24575);
	CHECK(znp_has_small_last_zone(&g), "a last zone one LBA short is small");
	/* data left from an offset: 1 at a zone's last LBA, 0 in the padding */
	CHECK_U64(znp_po2_data_left(&g, 24575), 1);
	CHECK_U64(znp_po2_data_left(&g, 24574), 2);
	CHECK_U64(znp_po2_data_left(&g, 24576), 0);
	CHECK_U64(znp_po2_data_left(&g, 9 * UINT64_C(32768) + 24574), 1);
	CHECK_U64(znp_po2_data_left(&g, 9 * UINT64_C(32768) + 24575), 0);
}

/* po2 sizes must give the same answers as plain division. */
static void test_po2_matches_division(void)
{
	struct znp_geom g = geom(4096, 1000 * UINT64_C(32768) + 7, 32768);
	uint64_t lba, dev;

	CHECK(g.zone_size_is_po2, "32768 not flagged po2");
	CHECK_U64(g.zone_shift, 15);
	CHECK_U64(g.nr_zones, 1001);
	for (lba = 0; lba < g.nlbas; lba += 12345) {
		CHECK_U64(znp_zone_no(&g, lba), lba / 32768);
		CHECK_U64(znp_offset_from_zone_start(&g, lba), lba % 32768);
		CHECK_U64(znp_zone_start(&g, znp_zone_no(&g, lba)), lba - lba % 32768);
		CHECK(znp_po2_to_dev(&g, lba, &dev) && dev == lba, "po2 identity at %llu",
		      (unsigned long long)lba);
		CHECK_U64(znp_dev_to_po2(&g, lba), lba);
	}
	CHECK_U64(znp_po2_gap(&g), 0);
	CHECK_U64(znp_zone_len(&g, 1000), 7);

	g = geom(4096, 5, 1);
	CHECK(g.zone_size_is_po2 && g.zone_shift == 0, "zone size 1 is po2, shift 0");
	CHECK_U64(znp_zone_no(&g, 4), 4);
	CHECK_U64(znp_zone_start(&g, U64MAX), U64MAX);
}

static void test_translation(void)
{
	struct znp_geom g = geom(4096, 10 * UINT64_C(24576), 24576);
	uint64_t lba = 0, dev;

	CHECK(znp_po2_to_dev(&g, 0, &lba) && lba == 0, "po2 0 -> dev 0");
	CHECK(znp_po2_to_dev(&g, 24575, &lba) && lba == 24575, "end of zone 0");
	CHECK(!znp_po2_to_dev(&g, 24576, &lba), "first padding LBA");
	CHECK(!znp_po2_to_dev(&g, 32767, &lba), "last padding LBA");
	CHECK(znp_po2_to_dev(&g, 32768, &lba) && lba == 24576, "zone 1 start");
	CHECK(znp_po2_to_dev(&g, 9 * 32768 + 24575, &lba) && lba == 9 * 24576 + 24575,
	      "last LBA");
	CHECK(!znp_po2_to_dev(&g, 10 * 32768, &lba), "past the po2 device");
	CHECK(!znp_po2_to_dev(&g, U64MAX, &lba), "2^64-1 is past the device");
	CHECK_U64(znp_dev_to_po2(&g, 24576), 32768);
	CHECK_U64(znp_dev_to_po2(&g, 9 * 24576 + 1), 9 * 32768 + 1);
	for (dev = 0; dev < g.nlbas; dev += 997) {
		uint64_t p = znp_dev_to_po2(&g, dev);

		CHECK(znp_po2_to_dev(&g, p, &lba) && lba == dev, "round trip of %llu",
		      (unsigned long long)dev);
	}
}

static void test_near_2_64(void)
{
	uint64_t zs = 3 * (UINT64_C(1) << 40);
	struct znp_geom g = geom(4096, U64MAX, zs);
	uint64_t last = g.nr_zones - 1, lba;

	CHECK_U64(g.nr_zones, U64MAX / zs + 1);
	CHECK_U64(znp_zone_start(&g, last), last * zs);
	CHECK_U64(znp_zone_len(&g, last), U64MAX - last * zs);
	CHECK_U64(znp_zone_no(&g, U64MAX - 1), last);
	CHECK_U64(znp_next_zone_start(&g, U64MAX - 1), U64MAX);	/* overflow */
	CHECK_U64(znp_zone_start(&g, U64MAX / 2), U64MAX);	/* overflow */
	CHECK_U64(znp_po2_zone_size(&g), UINT64_C(1) << 42);
	CHECK_U64(znp_po2_dev_lbas(&g), 0);			/* does not fit */
	CHECK_U64(znp_dev_to_po2(&g, U64MAX - 1), U64MAX);	/* does not fit */
	CHECK_U64(znp_dev_to_po2(&g, zs + 1), (UINT64_C(1) << 42) + 1);

	/* round-up overflow: zone size above 2^63 */
	g = geom(512, U64MAX, (UINT64_C(1) << 63) + 1);
	CHECK_U64(g.nr_zones, 2);
	CHECK_U64(znp_po2_zone_size(&g), 0);
	CHECK_U64(znp_po2_gap(&g), U64MAX);
	CHECK_U64(znp_po2_dev_lbas(&g), 0);
	CHECK(znp_po2_to_dev(&g, 5, &lba) && lba == 5, "zone 0 maps 1:1");
	CHECK_U64(znp_dev_to_po2(&g, 5), 5);
	CHECK_U64(znp_dev_to_po2(&g, (UINT64_C(1) << 63) + 2), U64MAX);
	/* the po2 view of it: one zone of 2^64 LBAs (shift 64) */
	CHECK_U64(znp_po2_zone_no(&g, 5), 0);
	CHECK_U64(znp_po2_zone_no(&g, U64MAX), 0);
	CHECK_U64(znp_po2_offset_in_zone(&g, 5), 5);
	CHECK_U64(znp_po2_offset_in_zone(&g, U64MAX), U64MAX);
	CHECK_U64(znp_po2_zone_start(&g, 0), 0);
	CHECK_U64(znp_po2_zone_start(&g, 1), U64MAX);

	/* zone size just above 2^62: po2 zones of 2^63 LBAs (shift 63), the last shift that fits */
	g = geom(512, U64MAX, (UINT64_C(1) << 62) + 1);
	CHECK_U64(znp_po2_zone_size(&g), UINT64_C(1) << 63);
	CHECK_U64(znp_po2_zone_no(&g, (UINT64_C(1) << 63) + 7), 1);
	CHECK_U64(znp_po2_offset_in_zone(&g, (UINT64_C(1) << 63) + 7), 7);
	CHECK_U64(znp_po2_zone_start(&g, 1), UINT64_C(1) << 63);
	CHECK_U64(znp_po2_zone_start(&g, 2), U64MAX);		/* overflow */

	/* nr_zones * po2 overflows although each zone fits */
	g = geom(512, U64MAX, 3);
	CHECK_U64(znp_po2_dev_lbas(&g), 0);
	CHECK_U64(znp_po2_gap(&g), 1);
}

static void test_descs_per_xfer(void)
{
	struct znp_geom g = geom(4096, 100, 10);

	CHECK_U64(znp_descs_per_xfer(&g, 0), 0);
	CHECK_U64(znp_descs_per_xfer(&g, 64), 0);
	CHECK_U64(znp_descs_per_xfer(&g, 128), 1);
	CHECK_U64(znp_descs_per_xfer(&g, 4096), 63);
	CHECK_U64(znp_descs_per_xfer(&g, 512 * 1024), 8191);
	g.zdes_bytes = 64;
	CHECK_U64(znp_descs_per_xfer(&g, 4096), 31);
}

int main(void)
{
	test_po2_helpers();
	test_init_errors();
	test_npo2();
	test_last_short_zone();
	test_last_zone_one_short();
	test_po2_matches_division();
	test_translation();
	test_near_2_64();
	test_descs_per_xfer();
	return t_done("test-geometry");
}
