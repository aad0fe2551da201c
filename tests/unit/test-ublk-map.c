// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ublk server's pure part: geometry derivation (limits, refusals) and
 * the translation between ublk sectors (po2 zones) and namespace LBAs,
 * zone descriptor conversion, append placement, NVMe status decoding.
 * Expected values are computed by hand from the configured shapes.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "test.h"
#include "ublk-map.h"

/* A namespace of @nz zones of @zlbas LBAs of @lba bytes. */
static struct znp_geom ns(uint32_t lba, uint64_t zlbas, uint64_t nz, uint32_t mdts)
{
	struct znp_geom g = { .lba_size = lba, .nlbas = zlbas * nz, .zone_size = zlbas,
			      .zone_cap = zlbas, .mdts_bytes = mdts };

	CHECK_INT(znp_geom_init(&g), 0);
	return g;
}

/* 96 MiB zones of 4 KiB LBAs (24576 LBAs), 8 zones, hidden namespace (127 KiB). */
static struct znp_ublk_geom g96(void)
{
	struct znp_geom n = ns(4096, 24576, 8, 127 * 1024);
	struct znp_ublk_geom g;
	const char *why = NULL;

	n.max_open = 4;
	n.max_active = 6;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, true, &g, &why), 0);
	return g;
}

static void test_geom(void)
{
	struct znp_ublk_geom g = g96(), h;
	struct znp_geom n;
	const char *why;

	CHECK_INT(g.lba_shift, 12);
	CHECK_U64(g.nr_zones, 8);
	CHECK_U64(g.zone_sectors, 262144);		/* 128 MiB */
	CHECK_U64(g.zone_cap_sectors, 196608);		/* 96 MiB */
	CHECK_U64(g.dev_sectors, 8 * 262144);
	CHECK_INT(g.max_open, 4);
	CHECK_INT(g.max_active, 6);
	/* 127 KiB rounded down to pages: 124 KiB = 248 sectors */
	CHECK_INT(g.max_cmd_sectors, 248);
	CHECK_INT(g.max_append_sectors, 248);
	/* requests of at most 256 KiB in whole commands: 2 x 124 KiB */
	CHECK_INT(g.max_sectors, 496);
	CHECK(g.volatile_cache, "VWC passed through");

	/* no MDTS: the 255-sector passthrough limit, in pages (248) */
	n = ns(4096, 24576, 8, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_cmd_sectors, 248);
	/* ZASL below MDTS limits appends only: 16 KiB */
	CHECK_INT(znp_ublk_geom_compute(&n, 16384, false, &h, &why), 0);
	CHECK_INT(h.max_append_sectors, 32);
	CHECK_INT(h.max_cmd_sectors, 248);
	/* MDTS 64 KiB */
	n = ns(4096, 24576, 8, 65536);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_cmd_sectors, 128);
	CHECK_INT(h.max_sectors, 512);

	/* 512-byte LBAs, 48 MiB zones: 64 MiB po2 zones */
	n = ns(512, 98304, 5, 127 * 1024);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.lba_shift, 9);
	CHECK_U64(h.zone_sectors, 131072);
	CHECK_U64(h.zone_cap_sectors, 98304);
	CHECK_INT(h.max_cmd_sectors, 248);
	CHECK_INT(h.max_sectors, 496);

	/* limits >= the zone count mean "none"; open > active is clamped */
	n = ns(4096, 24576, 8, 0);
	n.max_open = 8;
	n.max_active = 9;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_open, 0);
	CHECK_INT(h.max_active, 0);
	n.max_open = 5;
	n.max_active = 3;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_open, 3);
	CHECK_INT(h.max_active, 3);
	/* exactly the zone count is "none" too; one below is a limit */
	n.max_open = 0;
	n.max_active = 8;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_open, 0);
	CHECK_INT(h.max_active, 0);
	n.max_active = 7;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_open, 7);
	CHECK_INT(h.max_active, 7);
	/* an open limit one below the zone count is a limit; open one above active is clamped */
	n.max_open = 7;
	n.max_active = 0;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_open, 7);
	CHECK_INT(h.max_active, 0);
	n.max_open = 4;
	n.max_active = 3;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_open, 3);
	CHECK_INT(h.max_active, 3);

	/* MDTS of one page is the smallest transfer served, below it is refused */
	n = ns(4096, 24576, 8, 4096);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_cmd_sectors, 8);
	CHECK_INT(h.max_append_sectors, 8);
	n = ns(512, 98304, 5, 2048);
	why = NULL;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), -EINVAL);
	CHECK(why && strstr(why, "below 4 KiB"), "reason names the transfer size: %s", why);
	/* a zone append limit below one LBA is refused, one LBA is served */
	n = ns(4096, 24576, 8, 0);
	why = NULL;
	CHECK_INT(znp_ublk_geom_compute(&n, 2048, false, &h, &why), -EINVAL);
	CHECK(why && strstr(why, "append"), "reason names the append limit: %s", why);
	CHECK_INT(znp_ublk_geom_compute(&n, 4096, false, &h, &why), 0);
	CHECK_INT(h.max_append_sectors, 8);
	/* ZASL one byte below the command size: whole LBAs below it, 120 KiB */
	CHECK_INT(znp_ublk_geom_compute(&n, 248 * 512 - 1, false, &h, &why), 0);
	CHECK_INT(h.max_append_sectors, 240);
	CHECK_INT(h.max_cmd_sectors, 248);
	/* zones of 247 LBAs of 512 bytes: appends up to the capacity, not the command */
	n = ns(512, 247, 8, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_U64(h.zone_cap_sectors, 247);
	CHECK_INT(h.max_append_sectors, 247);
	CHECK_INT(h.max_cmd_sectors, 248);

	/* the report pitfall: one request must hold every zone (8 per sector) */
	n = ns(4096, 24576, 6000, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_sectors, 992);			/* 750 rounded up to whole commands */
	CHECK_INT(h.max_cmd_sectors, 248);
	CHECK(h.max_sectors * 8 >= h.nr_zones, "one report request holds every zone");
	/* 3976 zones: 497 sectors of report, one above 2 commands: 3 commands */
	n = ns(4096, 24576, 3976, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_sectors, 744);
	n = ns(4096, 24576, 3968, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_sectors, 496);
}

