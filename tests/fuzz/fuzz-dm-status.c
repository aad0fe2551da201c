// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: dm-po2zone status parameters (znp_dm_status_parse) and the
 * table length of a geometry taken from the input (znp_dm_table_len).
 *
 * Input: 17 bytes of geometry (lba shift, zone size, namespace size), then
 * the status text. Invariants: an accepted status has non-zero values and a
 * power-of-two mapped zone size in [zone size, 2 * zone size); a table
 * length is exactly nr_zones * po2 zone size in sectors, never wrapped.
 */
#include <errno.h>

#include "dmtext.h"
#include "fuzz.h"
#include "geometry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct znp_po2_status st;
	struct znp_geom g = { 0 };
	uint64_t len = 0, po2, lba_sectors;
	char *s;
	int ret;

	g.lba_size = 1u << (fuzz_take(&in, 1) % 16);	/* 1 .. 32 KiB: < 512 is invalid */
	g.zone_size = fuzz_take(&in, 8);
	g.nlbas = fuzz_take(&in, 8);
	if (znp_geom_init(&g) == 0) {
		ret = znp_dm_table_len(&g, &len);
		FUZZ_ASSERT(ret == 0 || ret == -EINVAL || ret == -EOVERFLOW);
		if (g.lba_size < 512)
			FUZZ_ASSERT(ret == -EINVAL);
		if (ret == 0) {
			po2 = znp_po2_zone_size(&g);
			lba_sectors = g.lba_size / 512;
			FUZZ_ASSERT(po2 && znp_is_po2(po2) && po2 >= g.zone_size);
			FUZZ_ASSERT(len / lba_sectors / po2 == g.nr_zones);
			FUZZ_ASSERT(len % (lba_sectors * po2) == 0);
		}
	}

	s = fuzz_strdup(in.p, in.n);
	ret = znp_dm_status_parse(s, &st);
	FUZZ_ASSERT(ret == 0 || ret == -EINVAL || ret == -ERANGE);
	if (ret == 0) {
		FUZZ_ASSERT(st.zone_sectors && st.po2_zone_sectors && st.nr_zones);
		FUZZ_ASSERT(znp_is_po2(st.po2_zone_sectors));
		FUZZ_ASSERT(st.po2_zone_sectors >= st.zone_sectors);
		FUZZ_ASSERT(st.po2_zone_sectors - st.zone_sectors < st.zone_sectors);
	}
	free(s);
	return 0;
}
