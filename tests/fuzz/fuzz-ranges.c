// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: discard range lists: znp_range_list_read() on the text of
 * a range file, then znp_discard_validate() and znp_discard_plan() against
 * a target (block / NVMe conventional / zoned) whose geometry comes from the
 * input.
 *
 * Invariants: anything validation accepts is planned into commands that
 * stay inside the device, cover exactly the validated bytes, respect the DSM
 * range limit, and (zoned) cover whole zones only; a rejection names the
 * bad range and a reason.
 */
#include <errno.h>

#include "async.h"
#include "discard.h"
#include "fuzz.h"
#include "geometry.h"
#include "opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct znp_discard_target t = { .fd = -1 };
	struct znp_range_list l = { 0 };
	struct znp_dev dev = { .fd = -1 };
	struct znp_aio_job job;
	const char *why = NULL;
	size_t line = 0, bad = SIZE_MAX;
	uint64_t total = 0, planned = 0;
	FILE *f;
	int ret;

	t.type = (enum znp_discard_type)(fuzz_take(&in, 1) % 3);
	t.lba_size = 512u << (fuzz_take(&in, 1) % 4);
	t.granularity = (uint64_t)t.lba_size << (fuzz_take(&in, 1) % 4);
	t.size = fuzz_take(&in, 6) * t.lba_size;
	if (t.type != ZNP_DT_BLOCK) {
		dev.geom.lba_size = t.lba_size;
		dev.geom.nlbas = t.size / t.lba_size;
		dev.geom.zone_size = fuzz_take(&in, 3);
		if (t.type == ZNP_DT_ZONED && znp_geom_init(&dev.geom))
			return 0;	/* the core never opens such a device */
		dev.ns.nsid = 1;
		t.dev = &dev;
		t.granularity = t.lba_size;
	}
	if (!in.n)
		return 0;
	f = fmemopen((void *)in.p, in.n, "r");
	if (!f)
		return 0;
	ret = znp_range_list_read(f, znp_parse_u64, &l, &line, &why);
	fclose(f);
	FUZZ_ASSERT(ret == 0 || ret == -EINVAL || ret == -ERANGE || ret == -ENOMEM);
	if (ret) {
		FUZZ_ASSERT(line >= 1 && why && *why);
		goto out;
	}
	why = NULL;
	ret = znp_discard_validate(&t, l.r, l.nr, &bad, &why);
	FUZZ_ASSERT(ret == 0 || ret == -EINVAL || ret == -ENOMEM);
	if (ret == -EINVAL) {
		FUZZ_ASSERT(bad < l.nr && why && *why);
		goto out;
	}
	if (ret)
		goto out;
	for (size_t i = 0; i < l.nr; i++) {
		FUZZ_ASSERT(l.r[i].len && l.r[i].start < t.size);
		FUZZ_ASSERT(l.r[i].len <= t.size - l.r[i].start);
		total += l.r[i].len;	/* no overlap, so <= t.size */
		FUZZ_ASSERT(total <= t.size);
	}
	ret = znp_discard_plan(&t, l.r, l.nr, &job);
	FUZZ_ASSERT(ret == 0 || ret == -ENOMEM);
	if (ret)
		goto out;
	for (size_t i = 0; i < job.nr; i++) {
		const struct znp_aio_range *r = &job.ranges[i];

		FUZZ_ASSERT(r->len > 0);
		if (t.type == ZNP_DT_BLOCK) {
			FUZZ_ASSERT(r->start < t.size && r->len <= t.size - r->start);
			planned += r->len;
			continue;
		}
		FUZZ_ASSERT(r->start < dev.geom.nlbas && r->len <= dev.geom.nlbas - r->start);
		planned += r->len * t.lba_size;
		if (t.type == ZNP_DT_NVME_CONV) {
			FUZZ_ASSERT(r->len <= ZNP_NVME_DSM_MAX_NLB);
		} else {
			uint64_t last = r->start + r->len - 1;
			uint64_t zl = znp_zone_no(&dev.geom, last);

			FUZZ_ASSERT(znp_is_zone_start(&dev.geom, r->start));
			FUZZ_ASSERT(last + 1 == znp_zone_start(&dev.geom, zl) +
						 znp_zone_len(&dev.geom, zl));
		}
	}
	FUZZ_ASSERT(planned == total);
	znp_discard_plan_free(&job);
out:
	znp_range_list_free(&l);
	return 0;
}
