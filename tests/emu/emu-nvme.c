// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NVMe passthrough ioctls of an emulated namespace / controller: what the
 * kernel's nvme driver checks (nsid of I/O commands on a namespace node,
 * transfer size against max_hw_sectors) and what a ZNS controller answers.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/nvme_ioctl.h>
#include <nvme/types.h>

#include "emu-priv.h"

struct emu_req {
	struct emu_dev *d;
	struct znpemu_cmd *c;
	void *buf;		/* data buffer (cmd addr) */
	uint32_t len;		/* data_len */
	uint64_t result;
	const struct emu_fault *fault;
};

static unsigned int ilog2_u32(uint32_t v)
{
	unsigned int r = 0;

	while (v >>= 1)
		r++;
	return r;
}

static void put_str(char *dst, size_t n, const char *src)
{
	size_t l = strlen(src);

	memset(dst, ' ', n);
	memcpy(dst, src, l < n ? l : n);
}

/* The namespace's identity: a twin node (twin=) answers with its owner's. */
static void id_ns_nguid(const struct emu_dev *d, uint8_t *nguid, uint8_t *eui)
{
	unsigned int i = (unsigned int)((d->owner ? d->owner : d) - emu.devs);

	memset(nguid, 0, 16);
	nguid[0] = 0x5a;
	nguid[14] = (uint8_t)(i >> 8);
	nguid[15] = (uint8_t)i;
	memset(eui, 0, 8);
	eui[0] = 0x5a;
	eui[7] = (uint8_t)(i + 1);
}

static uint16_t id_ctrl(struct emu_req *r, void *out)
{
	struct nvme_id_ctrl *id = out;
	struct emu_dev *d = r->d, *ns = NULL;
	uint32_t nn = 0;

	for (int i = 0; i < emu.ndevs; i++) {
		struct emu_dev *e = &emu.devs[i];

		if (e->kind == EMU_CTRL || e->kind == EMU_BLK || strcmp(e->ctrl, d->ctrl))
			continue;
		if (e->nsid > nn)
			nn = e->nsid;
		if (!ns)
			ns = e;
	}
	if (!ns)
		ns = d;
	id->vid = htole16(0x1b36);
	id->ssvid = htole16(0x1af4);
	put_str(id->sn, sizeof(id->sn), ns->sn);
	put_str(id->mn, sizeof(id->mn), ns->mn);
	put_str(id->fr, sizeof(id->fr), ns->fr);
	id->mdts = ns->mdts_bytes ? (uint8_t)ilog2_u32(ns->mdts_bytes / 4096) : 0;
	id->cntlid = htole16((uint16_t)(d - emu.devs));
	id->ver = htole32(0x00020000);
	id->sqes = 0x66;
	id->cqes = 0x44;
	id->nn = htole32(nn);
	id->oncs = htole16(1 << 2);
	snprintf(id->subnqn, sizeof(id->subnqn), "nqn.2019-08.org.qemu:%s", ns->sn);
	return 0;
}

static uint16_t id_ns(struct emu_dev *ns, void *out)
{
	struct nvme_id_ns *id = out;

	id->nsze = id->ncap = id->nuse = htole64(ns->nlbas);
	id->nlbaf = 0;
	id->flbas = ns->mset ? 1 << 4 : 0;
	id->lbaf[0].ds = (uint8_t)ilog2_u32(ns->lba_size);
	id->lbaf[0].ms = htole16(ns->ms);
	id->dps = ns->pi;
	id_ns_nguid(ns, id->nguid, id->eui64);
	return 0;
}

static uint16_t id_zns_ns(struct emu_dev *ns, void *out)
{
	struct nvme_zns_id_ns *id = out;

	if (ns->csi != 2)
		return EMU_SC_INVALID_FIELD;
	id->mar = htole32(ns->max_active ? ns->max_active - 1 : 0xffffffff);
	id->mor = htole32(ns->max_open ? ns->max_open - 1 : 0xffffffff);
	id->lbafe[0].zsze = htole64(ns->zsze);
	id->lbafe[0].zdes = (uint8_t)(ns->zdes / 64);
	return 0;
}

static uint16_t id_ns_descs(struct emu_dev *ns, uint8_t *out)
{
	uint8_t nguid[16], eui[8];

	id_ns_nguid(ns, nguid, eui);
	out[0] = 1;		/* EUI64 */
	out[1] = 8;
	memcpy(out + 4, eui, 8);
	out += 12;
	out[0] = 2;		/* NGUID */
	out[1] = 16;
	memcpy(out + 4, nguid, 16);
	out += 20;
	out[0] = 4;		/* CSI */
	out[1] = 1;
	out[4] = ns->csi;
	return 0;
}

