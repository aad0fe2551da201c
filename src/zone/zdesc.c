// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Report Zones data: parsing and validation (pure, fuzzed), and the names
 * of zone conditions, types and actions.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "zone.h"

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static bool cond_is_known(uint8_t c)
{
	switch (c) {
	case ZNP_ZC_NOT_WP:
	case ZNP_ZC_EMPTY:
	case ZNP_ZC_IMP_OPEN:
	case ZNP_ZC_EXP_OPEN:
	case ZNP_ZC_CLOSED:
	case ZNP_ZC_READONLY:
	case ZNP_ZC_FULL:
	case ZNP_ZC_OFFLINE:
		return true;
	}
	return false;
}

/* The write pointer means nothing for these (NVMe: "not valid"). */
static bool cond_has_wp(uint8_t c)
{
	return c != ZNP_ZC_NOT_WP && c != ZNP_ZC_READONLY &&
	       c != ZNP_ZC_FULL && c != ZNP_ZC_OFFLINE;
}

/*
 * One descriptor: -EPROTO when its start is no zone start inside the
 * namespace, else 0 with z->bad naming the first invalid field (0: none).
 */
static int zdesc_parse_one(const struct znp_geom *g, const unsigned char *d,
			   struct znp_zone *z)
{
	uint64_t zno;

	z->type = d[0] & 0x0f;
	z->cond = d[1] >> 4;
	z->attrs = d[2];
	z->attrs_info = d[3];
	z->cap = get_le64(d + 8);
	z->start = get_le64(d + 16);
	z->wp = get_le64(d + 24);
	z->bad = ZNP_ZBAD_NONE;

	if (z->start >= g->nlbas || !znp_is_zone_start(g, z->start))
		return -EPROTO;
	zno = znp_zone_no(g, z->start);
	z->len = znp_zone_len(g, zno);
	if (z->type != ZNP_ZT_CONV && z->type != ZNP_ZT_SEQ_REQ && z->type != ZNP_ZT_SEQ_PREF)
		z->bad = ZNP_ZBAD_TYPE;
	else if (!cond_is_known(z->cond))
		z->bad = ZNP_ZBAD_COND;
	else if (z->cap > z->len)
		z->bad = ZNP_ZBAD_CAP;
	else if (cond_has_wp(z->cond) && (z->wp < z->start || z->wp - z->start > z->cap))
		z->bad = ZNP_ZBAD_WP;
	return 0;
}

const char *znp_zone_bad_str(const struct znp_zone *z, char *buf, size_t size)
{
	switch (z->bad) {
	case ZNP_ZBAD_TYPE:
		snprintf(buf, size, "type 0x%x unknown", z->type);
		break;
	case ZNP_ZBAD_COND:
		snprintf(buf, size, "state 0x%x unknown", z->cond);
		break;
	case ZNP_ZBAD_CAP:
		snprintf(buf, size, "cap 0x%" PRIx64 " beyond zone size 0x%" PRIx64, z->cap,
			 z->len);
		break;
	case ZNP_ZBAD_WP:
		if (z->wp < z->start)
			snprintf(buf, size, "wp 0x%" PRIx64 " below slba 0x%" PRIx64, z->wp,
				 z->start);
		else
			snprintf(buf, size, "wp 0x%" PRIx64 " beyond slba+cap 0x%" PRIx64, z->wp,
				 z->start + z->cap);
		break;
	default:
		snprintf(buf, size, "%s", "");
	}
	return buf;
}

enum parse_mode { PARSE_STRICT, PARSE_KEEP, PARSE_RAW };

/* The fields as sent, nothing checked (report --raw). */
static void zdesc_decode_raw(const struct znp_geom *g, const unsigned char *d,
			     struct znp_zone *z)
{
	z->type = d[0] & 0x0f;
	z->cond = d[1] >> 4;
	z->attrs = d[2];
	z->attrs_info = d[3];
	z->cap = get_le64(d + 8);
	z->start = get_le64(d + 16);
	z->wp = get_le64(d + 24);
	z->len = g->zone_size;
	z->bad = ZNP_ZBAD_NONE;
}

