// SPDX-License-Identifier: GPL-2.0-or-later
/* znp_zdesc_parse(): valid, extended and every malformed case. */
#include <errno.h>
#include <stdlib.h>

#include "geometry.h"
#include "zone.h"
#include "test.h"

#define ZS	24576u		/* 96 MiB of 4 KiB LBAs: npo2 */
#define NZ	10u

static unsigned char buf[64 + 16 * 256];

static void put_le64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_hdr(uint64_t nr)
{
	memset(buf, 0, sizeof(buf));
	put_le64(buf, nr);
}

static void put_desc(const struct znp_geom *g, unsigned int i, uint8_t zt, uint8_t zs,
		     uint64_t cap, uint64_t slba, uint64_t wp)
{
	unsigned char *d = buf + 64 + i * (64 + g->zdes_bytes);

	d[0] = zt;
	d[1] = (uint8_t)(zs << 4);
	d[2] = 0x80;	/* ZA: ZDEV */
	d[3] = 0x01;
	put_le64(d + 8, cap);
	put_le64(d + 16, slba);
	put_le64(d + 24, wp);
	memset(d + 64, 0xa5, g->zdes_bytes);	/* extension bytes: ignored */
}

static struct znp_geom geom(uint64_t nlbas, uint32_t zdes)
{
	struct znp_geom g = { .lba_size = 4096, .nlbas = nlbas, .zone_size = ZS,
			      .zone_cap = ZS, .zdes_bytes = zdes };

	CHECK_INT(znp_geom_init(&g), 0);
	return g;
}

/* Parse one descriptor placed at index 0 and return the result. */
static int parse1(const struct znp_geom *g, uint8_t zt, uint8_t zs, uint64_t cap,
		  uint64_t slba, uint64_t wp, size_t *n)
{
	struct znp_zone z[1];
	uint64_t nr;

	put_hdr(1);
	put_desc(g, 0, zt, zs, cap, slba, wp);
	return znp_zdesc_parse(g, buf, 64 + 64 + g->zdes_bytes, &nr, z, 1, n);
}

static void test_valid(void)
{
	struct znp_geom g = geom(NZ * ZS, 0);
	struct znp_zone z[16];
	uint64_t nr = 0;
	size_t n = 99;

	put_hdr(NZ);
	put_desc(&g, 0, ZNP_ZT_SEQ_REQ, ZNP_ZC_EMPTY, ZS, 0, 0);
	put_desc(&g, 1, ZNP_ZT_SEQ_REQ, ZNP_ZC_IMP_OPEN, ZS, ZS, ZS + 100);
	put_desc(&g, 2, ZNP_ZT_SEQ_REQ, ZNP_ZC_FULL, ZS, 2 * ZS, 3 * ZS);
	/* room for 3 descriptors although the header says 10 */
	CHECK_INT(znp_zdesc_parse(&g, buf, 64 + 3 * 64, &nr, z, 16, &n), 0);
	CHECK_U64(nr, NZ);
	CHECK_U64(n, 3);
	CHECK_U64(z[1].start, ZS);
	CHECK_U64(z[1].len, ZS);
	CHECK_U64(z[1].cap, ZS);
	CHECK_U64(z[1].wp, ZS + 100);
	CHECK_INT(z[1].cond, ZNP_ZC_IMP_OPEN);
	CHECK_INT(z[1].type, ZNP_ZT_SEQ_REQ);
	CHECK_INT(z[1].attrs, 0x80);
	CHECK_INT(z[1].attrs_info, 0x01);
	CHECK_INT(z[2].cond, ZNP_ZC_FULL);

	/* a trailing partial descriptor is not parsed */
	CHECK_INT(znp_zdesc_parse(&g, buf, 64 + 2 * 64 + 10, &nr, z, 16, &n), 0);
	CHECK_U64(n, 2);
	/* header count limits (partial report) */
	put_le64(buf, 2);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64 + 3 * 64, &nr, z, 16, &n), 0);
	CHECK_U64(n, 2);
	/* @max limits */
	CHECK_INT(znp_zdesc_parse(&g, buf, 64 + 3 * 64, &nr, z, 1, &n), 0);
	CHECK_U64(n, 1);
	/* room for 3 of 4: the room limits (the 4th slot of buf is zeros, type 0) */
	put_le64(buf, NZ);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64 + 3 * 64, &nr, z, 4, &n), 0);
	CHECK_U64(n, 3);
	/* header only: zero zones match */
	put_hdr(0);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64, &nr, z, 16, &n), 0);
	CHECK_U64(nr, 0);
	CHECK_U64(n, 0);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64, &nr, NULL, 0, &n), 0);
}