/* LBA formats with metadata or PI are refused. */
static void test_geom_formats(void)
{
	static const struct { uint16_t ms; bool ext; uint8_t pi; } f[] = {
		{ 8, true, 0 }, { 8, false, 0 }, { 8, false, 1 }, { 8, true, 1 }, { 0, false, 2 },
	};
	struct znp_ublk_geom h;
	struct znp_geom n;
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		n = ns(4096, 24576, 8, 0);
		n.md_bytes = f[i].ms;
		n.md_extended = f[i].ext;
		n.pi_type = f[i].pi;
		why = NULL;
		CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), -EINVAL);
		CHECK(why && strstr(why, "metadata"), "format %zu: reason %s", i, why);
	}
}

/* ZDES does not reach the parser: the server asks for basic reports. */
static void test_geom_zdes(void)
{
	struct znp_ublk_geom h;
	struct znp_geom n;
	const char *why;

	/* 64-byte extensions: basic reports, so descriptors parse at 64 bytes */
	n = ns(4096, 24576, 8, 0);
	n.zdes_bytes = 64;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.ns.zdes_bytes, 0);
	CHECK_U64(h.ns.zone_size, 24576);
	/* a basic report of 3 zones, as ZRA 0x00 returns it, parses whole */
	{
		unsigned char rep[64 + 3 * 64] = { 0 };
		struct znp_zone z[3];
		uint64_t nr;
		size_t np, i;

		rep[0] = 3;
		for (i = 0; i < 3; i++) {
			unsigned char *d = rep + 64 + i * 64;
			uint64_t slba = i * 24576;

			d[0] = 0x2;				/* sequential write required */
			d[1] = 0x1 << 4;			/* empty */
			memcpy(d + 8, &(uint64_t){ htole64(24576) }, 8);
			memcpy(d + 16, &(uint64_t){ htole64(slba) }, 8);
			memcpy(d + 24, &(uint64_t){ htole64(slba) }, 8);
		}
		CHECK_INT(znp_zdesc_parse(&h.ns, rep, sizeof(rep), &nr, z, 3, &np), 0);
		CHECK_U64(np, 3);
		for (i = 0; i < np; i++)
			CHECK_U64(z[i].start, i * 24576);
	}
}