static void ns_list(struct emu_dev *d, uint32_t after, int csi, uint32_t *out)
{
	int n = 0;

	/* config order is not NSID order: pick ascending NSIDs */
	for (;;) {
		uint32_t best = 0;

		for (int i = 0; i < emu.ndevs; i++) {
			struct emu_dev *e = &emu.devs[i];

			if (e->kind == EMU_CTRL || e->kind == EMU_BLK || strcmp(e->ctrl, d->ctrl))
				continue;
			if (csi >= 0 && e->csi != csi)
				continue;
			if (e->nsid > after && (!best || e->nsid < best))
				best = e->nsid;
		}
		if (!best || n == 1024)
			return;
		out[n++] = htole32(best);
		after = best;
	}
}

static uint16_t admin_identify(struct emu_req *r)
{
	uint8_t out[4096] = { 0 };
	uint8_t cns = r->c->cdw10 & 0xff;
	int csi = (int)(r->c->cdw11 >> 24);
	struct emu_dev *ns = NULL;
	uint16_t st = 0;

	if (cns == 0 || cns == 3 || cns == 5) {
		ns = emu_dev_by_nsid(r->d, r->c->nsid);
		if (!ns && (!r->c->nsid || r->c->nsid == 0xffffffff))
			return EMU_SC_INVALID_NS;
		if (!ns) {
			/* an inactive NSID: zero-filled data */
			memcpy(r->buf, out, r->len < sizeof(out) ? r->len : sizeof(out));
			return 0;
		}
	}
	switch (cns) {
	case 0x00:
		st = id_ns(ns, out);
		break;
	case 0x01:
		st = id_ctrl(r, out);
		break;
	case 0x02:
		ns_list(r->d, r->c->nsid, -1, (uint32_t *)out);
		break;
	case 0x03:
		st = id_ns_descs(ns, out);
		break;
	case 0x05:
		st = csi == 2 ? id_zns_ns(ns, out) : csi == 0 ? 0 : EMU_SC_INVALID_FIELD;
		break;
	case 0x06:
		if (csi == 2)
			out[0] = r->d->zasl_bytes ? (uint8_t)ilog2_u32(r->d->zasl_bytes / 4096) : 0;
		else if (csi != 0)
			st = EMU_SC_INVALID_FIELD;
		break;
	case 0x07:
		ns_list(r->d, r->c->nsid, csi, (uint32_t *)out);
		break;
	default:
		st = EMU_SC_INVALID_FIELD;
	}
	if (!st && r->buf)
		memcpy(r->buf, out, r->len < sizeof(out) ? r->len : sizeof(out));
	return st;
}

static uint16_t admin_cmd(struct emu_req *r)
{
	switch (r->c->opcode) {
	case 0x06:
		return admin_identify(r);
	default:
		return EMU_SC_INVALID_OPCODE;
	}
}

/* Copy @n bytes to the data buffer at @off, but not past @limit. */
static void put(struct emu_req *r, uint64_t off, const void *src, uint64_t n, uint64_t limit)
{
	if (off >= limit)
		return;
	if (n > limit - off)
		n = limit - off;
	memcpy((uint8_t *)r->buf + off, src, n);
}

static const uint8_t filter_cond[8] = { 0, 0x1, 0x2, 0x3, 0x4, 0xe, 0xd, 0xf };

/* Zones the report pretends to have; past nzones they are empty. */
static uint64_t rep_count(struct emu_dev *d, uint64_t from, uint64_t nz, uint8_t cond)
{
	uint64_t n = emu_zones_count(d, from, nz < d->nzones ? nz : d->nzones, cond);

	if (nz > d->nzones && (!cond || cond == 0x1))
		n += nz - (from > d->nzones ? from : d->nzones);
	return n;
}

static uint64_t rep_next(struct emu_dev *d, uint64_t from, uint64_t nz, uint8_t cond)
{
	uint64_t real_end = nz < d->nzones ? nz : d->nzones;
	uint64_t z;

	if (from < real_end) {
		z = emu_zones_next(d, from, real_end, cond);
		if (z < real_end)
			return z;
	}
	if (nz > d->nzones && (!cond || cond == 0x1))
		return from > d->nzones ? from : d->nzones;
	return nz;
}