static void test_wp_rules(void)
{
	struct znp_geom g = geom(NZ * ZS, 0);
	size_t n;

	CHECK_INT(parse1(&g, 2, ZNP_ZC_CLOSED, ZS, ZS, 2 * ZS, &n), 0);	/* wp == start + cap */
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EXP_OPEN, 100, ZS, ZS + 100, &n), 0);
	/* wp beyond capacity */
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EXP_OPEN, 100, ZS, ZS + 101, &n), -EPROTO);
	CHECK_U64(n, 0);
	CHECK_INT(parse1(&g, 2, ZNP_ZC_IMP_OPEN, ZS, ZS, 2 * ZS + 1, &n), -EPROTO);
	/* wp before the zone start */
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EMPTY, ZS, ZS, ZS - 1, &n), -EPROTO);
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EMPTY, ZS, ZS, UINT64_MAX, &n), -EPROTO);
	/* wp undefined for full, read-only, offline, conventional */
	CHECK_INT(parse1(&g, 2, ZNP_ZC_FULL, ZS, ZS, UINT64_MAX, &n), 0);
	CHECK_INT(parse1(&g, 2, ZNP_ZC_FULL, ZS, ZS, 2 * ZS, &n), 0);
	CHECK_INT(parse1(&g, 2, ZNP_ZC_READONLY, ZS, ZS, 0, &n), 0);
	CHECK_INT(parse1(&g, 2, ZNP_ZC_OFFLINE, 0, ZS, 0, &n), 0);
	CHECK_INT(parse1(&g, 1, ZNP_ZC_NOT_WP, ZS, ZS, UINT64_MAX, &n), 0);
}

static void test_malformed(void)
{
	struct znp_geom g = geom(NZ * ZS, 0);
	struct znp_zone z[4];
	uint64_t nr;
	size_t n;

	/* zone start not a multiple of the zone size (po2 boundary, off by one) */
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EMPTY, ZS, 32768, 32768, &n), -EPROTO);
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EMPTY, ZS, ZS + 1, ZS + 1, &n), -EPROTO);
	/* zone start past the namespace */
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EMPTY, ZS, NZ * ZS, NZ * ZS, &n), -EPROTO);
	/* ... even with a capacity of 0, which fits the 0 LBAs left there */
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EMPTY, 0, NZ * ZS, NZ * ZS, &n), -EPROTO);
	CHECK_INT(parse1(&g, 2, ZNP_ZC_FULL, ZS, UINT64_MAX - ZS + 1, 0, &n), -EPROTO);
	/* capacity above the zone size */
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EMPTY, ZS + 1, 0, 0, &n), -EPROTO);
	CHECK_INT(parse1(&g, 2, ZNP_ZC_FULL, UINT64_MAX, 0, 0, &n), -EPROTO);
	/* unknown condition and type */
	CHECK_INT(parse1(&g, 2, 0x5, ZS, 0, 0, &n), -EPROTO);
	CHECK_INT(parse1(&g, 2, 0xc, ZS, 0, 0, &n), -EPROTO);
	CHECK_INT(parse1(&g, 0, ZNP_ZC_EMPTY, ZS, 0, 0, &n), -EPROTO);
	CHECK_INT(parse1(&g, 4, ZNP_ZC_EMPTY, ZS, 0, 0, &n), -EPROTO);
	/* header count above the zone count */
	put_hdr(NZ + 1);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64, &nr, z, 4, &n), -EPROTO);
	put_hdr(UINT64_MAX);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64, &nr, z, 4, &n), -EPROTO);
	/* short buffer */
	CHECK_INT(znp_zdesc_parse(&g, buf, 63, &nr, z, 4, &n), -EPROTO);
	CHECK_INT(znp_zdesc_parse(&g, buf, 0, &nr, z, 4, &n), -EPROTO);
	/* ... with a plausible header and a good descriptor behind it too */
	put_hdr(1);
	put_desc(&g, 0, 2, ZNP_ZC_EMPTY, ZS, 0, 0);
	CHECK_INT(znp_zdesc_parse(&g, buf, 63, &nr, z, 4, &n), -EPROTO);
	CHECK_U64(n, 0);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64 + 64, &nr, z, 4, &n), 0);
	CHECK_U64(n, 1);
	/* the good descriptors before a bad one are counted */
	put_hdr(3);
	put_desc(&g, 0, 2, ZNP_ZC_EMPTY, ZS, 0, 0);
	put_desc(&g, 1, 2, ZNP_ZC_EMPTY, ZS, ZS, ZS);
	put_desc(&g, 2, 2, ZNP_ZC_EMPTY, ZS, 2 * ZS + 7, 2 * ZS + 7);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64 + 3 * 64, &nr, z, 4, &n), -EPROTO);
	CHECK_U64(n, 2);
}