static void test_geom_refusals(void)
{
	struct znp_ublk_geom h;
	struct znp_geom n;
	const char *why;

	n = ns(4096, 24576, 8, 0);
	n.zone_cap = 16384;
	why = NULL;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), -EINVAL);
	CHECK(why && strstr(why, "capacity"), "reason names the capacity: %s", why);
	n.zone_cap = n.zone_size;
	n.zone_cap_varies = true;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), -EINVAL);
	/* a small last zone */
	n = ns(4096, 24576, 8, 0);
	n.nlbas -= 100;
	CHECK_INT(znp_geom_init(&n), 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), -EINVAL);
	/* 8 KiB LBAs cannot be presented */
	n = ns(8192, 24576, 8, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), -EINVAL);
	/* a po2 zone of 2^32 sectors does not fit chunk_sectors */
	n = ns(4096, (UINT64_C(1) << 29) + 1, 2, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), -E2BIG);
	/* ... one of 2^31 sectors does: the largest zone a ublk device takes */
	n = ns(4096, (UINT64_C(1) << 27) + 1, 2, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_U64(h.zone_sectors, UINT64_C(1) << 31);
	n = ns(512, UINT64_C(1) << 31, 2, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_U64(h.zone_sectors, UINT64_C(1) << 31);
	/* more zones than one 32 MiB request can report */
	n = ns(4096, 24576, 600000, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), -E2BIG);
	/* ... exactly as many as it can (8 per sector), and one more */
	n = ns(4096, 24576, 8 * 65536, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_sectors, 65536);
	n = ns(4096, 24576, 8 * 65536 + 1, 0);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), -E2BIG);
	/* 64 KiB commands: whole commands that fill the request buffer exactly are kept */
	n = ns(4096, 24576, 524000, 65536);
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
	CHECK_INT(h.max_cmd_sectors, 128);
	CHECK_INT(h.max_sectors, 65536);		/* 65500 rounded up to 512 commands */
	/* not zoned */
	n = ns(4096, 24576, 8, 0);
	n.zone_size = 0;
	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), -EMEDIUMTYPE);
}