static void rep_desc(struct emu_dev *d, uint64_t idx, struct nvme_zns_desc *z)
{
	uint64_t start = emu_zone_start(d, idx), wp = 0, cap = emu_zone_cap(d, idx);
	uint8_t cond = 0x1;

	if (idx < d->nzones)
		emu_zone_get(d, idx, &cond, &wp);
	memset(z, 0, sizeof(*z));
	z->zt = 0x2;
	z->zs = (uint8_t)(cond << 4);
	z->zcap = htole64(cap);
	z->zslba = htole64(start);
	/* like QEMU: no valid write pointer for full, read-only, offline */
	z->wp = htole64(cond == 0xe || cond == 0xd || cond == 0xf ? ~0ULL : start + wp);
	if ((int64_t)idx == d->bad_wp)
		z->wp = htole64(start + cap + 1);
	if ((int64_t)idx == d->bad_start)
		z->zslba = htole64(start + 1);
	if ((int64_t)idx == d->bad_cap)
		z->zcap = htole64(d->zsze + 1);
	if ((int64_t)idx == d->bad_cond)
		z->zs = 0x5 << 4;
	if ((int64_t)idx == d->small_cap && cap > 1 && (cond == 0x1 || wp < cap - 1))
		z->zcap = htole64(cap - 1);
}

static uint16_t zone_recv(struct emu_req *r)
{
	struct emu_dev *d = r->d;
	const struct znpemu_cmd *c = r->c;
	uint64_t slba = c->cdw10 | (uint64_t)c->cdw11 << 32;
	uint8_t zra = c->cdw13 & 0xff, zrasf = (c->cdw13 >> 8) & 0xff;
	bool partial = (c->cdw13 >> 16) & 1;
	uint64_t bytes = ((uint64_t)c->cdw12 + 1) * 4, limit, entry, max, nz, idx, n = 0;
	struct nvme_zone_report hdr;
	uint8_t cond, zero[64] = { 0 };

	if (zra > 1 || (zra == 1 && !d->zdes) || zrasf > 7)
		return EMU_SC_INVALID_FIELD;
	if (slba >= d->nlbas)
		return EMU_SC_LBA_RANGE;
	if (bytes > r->len)
		bytes = r->len;
	if (bytes < sizeof(hdr))
		return EMU_SC_INVALID_FIELD;
	limit = bytes;
	if (r->fault && r->fault->kind == EMU_FAULT_SHORT && r->fault->value < limit)
		limit = r->fault->value;
	memset(r->buf, 0, limit);
	entry = 64 + (zra ? d->zdes : 0);
	max = (bytes - sizeof(hdr)) / entry;
	nz = (uint64_t)((int64_t)d->nzones + d->zones_delta);
	cond = filter_cond[zrasf];
	idx = rep_next(d, slba / d->zsze, nz, cond);
	while (n < max && idx < nz) {
		struct nvme_zns_desc z;
		uint64_t off = sizeof(hdr) + n * entry;

		rep_desc(d, idx, &z);
		put(r, off, &z, sizeof(z), limit);
		for (uint64_t e = 64; e < entry; e += 64)
			put(r, off + e, zero, 64, limit);
		n++;
		idx = rep_next(d, idx + 1, nz, cond);
	}
	memset(&hdr, 0, sizeof(hdr));
	hdr.nr_zones = htole64(partial ? n : rep_count(d, slba / d->zsze, nz, cond));
	put(r, 0, &hdr, sizeof(hdr), limit);
	return 0;
}

static uint16_t zone_send(struct emu_req *r)
{
	struct emu_dev *d = r->d;
	uint64_t slba = r->c->cdw10 | (uint64_t)r->c->cdw11 << 32;
	int zsa = r->c->cdw13 & 0xff;
	bool all = (r->c->cdw13 >> 8) & 1;

	if (all)
		return emu_zone_action_all(d, zsa);
	if (slba >= d->nlbas)
		return EMU_SC_LBA_RANGE;
	if (slba != emu_zone_start(d, slba / d->zsze))
		return EMU_SC_INVALID_FIELD;
	return emu_zone_action(d, slba / d->zsze, zsa);
}

static uint16_t io_rw(struct emu_req *r)
{
	struct emu_dev *d = r->d;
	const struct znpemu_cmd *c = r->c;
	uint64_t slba = c->cdw10 | (uint64_t)c->cdw11 << 32;
	uint64_t nlb = (c->cdw12 & 0xffff) + 1, lba;
	bool has_data = c->opcode != 0x08;
	uint32_t zasl = d->zasl_bytes ? d->zasl_bytes : d->mdts_bytes;
	uint16_t st;

	if (slba >= d->nlbas || nlb > d->nlbas - slba)
		return EMU_SC_LBA_RANGE;
	if (has_data && r->len < nlb * d->lba_size)
		return EMU_SC_INVALID_FIELD;	/* the device would DMA past the buffer */
	if (c->opcode == 0x02) {
		memset(r->buf, 0, nlb * d->lba_size);
		return 0;
	}
	if (d->csi != 2)
		return 0;
	if (c->opcode == 0x7d && zasl && nlb * d->lba_size > zasl)
		return EMU_SC_INVALID_FIELD;
	st = emu_zone_write(d, slba, nlb, c->opcode == 0x7d, &lba);
	if (!st)
		r->result = lba;
	return st;
}

