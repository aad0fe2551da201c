// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Zone state of an emulated namespace and the ZNS zone state machine.
 *
 * Zones live in chunks of EMU_CHUNK; a chunk is only allocated once one of
 * its zones leaves its preset state, so a million untouched zones cost a
 * few kilobytes of per-chunk condition counters. The counters also answer
 * "how many zones from here on match this filter" without a full scan.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu-priv.h"

#define ZC_EMPTY	0x1
#define ZC_IOPEN	0x2
#define ZC_EOPEN	0x3
#define ZC_CLOSED	0x4
#define ZC_RO		0xd
#define ZC_FULL		0xe
#define ZC_OFFLINE	0xf

#define ZA_CLOSE	1
#define ZA_FINISH	2
#define ZA_OPEN		3
#define ZA_RESET	4
#define ZA_OFFLINE	5

uint64_t emu_zone_start(const struct emu_dev *d, uint64_t idx)
{
	return idx * d->zsze;
}

uint64_t emu_zone_len(const struct emu_dev *d, uint64_t idx)
{
	uint64_t start = emu_zone_start(d, idx);

	if (start >= d->nlbas)
		return d->zsze;		/* a zone that only the report invents */
	return d->nlbas - start < d->zsze ? d->nlbas - start : d->zsze;
}

uint64_t emu_zone_cap(const struct emu_dev *d, uint64_t idx)
{
	uint64_t len = emu_zone_len(d, idx);

	return d->zcap < len ? d->zcap : len;
}

static void preset_state(const struct emu_dev *d, uint64_t idx, uint8_t *cond, uint64_t *wp)
{
	uint64_t cap = emu_zone_cap(d, idx);

	*cond = ZC_EMPTY;
	*wp = 0;
	if (d->preset == EMU_PRESET_FULL ||
	    (d->preset == EMU_PRESET_MIXED && (idx % 5 == 1 || idx % 5 == 4))) {
		*cond = ZC_FULL;
		*wp = cap;
	} else if (d->preset == EMU_PRESET_MIXED && idx % 5 == 2 && cap >= 2) {
		*cond = ZC_CLOSED;
		*wp = cap / 2;
	}
}

static uint64_t chunk_zones(const struct emu_dev *d, uint64_t ci)
{
	uint64_t first = ci * EMU_CHUNK;

	return d->nzones - first < EMU_CHUNK ? d->nzones - first : EMU_CHUNK;
}

static void die_oom(void)
{
	fprintf(stderr, "znpemu: out of memory\n");
	_exit(125);
}

static struct emu_chunk *chunk_get(struct emu_dev *d, uint64_t ci)
{
	struct emu_chunk *ch = d->chunks[ci];
	uint64_t n, first = ci * EMU_CHUNK;

	if (ch)
		return ch;
	ch = malloc(sizeof(*ch));
	if (!ch)
		die_oom();
	n = chunk_zones(d, ci);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t wp;

		preset_state(d, first + i, &ch->cond[i], &wp);
		ch->wp_off[i] = (uint32_t)wp;
	}
	d->chunks[ci] = ch;
	return ch;
}

void emu_zone_get(struct emu_dev *node, uint64_t idx, uint8_t *cond, uint64_t *wp_off)
{
	struct emu_dev *d = node->owner;
	struct emu_chunk *ch = d->chunks[idx / EMU_CHUNK];

	if (!ch) {
		preset_state(d, idx, cond, wp_off);
		return;
	}
	*cond = ch->cond[idx % EMU_CHUNK];
	*wp_off = ch->wp_off[idx % EMU_CHUNK];
}

void emu_zone_set(struct emu_dev *node, uint64_t idx, uint8_t cond, uint64_t wp_off)
{
	struct emu_dev *d = node->owner;
	uint64_t ci = idx / EMU_CHUNK;
	struct emu_chunk *ch = chunk_get(d, ci);
	uint8_t old = ch->cond[idx % EMU_CHUNK];

	d->chunk_cnt[ci][old]--;
	d->cnt[old]--;
	d->chunk_cnt[ci][cond & 0xf]++;
	d->cnt[cond & 0xf]++;
	ch->cond[idx % EMU_CHUNK] = cond & 0xf;
	ch->wp_off[idx % EMU_CHUNK] = (uint32_t)wp_off;
	d->dirty = true;
}

