// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Command accounting of the emulator: per-node counters and fault
 * selection, the ring of recent commands and the trace file, the stats
 * file written at exit ($ZNP_EMU_STATS: "NODE CLASS OPCODE COUNT PROGRAM"
 * lines appended by every process that used an emulated node), and the
 * control interface of znpemu.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu-priv.h"

#define EXPORT __attribute__((visibility("default")))
#define RING 256

int emu_trace_fd = -1;
static struct znpemu_cmd ring[RING];
static uint64_t nrec;

static void init(void)
{
	emu_init_once();
}

static bool same_dev(const struct emu_dev *d, const char *name)
{
	return !name || !strcmp(d->base, name) || !strcmp(d->path, name);
}

struct emu_dev *emu_dev_by_nsid(const struct emu_dev *d, uint32_t nsid)
{
	if ((d->kind == EMU_NG || d->kind == EMU_NVME_BLK) && d->nsid == nsid)
		return (struct emu_dev *)d;
	for (int i = 0; i < emu.ndevs; i++) {
		struct emu_dev *e = &emu.devs[i];

		if ((e->kind == EMU_NG || e->kind == EMU_NVME_BLK) &&
		    !strcmp(e->ctrl, d->ctrl) && e->nsid == nsid)
			return e;
	}
	return NULL;
}

const struct emu_fault *emu_cmd_begin(struct emu_dev *d, int cls, int opc)
{
	d->touched = true;
	d->seq++;
	d->cls_seq[cls]++;
	d->counts[cls][opc & 0xff]++;
	for (int i = 0; i < d->nfaults; i++) {
		const struct emu_fault *f = &d->faults[i];
		uint64_t n;

		if ((f->cls >= 0 && f->cls != cls) || (f->opc >= 0 && f->opc != opc))
			continue;
		n = f->cls < 0 ? d->seq : f->opc < 0 ? d->cls_seq[cls] : d->counts[cls][opc & 0xff];
		if (!f->nth || f->nth == n)
			return f;
	}
	return NULL;
}

static const char *cls_name(int cls)
{
	return cls == ZNPEMU_CLS_ADMIN ? "admin" : cls == ZNPEMU_CLS_IO ? "io" : "blk";
}

void emu_cmd_record(struct emu_dev *d, const struct znpemu_cmd *c)
{
	d->touched = true;
	ring[nrec++ % RING] = *c;
	if (emu_trace_fd >= 0) {
		char line[512];
		int n = snprintf(line, sizeof(line),
			"%s %s opc=0x%02x nsid=%u cdw10=0x%08x cdw11=0x%08x cdw12=0x%08x "
			"cdw13=0x%08x cdw14=0x%08x cdw15=0x%08x data_len=%u sector=%" PRIu64
			" nr=%" PRIu64 " status=%d\n", d->base, cls_name(c->cls), c->opcode,
			c->nsid, c->cdw10, c->cdw11, c->cdw12, c->cdw13, c->cdw14, c->cdw15,
			c->data_len, c->blk_sector, c->blk_nr, c->status);

		if (write(emu_trace_fd, line, (size_t)n) < 0)
			emu_trace_fd = -1;
	}
}

static void __attribute__((destructor)) emu_fini(void)
{
	const char *stats = getenv("ZNP_EMU_STATS");
	FILE *f = NULL;

	if (!emu.parsed)
		return;
	for (int i = 0; i < emu.ndevs; i++) {
		struct emu_dev *d = &emu.devs[i];

		emu_zones_save(d);
		if (!d->touched || !stats || !*stats)
			continue;
		if (!f)
			f = fopen(stats, "ae");
		if (!f)
			return;
		for (int cls = 0; cls < ZNPEMU_NCLS; cls++)
			for (int op = 0; op < 256; op++)
				if (d->counts[cls][op])
					fprintf(f, "%s %s 0x%02x %" PRIu64 " %s\n", d->base,
						cls_name(cls), op, d->counts[cls][op],
						program_invocation_short_name);
	}
	if (f)
		fclose(f);
}

/* ---- control interface (znpemu.h) ---- */

EXPORT uint64_t znpemu_count(const char *dev, int cls, int opc)
{
	uint64_t n = 0;

	init();
	for (int i = 0; i < emu.ndevs; i++) {
		struct emu_dev *d = &emu.devs[i];

		if (!same_dev(d, dev) || cls < 0 || cls >= ZNPEMU_NCLS)
			continue;
		if (opc < 0)
			n += d->cls_seq[cls];
		else
			n += d->counts[cls][opc & 0xff];
	}
	return n;
}

EXPORT void znpemu_reset_counts(void)
{
	init();
	emu_lock();
	for (int i = 0; i < emu.ndevs; i++) {
		struct emu_dev *d = &emu.devs[i];

		d->seq = 0;
		memset(d->cls_seq, 0, sizeof(d->cls_seq));
		memset(d->counts, 0, sizeof(d->counts));
	}
	nrec = 0;
	emu_unlock();
}

EXPORT uint64_t znpemu_nr_recorded(void)
{
	return nrec;
}

EXPORT bool znpemu_last_cmd(unsigned int back, struct znpemu_cmd *out)
{
	if (back >= RING || back >= nrec)
		return false;
	*out = ring[(nrec - 1 - back) % RING];
	return true;
}

static struct emu_dev *find_zoned(const char *dev)
{
	init();
	for (int i = 0; i < emu.ndevs; i++) {
		struct emu_dev *d = &emu.devs[i];

		if (dev && same_dev(d, dev) && d->csi == 2 && d->kind != EMU_CTRL) {
			emu_zones_load(d);
			return d;
		}
	}
	return NULL;
}

EXPORT bool znpemu_zone(const char *dev, uint64_t zone, uint8_t *cond, uint64_t *wp)
{
	struct emu_dev *d = find_zoned(dev);
	uint64_t off;

	if (!d || zone >= d->nzones)
		return false;
	emu_zone_get(d, zone, cond, &off);
	*wp = emu_zone_start(d, zone) + off;
	return true;
}

EXPORT bool znpemu_set_zone(const char *dev, uint64_t zone, uint8_t cond, uint64_t wp_off)
{
	struct emu_dev *d = find_zoned(dev);

	if (!d || zone >= d->nzones)
		return false;
	emu_zone_set(d, zone, cond, wp_off);
	return true;
}

EXPORT uint64_t znpemu_nr_zones(const char *dev, uint8_t cond)
{
	struct emu_dev *d = find_zoned(dev);

	if (!d)
		return 0;
	return cond ? d->owner->cnt[cond & 0xf] : d->nzones;
}