static uint16_t io_cmd(struct emu_req *r)
{
	bool zns = r->d->csi == 2;

	switch (r->c->opcode) {
	case 0x00:	/* flush */
	case 0x09:	/* dataset management: accepted, no effect */
		return 0;
	case 0x01:
	case 0x02:
	case 0x08:
		return io_rw(r);
	case 0x7d:
		return zns ? io_rw(r) : EMU_SC_INVALID_OPCODE;
	case 0x79:
		return zns ? zone_send(r) : EMU_SC_INVALID_OPCODE;
	case 0x7a:
		return zns ? zone_recv(r) : EMU_SC_INVALID_OPCODE;
	default:
		return EMU_SC_INVALID_OPCODE;
	}
}

static int passthru(struct emu_dev *d, void *arg, bool admin, bool is64)
{
	struct nvme_passthru_cmd64 *p64 = arg;
	struct nvme_passthru_cmd *p32 = arg;
	struct znpemu_cmd c = { 0 };
	struct emu_req r = { .d = d, .c = &c };
	uint16_t st;

	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	/* both layouts agree up to timeout_ms */
	snprintf(c.dev, sizeof(c.dev), "%s", d->base);
	c.cls = admin ? ZNPEMU_CLS_ADMIN : ZNPEMU_CLS_IO;
	c.is64 = is64;
	c.opcode = p32->opcode;
	c.flags = p32->flags;
	c.nsid = p32->nsid;
	c.cdw2 = p32->cdw2;
	c.cdw3 = p32->cdw3;
	c.cdw10 = p32->cdw10;
	c.cdw11 = p32->cdw11;
	c.cdw12 = p32->cdw12;
	c.cdw13 = p32->cdw13;
	c.cdw14 = p32->cdw14;
	c.cdw15 = p32->cdw15;
	c.data_len = p32->data_len;
	c.metadata_len = p32->metadata_len;
	c.timeout_ms = p32->timeout_ms;
	r.buf = (void *)(uintptr_t)p32->addr;
	r.len = p32->data_len;

	/* checks the kernel makes before a command reaches the device */
	if ((!admin && d->nsid != c.nsid) || (r.len && !r.buf) || r.len > d->max_xfer) {
		c.status = r.len && !r.buf ? -EFAULT : -EINVAL;
		emu_cmd_record(d, &c);
		errno = -c.status;
		return -1;
	}
	r.fault = emu_cmd_begin(d, c.cls, c.opcode);
	if (r.fault && r.fault->kind == EMU_FAULT_ERRNO) {
		c.status = -(int)r.fault->value;
		emu_cmd_record(d, &c);
		errno = (int)r.fault->value;
		return -1;
	}
	if (r.fault && r.fault->kind == EMU_FAULT_STATUS)
		st = (uint16_t)r.fault->value;
	else
		st = admin ? admin_cmd(&r) : io_cmd(&r);
	if (st)
		r.result = 0;
	if (is64)
		p64->result = r.result;
	else
		p32->result = (uint32_t)r.result;
	c.status = st;
	emu_cmd_record(d, &c);
	return st;
}

int emu_nvme_ioctl(struct emu_dev *d, unsigned long req, void *arg)
{
	bool ns = d->kind == EMU_NG || d->kind == EMU_NVME_BLK;

	if (d->kind == EMU_BLK) {
		errno = ENOTTY;
		return -1;
	}
	switch (req) {
	case NVME_IOCTL_ID:
		if (!ns)
			break;
		return (int)d->nsid;
	case NVME_IOCTL_ADMIN_CMD:
		return passthru(d, arg, true, false);
	case NVME_IOCTL_ADMIN64_CMD:
		return passthru(d, arg, true, true);
	case NVME_IOCTL_IO_CMD:
	case NVME_IOCTL_IO64_CMD:
		if (!ns) {
			errno = EINVAL;	/* controller node: ambiguous namespace */
			return -1;
		}
		return passthru(d, arg, false, req == NVME_IOCTL_IO64_CMD);
	}
	errno = ENOTTY;
	return -1;
}
