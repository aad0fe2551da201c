// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: znp_zdesc_parse(), the Report Zones / Extended Report Zones
 * data parser, with a geometry taken from the input.
 *
 * Input: 24 bytes of geometry (lba shift, zone size, namespace size, zdes
 * units, max descriptors), then the data buffer as the device returned it.
 * Invariants: every parsed zone lies inside the namespace, starts on a zone
 * boundary, has cap <= len and a write pointer inside the zone when its
 * state has one; nothing is read past @len (ASan) and nparsed never exceeds
 * the header count, what the buffer holds, or @max.
 */
#include <errno.h>

#include "fuzz.h"
#include "geometry.h"
#include "zone.h"

#define MAX_ZONES 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct znp_zone zones[MAX_ZONES];
	struct znp_geom g = { 0 };
	uint64_t nr = 0, sel;
	size_t max, nparsed = 0, stride, fit;
	uint8_t *buf;
	int ret;

	g.lba_size = 512u << (fuzz_take(&in, 1) % 8);
	sel = fuzz_take(&in, 1);
	g.zone_size = fuzz_take(&in, sel & 1 ? 8 : 3);	/* small sizes often */
	g.nlbas = fuzz_take(&in, sel & 2 ? 8 : 4);
	g.zone_cap = sel & 4 ? fuzz_take(&in, 4) : 0;
	g.zdes_bytes = 64 * (uint32_t)(fuzz_take(&in, 1) % 4);
	if (sel & 8)
		g.zdes_bytes += (uint32_t)fuzz_take(&in, 1) % 64;	/* invalid */
	max = fuzz_take(&in, 1) % (MAX_ZONES + 1);

	/* an exact-size heap copy, so ASan sees any read past the end */
	buf = malloc(in.n ? in.n : 1);
	if (!buf)
		abort();
	memcpy(buf, in.p, in.n);
	ret = znp_zdesc_parse(&g, buf, in.n, &nr, zones, max, &nparsed);
	FUZZ_ASSERT(ret == 0 || ret == -EPROTO || ret == -EINVAL);
	if (ret == -EINVAL) {
		struct znp_geom lg = g;

		FUZZ_ASSERT(g.zdes_bytes % 64 || znp_geom_init(&lg));
		goto out;
	}
	FUZZ_ASSERT(znp_geom_init(&g) == 0);
	stride = ZNP_ZDESC_SIZE + g.zdes_bytes;
	fit = in.n < ZNP_ZREPORT_HDR_SIZE ? 0 : (in.n - ZNP_ZREPORT_HDR_SIZE) / stride;
	FUZZ_ASSERT(nparsed <= max && nparsed <= fit);
	if (in.n >= ZNP_ZREPORT_HDR_SIZE) {
		FUZZ_ASSERT(nparsed <= nr);
		FUZZ_ASSERT(ret || nr <= g.nr_zones);
	}
	if (ret == 0 && in.n >= ZNP_ZREPORT_HDR_SIZE) {
		uint64_t want = nr < fit ? nr : fit;

		FUZZ_ASSERT(nparsed == (want < max ? want : max));
	}
	for (size_t i = 0; i < nparsed; i++) {
		const struct znp_zone *z = &zones[i];

		FUZZ_ASSERT(z->start < g.nlbas);
		FUZZ_ASSERT(z->start % g.zone_size == 0);
		FUZZ_ASSERT(z->len > 0 && z->len <= g.zone_size);
		FUZZ_ASSERT(z->len <= g.nlbas - z->start);
		FUZZ_ASSERT(z->cap <= z->len);
		FUZZ_ASSERT(z->type >= ZNP_ZT_CONV && z->type <= ZNP_ZT_SEQ_PREF);
		FUZZ_ASSERT(strcmp(znp_zone_cond_name(z->cond), "Unknown State"));
		if (z->cond == ZNP_ZC_EMPTY || z->cond == ZNP_ZC_IMP_OPEN ||
		    z->cond == ZNP_ZC_EXP_OPEN || z->cond == ZNP_ZC_CLOSED)
			FUZZ_ASSERT(z->wp >= z->start && z->wp - z->start <= z->cap);
	}
out:
	free(buf);
	return 0;
}