static void test_bad_args(void)
{
	struct znp_geom g = geom(NZ * ZS, 0), bad;
	struct znp_zone z[1];
	uint64_t nr;
	size_t n;

	put_hdr(0);
	CHECK_INT(znp_zdesc_parse(NULL, buf, 64, &nr, z, 1, &n), -EINVAL);
	CHECK_INT(znp_zdesc_parse(&g, NULL, 64, &nr, z, 1, &n), -EINVAL);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64, NULL, z, 1, &n), -EINVAL);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64, &nr, NULL, 1, &n), -EINVAL);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64, &nr, z, 1, NULL), -EINVAL);
	bad = g;
	bad.zone_size = 0;
	CHECK_INT(znp_zdesc_parse(&bad, buf, 64, &nr, z, 1, &n), -EINVAL);
	bad = g;
	bad.zone_size = g.nlbas + 1;
	CHECK_INT(znp_zdesc_parse(&bad, buf, 64, &nr, z, 1, &n), -EINVAL);
	/* derived fields are recomputed, not trusted (no shift by 200) */
	bad = g;
	bad.zone_size_is_po2 = true;
	bad.zone_shift = 200;
	bad.nr_zones = 0;
	CHECK_INT(znp_zdesc_parse(&bad, buf, 64, &nr, z, 1, &n), 0);
	bad = g;
	bad.zdes_bytes = 10;
	CHECK_INT(znp_zdesc_parse(&bad, buf, 64, &nr, z, 1, &n), -EINVAL);
}

static void test_extended(void)
{
	struct znp_geom g = geom(NZ * ZS, 128);
	struct znp_zone z[4];
	uint64_t nr;
	size_t n;

	put_hdr(4);
	put_desc(&g, 0, 2, ZNP_ZC_EMPTY, ZS, 0, 0);
	put_desc(&g, 1, 2, ZNP_ZC_CLOSED, 1000, ZS, ZS + 999);
	put_desc(&g, 2, 2, ZNP_ZC_FULL, 1000, 2 * ZS, 0);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64 + 3 * 192, &nr, z, 4, &n), 0);
	CHECK_U64(n, 3);
	CHECK_U64(z[1].start, ZS);
	CHECK_U64(z[1].wp, ZS + 999);
	CHECK_U64(z[1].cap, 1000);
	CHECK_U64(z[2].start, 2 * ZS);
	/* with a 64-byte stride the extension bytes would be parsed as descriptors */
	g.zdes_bytes = 0;
	CHECK_INT(znp_zdesc_parse(&g, buf, 64 + 3 * 192, &nr, z, 4, &n), -EPROTO);
}

static void test_last_short_zone(void)
{
	struct znp_geom g = geom(NZ * ZS + 100, 0);
	struct znp_zone z[1];
	uint64_t nr;
	size_t n;

	CHECK_INT(parse1(&g, 2, ZNP_ZC_EMPTY, 100, NZ * ZS, NZ * ZS, &n), 0);
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EMPTY, 101, NZ * ZS, NZ * ZS, &n), -EPROTO);
	put_hdr(1);
	put_desc(&g, 0, 2, ZNP_ZC_IMP_OPEN, 100, NZ * ZS, NZ * ZS + 50);
	CHECK_INT(znp_zdesc_parse(&g, buf, 128, &nr, z, 1, &n), 0);
	CHECK_U64(z[0].len, 100);

	/* a last zone of one LBA: it starts at the namespace's last LBA */
	g = geom(NZ * ZS + 1, 0);
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EMPTY, 1, NZ * ZS, NZ * ZS, &n), 0);
	CHECK_U64(n, 1);
	CHECK_INT(parse1(&g, 2, ZNP_ZC_EMPTY, 1, NZ * ZS + 1, NZ * ZS + 1, &n), -EPROTO);
}