static void test_rw(void)
{
	struct znp_ublk_geom g = g96();
	struct znp_ublk_ext e;

	/* zone 2, 124 KiB at its start: namespace LBA 2 * 24576 */
	CHECK_INT(znp_ublk_map_rw(&g, 2 * 262144, 248, true, &e), 0);
	CHECK_U64(e.zone_no, 2);
	CHECK_U64(e.lba, 49152);
	CHECK_INT(e.nlb, 31);
	CHECK_INT(e.zero_bytes, 0);
	/* 8 sectors into zone 3 */
	CHECK_INT(znp_ublk_map_rw(&g, 3 * 262144 + 8, 8, false, &e), 0);
	CHECK_U64(e.lba, 3 * 24576 + 1);
	/* a read across the capacity: 8 KiB of data, 56 KiB of zeros */
	CHECK_INT(znp_ublk_map_rw(&g, 4 * 262144 + 196608 - 16, 128, false, &e), 0);
	CHECK_U64(e.lba, 4 * 24576 + 24574);
	CHECK_INT(e.nlb, 2);
	CHECK_INT(e.zero_bytes, 57344);
	/* all padding */
	CHECK_INT(znp_ublk_map_rw(&g, 196608, 128, false, &e), 0);
	CHECK_INT(e.nlb, 0);
	CHECK_INT(e.zero_bytes, 65536);
	/* the last sector before the next zone */
	CHECK_INT(znp_ublk_map_rw(&g, 262144 - 8, 8, false, &e), 0);
	CHECK_INT(e.nlb, 0);
	/* the last sector of the device (padding of the last zone): inside it */
	CHECK_INT(znp_ublk_map_rw(&g, 8 * 262144 - 8, 8, false, &e), 0);
	CHECK_U64(e.zone_no, 7);
	CHECK_INT(e.nlb, 0);
	CHECK_INT(e.zero_bytes, 4096);
	/* writes touching the padding: I/O error, nothing to send */
	CHECK_INT(znp_ublk_map_rw(&g, 4 * 262144 + 196608 - 16, 128, true, &e), -EIO);
	CHECK_INT(znp_ublk_map_rw(&g, 196608, 8, true, &e), -EIO);
	/* a write that ends exactly at the capacity is fine */
	CHECK_INT(znp_ublk_map_rw(&g, 196608 - 16, 16, true, &e), 0);
	CHECK_INT(e.nlb, 2);
	/* misaligned to the 4 KiB LBA, empty, crossing a zone, past the end */
	CHECK_INT(znp_ublk_map_rw(&g, 4, 8, false, &e), -EINVAL);
	CHECK_INT(znp_ublk_map_rw(&g, 0, 4, false, &e), -EINVAL);
	CHECK_INT(znp_ublk_map_rw(&g, 0, 0, false, &e), -EINVAL);
	CHECK_INT(znp_ublk_map_rw(&g, 262144 - 8, 16, false, &e), -EINVAL);
	CHECK_INT(znp_ublk_map_rw(&g, 8 * 262144, 8, false, &e), -EINVAL);
	CHECK_INT(znp_ublk_map_rw(&g, 8 * 262144 - 8, 16, false, &e), -EINVAL);
	CHECK_INT(znp_ublk_map_rw(&g, UINT64_MAX - 7, 8, false, &e), -EINVAL);
	CHECK_INT(znp_ublk_map_rw(&g, 0, 504, false, &e), -EINVAL);	/* > max_sectors */
	CHECK_INT(znp_ublk_map_rw(&g, 0, 496, true, &e), 0);		/* = max_sectors */
	CHECK_INT(e.nlb, 62);
	CHECK_INT(znp_ublk_map_rw(&g, 0, UINT32_MAX - 7, false, &e), -EINVAL);
	/* a read of one LBA where two are left: one LBA, no zeros */
	CHECK_INT(znp_ublk_map_rw(&g, 196608 - 16, 8, false, &e), 0);
	CHECK_INT(e.nlb, 1);
	CHECK_INT(e.zero_bytes, 0);
	CHECK_U64(e.lba, 24574);
}

/* 512-byte LBAs (48 MiB zones, 5 of them): every sector is an LBA. */
static void test_rw_512(void)
{
	struct znp_geom n = ns(512, 98304, 5, 127 * 1024);
	struct znp_ublk_geom g;
	struct znp_ublk_ext e;
	const char *why = NULL;

	CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &g, &why), 0);
	CHECK_U64(g.dev_sectors, 5 * 131072);
	CHECK_INT(g.max_sectors, 496);
	CHECK_INT(znp_ublk_map_rw(&g, 0, 496, false, &e), 0);
	CHECK_INT(e.nlb, 496);
	CHECK_INT(znp_ublk_map_rw(&g, 0, 497, false, &e), -EINVAL);	/* > max_sectors */
	/* the device's last sector: padding of the last zone */
	CHECK_INT(znp_ublk_map_rw(&g, 5 * 131072 - 1, 1, false, &e), 0);
	CHECK_U64(e.zone_no, 4);
	CHECK_INT(e.nlb, 0);
	CHECK_INT(e.zero_bytes, 512);
	CHECK_INT(znp_ublk_map_rw(&g, 5 * 131072, 1, false, &e), -EINVAL);
	/* the last data sector of zone 4 */
	CHECK_INT(znp_ublk_map_rw(&g, 4 * 131072 + 98303, 1, true, &e), 0);
	CHECK_U64(e.lba, 4 * 98304 + 98303);
	CHECK_INT(e.nlb, 1);
}