static int zdesc_parse(const struct znp_geom *g, const void *buf, size_t len,
		       uint64_t *nr_reported, struct znp_zone *zones, size_t max,
		       size_t *nparsed, enum parse_mode mode)
{
	const unsigned char *p = buf;
	struct znp_geom lg;
	size_t stride, fit, n, i;
	int ret;

	if (!g || !buf || !nr_reported || !nparsed || (max && !zones) || g->zdes_bytes % 64)
		return -EINVAL;
	/* derive nr_zones and the po2 fields ourselves: @g may come from a fuzzer */
	lg = *g;
	if (znp_geom_init(&lg))
		return -EINVAL;
	g = &lg;
	*nparsed = 0;
	if (len < ZNP_ZREPORT_HDR_SIZE)
		return -EPROTO;

	*nr_reported = get_le64(p);
	if (*nr_reported > g->nr_zones && mode != PARSE_RAW)
		return -EPROTO;
	stride = ZNP_ZDESC_SIZE + g->zdes_bytes;
	fit = (len - ZNP_ZREPORT_HDR_SIZE) / stride;
	n = fit < max ? fit : max;
	if (*nr_reported < n)
		n = *nr_reported;

	for (i = 0; i < n; i++) {
		const unsigned char *d = p + ZNP_ZREPORT_HDR_SIZE + i * stride;

		if (mode == PARSE_RAW) {
			zdesc_decode_raw(g, d, &zones[i]);
			*nparsed = i + 1;
			continue;
		}
		ret = zdesc_parse_one(g, d, &zones[i]);
		if (ret || (zones[i].bad && mode == PARSE_STRICT))
			return -EPROTO;
		*nparsed = i + 1;
	}
	return 0;
}

int znp_zdesc_parse(const struct znp_geom *g, const void *buf, size_t len,
		    uint64_t *nr_reported, struct znp_zone *zones, size_t max,
		    size_t *nparsed)
{
	return zdesc_parse(g, buf, len, nr_reported, zones, max, nparsed, PARSE_STRICT);
}

int znp_zdesc_parse_keep(const struct znp_geom *g, const void *buf, size_t len,
			 uint64_t *nr_reported, struct znp_zone *zones, size_t max,
			 size_t *nparsed)
{
	return zdesc_parse(g, buf, len, nr_reported, zones, max, nparsed, PARSE_KEEP);
}

int znp_zdesc_parse_raw(const struct znp_geom *g, const void *buf, size_t len,
			uint64_t *nr_reported, struct znp_zone *zones, size_t max,
			size_t *nparsed)
{
	return zdesc_parse(g, buf, len, nr_reported, zones, max, nparsed, PARSE_RAW);
}

const char *znp_zone_cond_name(uint8_t cond)
{
	switch (cond) {
	case ZNP_ZC_NOT_WP:
		return "NOT_WP";
	case ZNP_ZC_EMPTY:
		return "EMPTY";
	case ZNP_ZC_IMP_OPEN:
		return "IMP_OPENED";
	case ZNP_ZC_EXP_OPEN:
		return "EXP_OPENED";
	case ZNP_ZC_CLOSED:
		return "CLOSED";
	case ZNP_ZC_READONLY:
		return "READONLY";
	case ZNP_ZC_FULL:
		return "FULL";
	case ZNP_ZC_OFFLINE:
		return "OFFLINE";
	}
	return "Unknown State";
}

const char *znp_zone_type_name(uint8_t type)
{
	switch (type) {
	case ZNP_ZT_CONV:
		return "CONVENTIONAL";
	case ZNP_ZT_SEQ_REQ:
		return "SEQWRITE_REQ";
	case ZNP_ZT_SEQ_PREF:
		return "SEQWRITE_PREF";
	}
	return "Unknown";
}

const char *znp_zone_action_name(enum znp_zone_action a)
{
	switch (a) {
	case ZNP_ZA_CLOSE:
		return "close";
	case ZNP_ZA_FINISH:
		return "finish";
	case ZNP_ZA_OPEN:
		return "open";
	case ZNP_ZA_RESET:
		return "reset";
	case ZNP_ZA_OFFLINE:
		return "offline";
	}
	return "unknown";
}
