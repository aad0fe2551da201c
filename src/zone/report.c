// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Streamed zone reports. Each command transfers as many descriptors as
 * MDTS allows (never more than the zones left), so a full report takes
 * ceil(zones * 64 / MDTS) commands and memory does not grow with the zone
 * count. The first command clears the partial bit so that its header
 * counts every matching zone from the start LBA on (the report's size);
 * later ones set it so that the header counts the descriptors returned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "zone.h"

struct znp_report_iter {
	struct znp_dev *dev;
	struct znp_geom g;		/* dev->geom with zdes_bytes = 0: basic report */
	enum znp_state_filter filter;
	unsigned char *buf;
	uint32_t max_len;		/* buffer size */
	struct znp_zone *zones;		/* parsed chunk */
	size_t nz, pos;
	uint64_t next_slba;		/* where the next command starts */
	uint64_t nr_reported;		/* first header's count */
	uint64_t delivered;		/* descriptors parsed so far */
	uint64_t ncmds;
	uint64_t cap;			/* capacity of the first full-size zone */
	bool cap_seen, cap_varies;
	bool started, eof;
	bool keep_bad;			/* ZNP_REPORT_KEEP_BAD */
	bool raw;			/* ZNP_REPORT_RAW */
	uint64_t nr_bad;
};

static uint32_t report_max_len(const struct znp_geom *g)
{
	uint64_t cap = g->mdts_bytes ? g->mdts_bytes : ZNP_REPORT_MAX_BYTES;
	uint64_t want = ZNP_ZREPORT_HDR_SIZE + g->nr_zones * ZNP_ZDESC_SIZE;

	if (cap > ZNP_REPORT_HARD_MAX)
		cap = ZNP_REPORT_HARD_MAX;
	if (g->nr_zones > (UINT32_MAX / ZNP_ZDESC_SIZE) || want > cap)
		want = cap;
	/* whole descriptors only; NVMe needs a dword multiple */
	return (uint32_t)(ZNP_ZREPORT_HDR_SIZE + znp_descs_per_xfer(g, want) * ZNP_ZDESC_SIZE);
}

/* Descriptors to ask for next: the zones (or matches) left, within MDTS. */
static uint64_t chunk_descs(const struct znp_report_iter *it)
{
	uint64_t left = it->g.nr_zones - znp_zone_no(&it->g, it->next_slba);
	uint64_t fit = znp_descs_per_xfer(&it->g, it->max_len);

	if (it->started && it->filter != ZNP_RF_ALL && it->nr_reported - it->delivered < left)
		left = it->nr_reported - it->delivered;
	return left < fit ? left : fit;
}

static int check_order(const struct znp_report_iter *it)
{
	uint64_t expect = it->next_slba;
	size_t i;

	for (i = 0; i < it->nz; i++) {
		uint64_t s = it->zones[i].start;

		/* ALL: contiguous zones; filtered: ascending from next_slba */
		if (it->filter == ZNP_RF_ALL ? s != expect : s < expect)
			return -EPROTO;
		expect = znp_next_zone_start(&it->g, s);
	}
	return 0;
}

/* --raw: take the chunk as it came; stop where the drive's data gives no way on. */
static int raw_advance(struct znp_report_iter *it, uint64_t hdr, size_t n, uint64_t want)
{
	uint64_t last;

	if (!it->started) {
		it->nr_reported = hdr;
		it->started = true;
	}
	it->nz = n;
	it->delivered += n;
	if (!n) {
		it->eof = true;
		return 0;
	}
	last = it->zones[n - 1].start;
	/* a start behind the one asked for, or past the end: nothing further to ask */
	if (last < it->next_slba || last >= it->g.nlbas) {
		it->eof = true;
		return 0;
	}
	it->next_slba = znp_next_zone_start(&it->g, znp_zone_start(&it->g,
							   znp_zone_no(&it->g, last)));
	if (n < want || it->delivered >= it->nr_reported || it->next_slba >= it->g.nlbas)
		it->eof = true;
	return 0;
}

static int report_fetch(struct znp_report_iter *it)
{
	uint64_t want = chunk_descs(it), hdr;
	uint32_t len = (uint32_t)(ZNP_ZREPORT_HDR_SIZE + want * ZNP_ZDESC_SIZE);
	size_t n = 0;
	int ret;

	it->nz = it->pos = 0;
	if (!want) {
		it->eof = true;
		return 0;
	}
	memset(it->buf, 0, len);
	ret = it->dev->be->report(it->dev, it->next_slba, it->filter, it->started,
				  it->buf, len, &it->ncmds);
	if (ret)
		return ret;
	ret = (it->raw ? znp_zdesc_parse_raw : it->keep_bad ? znp_zdesc_parse_keep :
	       znp_zdesc_parse)(&it->g, it->buf, len, &hdr, it->zones, (size_t)want, &n);
	if (ret)
		return ret;
	if (it->raw)
		return raw_advance(it, hdr, n, want);
	if (!it->started) {
		/* the zone count must match what Identify said */
		if (it->filter == ZNP_RF_ALL &&
		    hdr != it->g.nr_zones - znp_zone_no(&it->g, it->next_slba))
			return -EPROTO;
		it->nr_reported = hdr;
		it->started = true;
	} else if (hdr > want) {
		return -EPROTO;		/* partial: at most what fits */
	}
	it->nz = n;
	/* ALL: we asked for no more than the zones left, so all must come */
	if (it->filter == ZNP_RF_ALL && n < want)
		return -EPROTO;
	ret = check_order(it);
	if (ret)
		return ret;

	it->delivered += n;
	for (size_t i = 0; i < n; i++) {
		const struct znp_zone *z = &it->zones[i];

		if (z->bad) {
			it->nr_bad++;
			continue;
		}
		/* a small last zone has a smaller capacity by nature */
		if (z->len != it->g.zone_size)
			continue;
		if (!it->cap_seen) {
			it->cap = z->cap;
			it->cap_seen = true;
		} else if (z->cap != it->cap) {
			it->cap_varies = true;
		}
	}
	if (n)
		it->next_slba = znp_next_zone_start(&it->g, it->zones[n - 1].start);
	if (n < want || it->delivered >= it->nr_reported || it->next_slba >= it->g.nlbas)
		it->eof = true;
	return 0;
}

/*
 * geom.zone_cap, on both probe paths: the capacity of zone 0, the first
 * full-size zone (zone_size <= nlbas: zone 0 is never the short one).
 */
static uint64_t first_cap(const struct znp_report_iter *it)
{
	/* a capacity beyond the zone (a kept bad descriptor) is no capacity */
	return it->zones[0].bad == ZNP_ZBAD_CAP ? it->zones[0].len : it->zones[0].cap;
}

int znp_report_begin(struct znp_dev *dev, uint64_t slba,
		     enum znp_state_filter filter, struct znp_report_iter **out)
{
	return znp_report_begin_flags(dev, slba, filter, 0, out);
}

int znp_report_begin_flags(struct znp_dev *dev, uint64_t slba, enum znp_state_filter filter,
			   unsigned int flags, struct znp_report_iter **out)
{
	struct znp_report_iter *it;
	int ret;

	if (!dev || !out || (unsigned int)filter > ZNP_RF_OFFLINE)
		return -EINVAL;
	*out = NULL;
	if (!dev->is_zoned || !dev->geom.zone_size)
		return -EMEDIUMTYPE;
	if (slba >= dev->geom.nlbas)
		return -EINVAL;

	/*
	 * Capacity deferred by ZNP_PROBE_DEFER_CAP: a report that starts at
	 * zone 0 without a filter learns it from its own first chunk (no extra
	 * command); any other report probes it first.
	 */
	if (!dev->geom.zone_cap &&
	    (filter != ZNP_RF_ALL || znp_zone_no(&dev->geom, slba) != 0)) {
		ret = znp_report_probe_cap(dev);
		if (ret)
			return ret;
	}

	it = calloc(1, sizeof(*it));
	if (!it)
		return -ENOMEM;
	it->dev = dev;
	it->g = dev->geom;
	it->g.zdes_bytes = 0;
	it->filter = filter;
	it->keep_bad = flags & ZNP_REPORT_KEEP_BAD;
	it->raw = flags & ZNP_REPORT_RAW;
	it->next_slba = znp_zone_start(&it->g, znp_zone_no(&it->g, slba));
	it->max_len = report_max_len(&it->g);
	if (it->max_len <= ZNP_ZREPORT_HDR_SIZE) {
		ret = -EINVAL;
		goto out_free;
	}
	it->buf = malloc(it->max_len);
	it->zones = calloc(znp_descs_per_xfer(&it->g, it->max_len), sizeof(*it->zones));
	if (!it->buf || !it->zones) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = report_fetch(it);
	if (ret)
		goto out_free;
	if (!dev->geom.zone_cap && it->nz) {
		/* deferred capacity probe: an unfiltered report from zone 0 */
		dev->geom.zone_cap = first_cap(it);
		dev->geom.zone_cap_varies = it->cap_varies;
	}
	*out = it;
	return 0;

out_free:
	znp_report_end(it);
	return ret;
}

bool znp_report_next(struct znp_report_iter *it, struct znp_zone *z, int *err)
{
	int ret;

	*err = 0;
	if (!it || !z) {
		*err = -EINVAL;
		return false;
	}
	if (it->pos == it->nz) {
		if (it->eof)
			return false;
		ret = report_fetch(it);
		if (ret) {
			*err = ret;
			return false;
		}
		if (!it->nz)
			return false;
	}
	*z = it->zones[it->pos++];
	return true;
}

uint64_t znp_report_nr_zones(const struct znp_report_iter *it)
{
	return it ? it->nr_reported : 0;
}

uint64_t znp_report_nr_bad(const struct znp_report_iter *it)
{
	return it ? it->nr_bad : 0;
}

uint64_t znp_report_cmds(const struct znp_report_iter *it)
{
	return it ? it->ncmds : 0;
}

bool znp_report_cap_varies(const struct znp_report_iter *it)
{
	return it && it->cap_varies;
}

void znp_report_end(struct znp_report_iter *it)
{
	if (!it)
		return;
	free(it->zones);
	free(it->buf);
	free(it);
}

int znp_report_probe_cap(struct znp_dev *dev)
{
	struct znp_geom *g = &dev->geom;
	struct znp_report_iter *it;
	int ret;

	ret = znp_report_begin(dev, 0, ZNP_RF_ALL, &it);
	if (ret)
		return ret;
	if (!it->nz) {
		ret = -EPROTO;
		goto out_end;
	}
	g->zone_cap = first_cap(it);
	g->zone_cap_varies = it->cap_varies;
out_end:
	znp_report_end(it);
	return ret;
}

int znp_dev_scan_caps(struct znp_dev *dev)
{
	struct znp_report_iter *it;
	struct znp_zone z;
	int ret;

	if (!dev || !dev->is_zoned)
		return 0;
	ret = znp_report_begin(dev, 0, ZNP_RF_ALL, &it);
	if (ret)
		return ret;
	while (znp_report_next(it, &z, &ret))
		;
	if (!ret) {
		dev->geom.zone_cap_varies = it->cap_varies ||
			(it->cap_seen && it->cap != dev->geom.zone_cap);
	}
	znp_report_end(it);
	return ret;
}

/* The probe: the backend's Identify, then the capacity (this room's reports). */
int znp_dev_probe(struct znp_dev *dev)
{
	return znp_dev_probe_flags(dev, 0);
}

int znp_dev_probe_flags(struct znp_dev *dev, unsigned int flags)
{
	int ret;

	if (!dev || !dev->be)
		return -EINVAL;
	memset(&dev->geom, 0, sizeof(dev->geom));
	dev->is_zoned = false;
	ret = dev->be->probe(dev);
	if (ret)
		return ret;
	if (flags & ZNP_PROBE_FULL_CAP)
		return znp_dev_scan_caps(dev);
	if (flags & ZNP_PROBE_DEFER_CAP)
		return 0;
	return znp_report_probe_cap(dev);
}