static void test_zone_and_alba(void)
{
	struct znp_ublk_geom g = g96();
	uint64_t v;

	CHECK_INT(znp_ublk_map_zone(&g, 5 * 262144, &v), 0);
	CHECK_U64(v, 5 * 24576);
	CHECK_INT(znp_ublk_map_zone(&g, 0, &v), 0);
	CHECK_U64(v, 0);
	CHECK_INT(znp_ublk_map_zone(&g, 5 * 262144 + 8, &v), -EINVAL);
	CHECK_INT(znp_ublk_map_zone(&g, 8 * 262144, &v), -EINVAL);
	/* zones of one 512-byte LBA: the device's last sector starts the last zone */
	{
		struct znp_geom n = ns(512, 1, 4, 0);
		struct znp_ublk_geom h;
		const char *why = NULL;

		CHECK_INT(znp_ublk_geom_compute(&n, 0, false, &h, &why), 0);
		CHECK_U64(h.dev_sectors, 4);
		CHECK_INT(znp_ublk_map_zone(&h, 3, &v), 0);
		CHECK_U64(v, 3);
		CHECK_INT(znp_ublk_map_zone(&h, 4, &v), -EINVAL);
	}

	/* ALBA 7 * 24576 + 4 in zone 7 -> sector 7 * 262144 + 32 */
	CHECK_INT(znp_ublk_map_alba(&g, 7, 7 * 24576 + 4, 4, &v), 0);
	CHECK_U64(v, 7 * 262144 + 32);
	/* the first append of a zone lands at its start */
	CHECK_INT(znp_ublk_map_alba(&g, 7, 7 * 24576, 1, &v), 0);
	CHECK_U64(v, 7 * 262144);
	/* up to the capacity */
	CHECK_INT(znp_ublk_map_alba(&g, 7, 7 * 24576 + 24572, 4, &v), 0);
	CHECK_U64(v, 7 * 262144 + 24572 * 8);
	/* untrusted device data: outside the zone or past its capacity */
	CHECK_INT(znp_ublk_map_alba(&g, 7, 7 * 24576 + 24573, 4, &v), -EIO);
	CHECK_INT(znp_ublk_map_alba(&g, 7, 6 * 24576, 4, &v), -EIO);
	CHECK_INT(znp_ublk_map_alba(&g, 7, 8 * 24576, 1, &v), -EIO);
	CHECK_INT(znp_ublk_map_alba(&g, 8, 8 * 24576, 1, &v), -EIO);
	CHECK_INT(znp_ublk_map_alba(&g, 8, 8 * 24576, 0, &v), -EIO);	/* no zone 8 at all */
	CHECK_INT(znp_ublk_map_alba(&g, 7, UINT64_MAX, 1, &v), -EIO);
	/* one LBA past the capacity, even for an append that claims no LBA */
	CHECK_INT(znp_ublk_map_alba(&g, 7, 7 * 24576 + 24577, 0, &v), -EIO);
	CHECK_INT(znp_ublk_map_alba(&g, 6, 6 * 24576 + 24577, 1, &v), -EIO);
	/* zone 0: its start is LBA 0 */
	CHECK_INT(znp_ublk_map_alba(&g, 0, 4, 1, &v), 0);
	CHECK_U64(v, 32);
	CHECK_INT(znp_ublk_map_alba(&g, 0, 0, 1, &v), 0);
	CHECK_U64(v, 0);
}