uint64_t emu_zones_count(struct emu_dev *node, uint64_t from, uint64_t to, uint8_t cond)
{
	struct emu_dev *d = node->owner;
	uint64_t n = 0, wp;
	uint8_t c;

	if (to > d->nzones)
		to = d->nzones;
	if (from >= to)
		return 0;
	if (!cond)
		return to - from;
	while (from < to) {
		uint64_t ci = from / EMU_CHUNK;

		if (from % EMU_CHUNK == 0 && to - from >= chunk_zones(d, ci)) {
			n += d->chunk_cnt[ci][cond];
			from += chunk_zones(d, ci);
			continue;
		}
		emu_zone_get(d, from, &c, &wp);
		n += c == cond;
		from++;
	}
	return n;
}

uint64_t emu_zones_next(struct emu_dev *node, uint64_t from, uint64_t to, uint8_t cond)
{
	struct emu_dev *d = node->owner;
	uint64_t wp;
	uint8_t c;

	if (to > d->nzones)
		to = d->nzones;
	if (!cond)
		return from < to ? from : to;
	while (from < to) {
		uint64_t ci = from / EMU_CHUNK;

		if (from % EMU_CHUNK == 0 && !d->chunk_cnt[ci][cond]) {
			from += chunk_zones(d, ci);
			continue;
		}
		emu_zone_get(d, from, &c, &wp);
		if (c == cond)
			return from;
		from++;
	}
	return to;
}

static uint64_t default_wp(const struct emu_dev *d, uint64_t idx, uint8_t cond)
{
	switch (cond) {
	case ZC_FULL:
		return emu_zone_cap(d, idx);
	case ZC_IOPEN:
	case ZC_EOPEN:
	case ZC_CLOSED:
		return emu_zone_cap(d, idx) / 2;
	default:
		return 0;
	}
}

static void state_load(struct emu_dev *d, FILE *f)
{
	uint64_t nz, zsze, idx, wp;
	unsigned int cond;

	if (fscanf(f, "znpemu-state 1 %" SCNu64 " %" SCNu64, &nz, &zsze) != 2 ||
	    nz != d->nzones || zsze != d->zsze) {
		fprintf(stderr, "znpemu: %s: state file does not match the geometry\n",
			d->state_file);
		_exit(125);
	}
	while (fscanf(f, "%" SCNu64 " %x %" SCNu64, &idx, &cond, &wp) == 3)
		if (idx < d->nzones)
			emu_zone_set(d, idx, (uint8_t)cond, wp);
}

void emu_zones_load(struct emu_dev *node)
{
	struct emu_dev *d = node->owner;
	FILE *f = NULL;

	if (d->loaded || d->csi != 2 || d->kind == EMU_CTRL)
		return;
	d->nchunks = (d->nzones + EMU_CHUNK - 1) / EMU_CHUNK;
	d->chunks = calloc(d->nchunks, sizeof(*d->chunks));
	d->chunk_cnt = calloc(d->nchunks, sizeof(*d->chunk_cnt));
	if (!d->chunks || !d->chunk_cnt)
		die_oom();
	for (uint64_t ci = 0; ci < d->nchunks; ci++) {
		uint64_t n = chunk_zones(d, ci), first = ci * EMU_CHUNK, wp;
		uint8_t c;

		if (d->preset != EMU_PRESET_MIXED) {
			preset_state(d, first, &c, &wp);
			d->chunk_cnt[ci][c] = (uint32_t)n;
			d->cnt[c] += n;
			continue;
		}
		for (uint64_t i = 0; i < n; i++) {
			preset_state(d, first + i, &c, &wp);
			d->chunk_cnt[ci][c]++;
			d->cnt[c]++;
		}
	}
	d->loaded = true;
	if (d->state_file[0])
		f = fopen(d->state_file, "re");
	if (f) {
		state_load(d, f);
		fclose(f);
	} else {
		for (int i = 0; i < d->nzoneset; i++) {
			const struct emu_zoneset *z = &d->zoneset[i];

			emu_zone_set(d, z->idx, z->cond, z->wp_off == UINT64_MAX ?
				     default_wp(d, z->idx, z->cond) : z->wp_off);
		}
	}
	d->dirty = false;
}