static void test_names(void)
{
	CHECK_STR(znp_zone_cond_name(ZNP_ZC_EMPTY), "EMPTY");
	CHECK_STR(znp_zone_cond_name(ZNP_ZC_IMP_OPEN), "IMP_OPENED");
	CHECK_STR(znp_zone_cond_name(ZNP_ZC_EXP_OPEN), "EXP_OPENED");
	CHECK_STR(znp_zone_cond_name(ZNP_ZC_CLOSED), "CLOSED");
	CHECK_STR(znp_zone_cond_name(ZNP_ZC_READONLY), "READONLY");
	CHECK_STR(znp_zone_cond_name(ZNP_ZC_FULL), "FULL");
	CHECK_STR(znp_zone_cond_name(ZNP_ZC_OFFLINE), "OFFLINE");
	CHECK_STR(znp_zone_cond_name(0x7), "Unknown State");
	CHECK_STR(znp_zone_type_name(ZNP_ZT_SEQ_REQ), "SEQWRITE_REQ");
	CHECK_STR(znp_zone_type_name(9), "Unknown");
	CHECK_STR(znp_zone_action_name(ZNP_ZA_RESET), "reset");
	CHECK_STR(znp_zone_action_name(ZNP_ZA_OFFLINE), "offline");
}

/* znp_zdesc_parse_keep(): a bad field is kept and named; a bad start still fails. */
static void test_keep(void)
{
	struct znp_geom g = geom(NZ * ZS, 0);
	struct znp_zone z[3];
	uint64_t nr;
	size_t n;
	char why[128];

	put_hdr(3);
	put_desc(&g, 0, 2, ZNP_ZC_EMPTY, ZS, 0, 0);
	put_desc(&g, 1, 2, ZNP_ZC_EXP_OPEN, ZS, ZS, 2 * ZS + 1);	/* wp past cap */
	put_desc(&g, 2, 2, ZNP_ZC_EMPTY, ZS, 2 * ZS, 2 * ZS);
	CHECK_INT(znp_zdesc_parse(&g, buf, 64 + 3 * 64, &nr, z, 3, &n), -EPROTO);
	CHECK_INT(znp_zdesc_parse_keep(&g, buf, 64 + 3 * 64, &nr, z, 3, &n), 0);
	CHECK_U64(n, 3);
	CHECK_INT(z[0].bad, ZNP_ZBAD_NONE);
	CHECK_INT(z[1].bad, ZNP_ZBAD_WP);
	CHECK_INT(z[2].bad, ZNP_ZBAD_NONE);
	CHECK_U64(z[1].wp, 2 * ZS + 1);
	CHECK_STR(znp_zone_bad_str(&z[1], why, sizeof(why)), "wp 0xc001 beyond slba+cap 0xc000");
	put_desc(&g, 1, 2, ZNP_ZC_EMPTY, ZS, ZS, ZS - 1);		/* wp below start */
	CHECK_INT(znp_zdesc_parse_keep(&g, buf, 64 + 3 * 64, &nr, z, 3, &n), 0);
	CHECK_STR(znp_zone_bad_str(&z[1], why, sizeof(why)), "wp 0x5fff below slba 0x6000");
	put_desc(&g, 1, 2, ZNP_ZC_EMPTY, ZS + 1, ZS, ZS);		/* cap past the zone */
	CHECK_INT(znp_zdesc_parse_keep(&g, buf, 64 + 3 * 64, &nr, z, 3, &n), 0);
	CHECK_STR(znp_zone_bad_str(&z[1], why, sizeof(why)), "cap 0x6001 beyond zone size 0x6000");
	put_desc(&g, 1, 2, 0x5, ZS, ZS, ZS);				/* unknown state */
	CHECK_INT(znp_zdesc_parse_keep(&g, buf, 64 + 3 * 64, &nr, z, 3, &n), 0);
	CHECK_STR(znp_zone_bad_str(&z[1], why, sizeof(why)), "state 0x5 unknown");
	put_desc(&g, 1, 7, ZNP_ZC_EMPTY, ZS, ZS, ZS);			/* unknown type */
	CHECK_INT(znp_zdesc_parse_keep(&g, buf, 64 + 3 * 64, &nr, z, 3, &n), 0);
	CHECK_STR(znp_zone_bad_str(&z[1], why, sizeof(why)), "type 0x7 unknown");
	put_desc(&g, 1, 2, ZNP_ZC_EMPTY, ZS, ZS + 1, ZS + 1);		/* no zone start */
	CHECK_INT(znp_zdesc_parse_keep(&g, buf, 64 + 3 * 64, &nr, z, 3, &n), -EPROTO);
	CHECK_U64(n, 1);
}

int main(void)
{
	test_valid();
	test_wp_rules();
	test_malformed();
	test_bad_args();
	test_extended();
	test_last_short_zone();
	test_names();
	test_keep();
	return t_done("test-zdesc");
}