static void test_zone_to_blk(void)
{
	struct znp_ublk_geom g = g96();
	struct znp_zone z = { .start = 3 * 24576, .len = 24576, .cap = 24576,
			      .type = ZNP_ZT_SEQ_REQ };
	struct blk_zone bz;

	z.cond = ZNP_ZC_EMPTY;
	z.wp = z.start;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), 0);
	CHECK_U64(bz.start, 3 * 262144);
	CHECK_U64(bz.len, 262144);
	CHECK_U64(bz.capacity, 196608);
	CHECK_U64(bz.wp, 3 * 262144);
	CHECK_INT(bz.cond, BLK_ZONE_COND_EMPTY);
	CHECK_INT(bz.type, BLK_ZONE_TYPE_SEQWRITE_REQ);

	/* an explicitly opened empty zone: wp at its start */
	z.cond = ZNP_ZC_EXP_OPEN;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), 0);
	CHECK_U64(bz.wp, 3 * 262144);
	/* closed with the wp at the capacity: the last po2 sector before the padding */
	z.cond = ZNP_ZC_CLOSED;
	z.wp = z.start + 24576;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), 0);
	CHECK_U64(bz.wp, 3 * 262144 + 196608);

	z.cond = ZNP_ZC_IMP_OPEN;
	z.wp = z.start + 256;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), 0);
	CHECK_U64(bz.wp, 3 * 262144 + 2048);
	CHECK_INT(bz.cond, BLK_ZONE_COND_IMP_OPEN);
	z.cond = ZNP_ZC_CLOSED;
	z.attrs = 0x04;			/* RZR */
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), 0);
	CHECK_INT(bz.reset, 1);
	CHECK_INT(bz.cond, BLK_ZONE_COND_CLOSED);
	/* full: whatever the device says, wp at the po2 zone end */
	z.cond = ZNP_ZC_FULL;
	z.wp = UINT64_MAX;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), 0);
	CHECK_U64(bz.wp, 4 * 262144);
	CHECK_INT(bz.cond, BLK_ZONE_COND_FULL);

	/* the last zone, and zone 0 (start 0) with a write pointer */
	z.start = 7 * 24576;
	z.wp = z.start + 8;
	z.cond = ZNP_ZC_IMP_OPEN;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 7, &z, &bz), 0);
	CHECK_U64(bz.start, 7 * 262144);
	CHECK_U64(bz.wp, 7 * 262144 + 64);
	z.start = 0;
	z.wp = 8;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 0, &z, &bz), 0);
	CHECK_U64(bz.wp, 64);
	z.start = 3 * 24576;
	z.wp = z.start;

	/* refused: wrong index, open zone with a wp out of bounds, other types/caps */
	z.cond = ZNP_ZC_EXP_OPEN;
	z.wp = z.start + 24577;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), -EIO);
	z.wp = z.start - 1;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), -EIO);
	z.wp = z.start;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 4, &z, &bz), -EIO);
	CHECK_INT(znp_ublk_zone_to_blk(&g, 8, &z, &bz), -EIO);
	/* one past the last zone, even with the start such a zone would have */
	z.start = 8 * 24576;
	z.wp = z.start;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 8, &z, &bz), -EIO);
	z.start = 3 * 24576;
	z.wp = z.start;
	z.type = ZNP_ZT_CONV;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), -EIO);
	z.type = ZNP_ZT_SEQ_REQ;
	z.cap = 24000;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), -EIO);
	z.cap = 24576;
	z.cond = ZNP_ZC_NOT_WP;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), -EIO);
	z.cond = 0x7;
	CHECK_INT(znp_ublk_zone_to_blk(&g, 3, &z, &bz), -EIO);
}

static void test_status(void)
{
	CHECK_INT(znp_ublk_status_errno(0), 0);
	CHECK_INT(znp_ublk_status_errno(-ENOMEM), -ENOMEM);
	CHECK_INT(znp_ublk_status_errno(0x1bd), -EOVERFLOW);
	CHECK_INT(znp_ublk_status_errno(0x41bd), -EOVERFLOW);	/* DNR set */
	CHECK_INT(znp_ublk_status_errno(0x1be), -ETOOMANYREFS);
	CHECK_INT(znp_ublk_status_errno(0x41b9), -EIO);		/* Zone Is Full */
	CHECK_INT(znp_ublk_status_errno(0x1b8), -EIO);		/* Zone Boundary Error */
	CHECK_INT(znp_ublk_status_errno(0x4002), -EINVAL);
	CHECK_INT(znp_ublk_status_errno(0x4001), -EOPNOTSUPP);
	CHECK_INT(znp_ublk_status_errno(0x001), -EOPNOTSUPP);	/* the smallest status */
}