void emu_zones_save(struct emu_dev *d)
{
	char tmp[PATH_MAX + 16];
	FILE *f;

	if (d->owner != d || !d->loaded || !d->dirty || !d->state_file[0])
		return;
	snprintf(tmp, sizeof(tmp), "%s.%d", d->state_file, (int)getpid());
	f = fopen(tmp, "we");
	if (!f)
		return;
	fprintf(f, "znpemu-state 1 %" PRIu64 " %" PRIu64 "\n", d->nzones, d->zsze);
	for (uint64_t ci = 0; ci < d->nchunks; ci++) {
		if (!d->chunks[ci])
			continue;
		for (uint64_t i = 0; i < chunk_zones(d, ci); i++) {
			uint64_t idx = ci * EMU_CHUNK + i, wp;
			uint8_t c;

			preset_state(d, idx, &c, &wp);
			if (c == d->chunks[ci]->cond[i] && wp == d->chunks[ci]->wp_off[i])
				continue;
			fprintf(f, "%" PRIu64 " %x %u\n", idx, d->chunks[ci]->cond[i],
				d->chunks[ci]->wp_off[i]);
		}
	}
	if (fclose(f) == 0)
		rename(tmp, d->state_file);
	else
		unlink(tmp);
}

/*
 * Find an open resource (and an active one for an empty zone). When the
 * open limit is reached the controller may implicitly close an implicitly
 * opened zone (ZNS 1.1, 2.1.1.4); explicitly opened zones are never closed.
 */
static uint16_t res_open(struct emu_dev *d, bool need_active)
{
	uint64_t nopen = d->cnt[ZC_IOPEN] + d->cnt[ZC_EOPEN];
	uint64_t nactive = nopen + d->cnt[ZC_CLOSED];

	if (need_active && d->max_active && nactive >= d->max_active)
		return EMU_SC_ZONE_TOO_MANY_ACTIVE;
	if (d->max_open && nopen >= d->max_open) {
		uint64_t victim, wp;
		uint8_t c;

		if (!d->cnt[ZC_IOPEN])
			return EMU_SC_ZONE_TOO_MANY_OPEN;
		victim = emu_zones_next(d, 0, d->nzones, ZC_IOPEN);
		emu_zone_get(d, victim, &c, &wp);
		emu_zone_set(d, victim, ZC_CLOSED, wp);
	}
	return 0;
}

uint16_t emu_zone_action(struct emu_dev *node, uint64_t idx, int action)
{
	struct emu_dev *d = node->owner;
	uint64_t wp;
	uint16_t st;
	uint8_t c;

	emu_zone_get(d, idx, &c, &wp);
	switch (action) {
	case ZA_OPEN:
		if (c == ZC_EOPEN)
			return 0;
		if (c != ZC_EMPTY && c != ZC_IOPEN && c != ZC_CLOSED)
			return EMU_SC_ZONE_INVAL_TRANSITION;
		if (c != ZC_IOPEN) {
			st = res_open(d, c == ZC_EMPTY);
			if (st)
				return st;
		}
		emu_zone_set(d, idx, ZC_EOPEN, wp);
		return 0;
	case ZA_CLOSE:
		if (c == ZC_CLOSED)
			return 0;
		if (c != ZC_IOPEN && c != ZC_EOPEN)
			return EMU_SC_ZONE_INVAL_TRANSITION;
		emu_zone_set(d, idx, ZC_CLOSED, wp);
		return 0;
	case ZA_FINISH:
		if (c == ZC_FULL)
			return 0;
		if (c != ZC_EMPTY && c != ZC_IOPEN && c != ZC_EOPEN && c != ZC_CLOSED)
			return EMU_SC_ZONE_INVAL_TRANSITION;
		emu_zone_set(d, idx, ZC_FULL, emu_zone_cap(d, idx));
		return 0;
	case ZA_RESET:
		if (c == ZC_EMPTY)
			return 0;
		if (c != ZC_IOPEN && c != ZC_EOPEN && c != ZC_CLOSED && c != ZC_FULL)
			return EMU_SC_ZONE_INVAL_TRANSITION;
		emu_zone_set(d, idx, ZC_EMPTY, 0);
		return 0;
	case ZA_OFFLINE:
		if (c == ZC_OFFLINE)
			return 0;
		if (c != ZC_RO)
			return EMU_SC_ZONE_INVAL_TRANSITION;
		emu_zone_set(d, idx, ZC_OFFLINE, 0);
		return 0;
	default:
		return EMU_SC_INVALID_FIELD;
	}
}