/* Retries wait: a backoff, or the controller's Command Retry Delay when the status asks for it. */
static void test_retry_delay(void)
{
	const uint32_t crdt[3] = { 500, 0, 25500 };
	const uint32_t none[3] = { 0, 0, 0 };

	/* no CRD: 10 ms doubling, never back to back */
	CHECK_INT(znp_ublk_retry_ms(0x370, crdt, 0), 10);
	CHECK_INT(znp_ublk_retry_ms(0x370, crdt, 1), 20);
	CHECK_INT(znp_ublk_retry_ms(0x370, crdt, 4), 160);
	CHECK_INT(znp_ublk_retry_ms(-EINTR, crdt, 2), 40);
	/* CRD 1 (bit 11): CRDT1; CRD 3: CRDT3 (255 x 100 ms) */
	CHECK_INT(znp_ublk_retry_ms(0x0800 | 0x370, crdt, 0), 500);
	CHECK_INT(znp_ublk_retry_ms(0x1800 | 0x003, crdt, 4), 25500);
	/* CRD 2 with CRDT2 0, or no CRDT known: the backoff */
	CHECK_INT(znp_ublk_retry_ms(0x1000 | 0x003, crdt, 1), 20);
	CHECK_INT(znp_ublk_retry_ms(0x0800 | 0x003, none, 0), 10);
	/* CRD bits are not part of the status code: the verdict is the same */
	CHECK_INT(znp_ublk_status_verdict(0x0800 | 0x003, false), ZNP_UBLK_RETRY);
	CHECK_INT(znp_ublk_status_verdict(0x1800 | 0x1bc, true), ZNP_UBLK_CHECK_WP);
}

/* What the server does with each failure: fail, retry, look at the write pointer, leave. */
static void test_verdict(void)
{
	CHECK_INT(znp_ublk_status_verdict(-ENODEV, true), ZNP_UBLK_GONE);
	CHECK_INT(znp_ublk_status_verdict(-ENXIO, false), ZNP_UBLK_GONE);
	/* the namespace detached before the host noticed: refused, never applied */
	CHECK_INT(znp_ublk_status_verdict(0x400b, true), ZNP_UBLK_GONE);
	CHECK_INT(znp_ublk_status_verdict(0x000b, false), ZNP_UBLK_GONE);
	CHECK_INT(znp_ublk_status_verdict(0x400c, false), ZNP_UBLK_FAIL);
	CHECK_INT(znp_ublk_status_verdict(-EINTR, false), ZNP_UBLK_RETRY);	/* cancelled */
	CHECK_INT(znp_ublk_status_verdict(-ENOMEM, true), ZNP_UBLK_FAIL);
	/* no status at all is no reason to retry */
	CHECK_INT(znp_ublk_status_verdict(0, true), ZNP_UBLK_FAIL);
	/* Invalid Opcode / Invalid Field: never better on a retry, DNR or not */
	CHECK_INT(znp_ublk_status_verdict(0x001, false), ZNP_UBLK_FAIL);
	CHECK_INT(znp_ublk_status_verdict(0x002, true), ZNP_UBLK_FAIL);
	CHECK_INT(znp_ublk_status_verdict(0x4001, false), ZNP_UBLK_FAIL);
	/* any other status: DNR decides (Command ID Conflict) */
	CHECK_INT(znp_ublk_status_verdict(0x003, false), ZNP_UBLK_RETRY);
	CHECK_INT(znp_ublk_status_verdict(0x4003, false), ZNP_UBLK_FAIL);
	CHECK_INT(znp_ublk_status_verdict(0x370, true), ZNP_UBLK_RETRY);	/* path error */
	CHECK_INT(znp_ublk_status_verdict(0x371, false), ZNP_UBLK_RETRY);	/* host abort */
	CHECK_INT(znp_ublk_status_verdict(0x4371, false), ZNP_UBLK_RETRY);
	CHECK_INT(znp_ublk_status_verdict(0x0082, false), ZNP_UBLK_RETRY);	/* not ready */
	CHECK_INT(znp_ublk_status_verdict(0x4082, false), ZNP_UBLK_FAIL);	/* ... DNR */
	CHECK_INT(znp_ublk_status_verdict(0x41bc, true), ZNP_UBLK_CHECK_WP);	/* invalid write */
	CHECK_INT(znp_ublk_status_verdict(0x41b9, true), ZNP_UBLK_CHECK_WP);	/* zone full */
	CHECK_INT(znp_ublk_status_verdict(0x41b8, true), ZNP_UBLK_CHECK_WP);	/* boundary */
	CHECK_INT(znp_ublk_status_verdict(0x41bc, false), ZNP_UBLK_FAIL);
	CHECK_INT(znp_ublk_status_verdict(0x41bd, true), ZNP_UBLK_FAIL);	/* too many active */
	CHECK_INT(znp_ublk_status_verdict(0x4002, true), ZNP_UBLK_FAIL);
}

/* Two namespaces, or one namespace in two shapes, never share a fingerprint. */
static void test_fingerprint(void)
{
	struct znp_ns_info a, b;
	struct znp_geom g96 = ns(4096, 24576, 8, 0), g100 = ns(4096, 25600, 8, 0);
	uint64_t fa;

	memset(&a, 0, sizeof(a));
	memcpy(a.serial, "npo2zns0001", 11);
	a.nsid = 1;
	b = a;
	b.nsid = 2;
	g96.zone_cap = 24576;
	g100.zone_cap = 24576;		/* same capacity, another zone size */
	fa = znp_ublk_fingerprint(&a, &g96);
	CHECK(fa != 0);
	CHECK_U64(znp_ublk_fingerprint(&a, &g96), fa);
	CHECK(znp_ublk_fingerprint(&b, &g96) != fa);
	CHECK(znp_ublk_fingerprint(&a, &g100) != fa);
	g96.zone_cap = 23552;		/* 96 MiB zones with 92 MiB capacity */
	CHECK(znp_ublk_fingerprint(&a, &g96) != fa);
	g96.zone_cap = 24576;
	a.nguid[15] = 1;
	CHECK(znp_ublk_fingerprint(&a, &g96) != fa);
}

/* The geometry helpers the server uses, on the po2 space of a 96 MiB-zone namespace. */
static void test_po2_helpers(void)
{
	struct znp_geom n = ns(4096, 24576, 8, 0);

	CHECK_U64(znp_po2_zone_no(&n, 32768 * 3 + 5), 3);
	CHECK_U64(znp_po2_offset_in_zone(&n, 32768 * 3 + 5), 5);
	CHECK_U64(znp_po2_zone_start(&n, 3), 3 * 32768);
	CHECK_U64(znp_po2_zone_start(&n, UINT64_MAX), UINT64_MAX);
	CHECK_U64(znp_po2_data_left(&n, 32768 * 3 + 5), 24576 - 5);
	CHECK_U64(znp_po2_data_left(&n, 32768 * 3 + 24576), 0);
	CHECK_U64(znp_po2_data_left(&n, 32768 * 8), 0);
}

int main(void)
{
	test_geom();
	test_geom_refusals();
	test_geom_zdes();
	test_geom_formats();
	test_rw();
	test_rw_512();
	test_zone_and_alba();
	test_zone_to_blk();
	test_status();
	test_verdict();
	test_retry_delay();
	test_fingerprint();
	test_po2_helpers();
	return t_done("ublk-map");
}