/* Select All: which conditions each action applies to (ZNS 1.1, 3.4.1). */
uint16_t emu_zone_action_all(struct emu_dev *node, int action)
{
	struct emu_dev *d = node->owner;
	static const uint8_t masks[6][5] = {
		[ZA_CLOSE] = { ZC_IOPEN, ZC_EOPEN },
		[ZA_FINISH] = { ZC_IOPEN, ZC_EOPEN, ZC_CLOSED },
		[ZA_OPEN] = { ZC_CLOSED },
		[ZA_RESET] = { ZC_IOPEN, ZC_EOPEN, ZC_CLOSED, ZC_FULL },
		[ZA_OFFLINE] = { ZC_RO },
	};

	if (action < ZA_CLOSE || action > ZA_OFFLINE)
		return EMU_SC_INVALID_FIELD;
	if (action == ZA_OPEN && d->max_open &&
	    d->cnt[ZC_IOPEN] + d->cnt[ZC_EOPEN] + d->cnt[ZC_CLOSED] > d->max_open)
		return EMU_SC_ZONE_TOO_MANY_OPEN;
	for (int i = 0; i < 5 && masks[action][i]; i++) {
		uint8_t c = masks[action][i];
		uint64_t idx = emu_zones_next(d, 0, d->nzones, c);

		while (idx < d->nzones) {
			uint16_t st = emu_zone_action(d, idx, action);

			if (st)
				return st;
			idx = emu_zones_next(d, idx + 1, d->nzones, c);
		}
	}
	return 0;
}

uint16_t emu_zone_write(struct emu_dev *node, uint64_t slba, uint64_t nlb, bool append,
			uint64_t *out_lba)
{
	struct emu_dev *d = node->owner;
	uint64_t idx, start, cap, wp, nwp;
	uint16_t st;
	uint8_t c;

	if (slba >= d->nlbas || nlb > d->nlbas - slba)
		return EMU_SC_LBA_RANGE;
	idx = slba / d->zsze;
	start = emu_zone_start(d, idx);
	cap = emu_zone_cap(d, idx);
	if (append && slba != start)
		return EMU_SC_INVALID_FIELD;
	emu_zone_get(d, idx, &c, &wp);
	switch (c) {
	case ZC_FULL:
		return EMU_SC_ZONE_FULL;
	case ZC_RO:
		return EMU_SC_ZONE_READ_ONLY;
	case ZC_OFFLINE:
		return EMU_SC_ZONE_OFFLINE;
	}
	if (!append && slba != start + wp)
		return EMU_SC_ZONE_INVALID_WRITE;
	if (wp + nlb > cap)
		return EMU_SC_ZONE_BOUNDARY;
	if (c == ZC_EMPTY || c == ZC_CLOSED) {
		st = res_open(d, c == ZC_EMPTY);
		if (st)
			return st;
	}
	nwp = wp + nlb;
	emu_zone_set(d, idx, nwp == cap ? ZC_FULL : c == ZC_EOPEN ? ZC_EOPEN : ZC_IOPEN, nwp);
	*out_lba = start + wp;
	return 0;
}
