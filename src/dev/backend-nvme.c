// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NVMe passthrough backend (fd based, libnvme through nvme-adapter.h) for
 * ngXnY and nvmeXnY.
 *
 * MDTS: Identify Controller gives it in units of the controller's minimum
 * page size (CAP.MPSMIN), a register a namespace node cannot read. We
 * assume 4 KiB pages (as nvme-cli and the kernel's common case do) and
 * take the smaller of that and the queue's max_hw_sectors_kb, which the
 * kernel enforces on passthrough and registers even for hidden disks.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvme-adapter.h"	/* first: see there */
#include "backend.h"

union id_buf {
	struct nvme_id_ctrl ctrl;
	struct nvme_id_ns ns;
	struct nvme_zns_id_ns zns;
	unsigned char raw[NVME_IDENTIFY_DATA_SIZE];
};

/* Space-padded Identify string to C string. */
static void copy_id_str(char *dst, size_t dlen, const char *src, size_t slen)
{
	size_t n = slen < dlen - 1 ? slen : dlen - 1;

	memcpy(dst, src, n);
	while (n && (dst[n - 1] == ' ' || dst[n - 1] == '\0'))
		n--;
	dst[n] = '\0';
}

static uint32_t mdts_to_bytes(uint8_t mdts, uint32_t queue_max)
{
	uint32_t b = 0;

	if (mdts)
		b = mdts >= 19 ? UINT32_C(1) << 31 : (UINT32_C(4096) << mdts);
	if (queue_max && (!b || queue_max < b))
		b = queue_max;
	return b;
}

/*
 * Command set from the Identify Namespace Descriptor List.
 * Return: 0, -ENOENT (no CSI descriptor), -errno or NVMe status.
 */
static int nvme_ns_csi(int fd, uint32_t nsid, union id_buf *id, uint8_t *csi)
{
	size_t off = 0;
	int ret;

	ret = znp_nvme_identify_ns_descs(fd, nsid, (struct nvme_ns_id_desc *)id->raw);
	if (ret)
		return ret;
	while (off + sizeof(struct nvme_ns_id_desc) <= sizeof(id->raw)) {
		const struct nvme_ns_id_desc *d = (const void *)(id->raw + off);

		if (!d->nidt)
			break;
		off += sizeof(*d) + d->nidl;
		if (off > sizeof(id->raw))
			break;
		if (d->nidt == NVME_NIDT_CSI && d->nidl >= 1) {
			*csi = d->nid[0];
			return 0;
		}
	}
	return -ENOENT;
}

static int nvme_probe_zns(struct znp_dev *dev, union id_buf *id, uint8_t lbaf)
{
	struct znp_geom *g = &dev->geom;
	uint32_t mor, mar;
	int ret;

	ret = znp_nvme_zns_identify_ns(dev->fd, dev->ns.nsid, &id->zns);
	if (ret)
		return ret;
	g->zone_size = le64toh(id->zns.lbafe[lbaf].zsze);
	g->zdes_bytes = (uint32_t)id->zns.lbafe[lbaf].zdes * 64;
	mor = le32toh(id->zns.mor);
	mar = le32toh(id->zns.mar);
	g->max_open = mor == UINT32_MAX ? 0 : mor + 1;
	g->max_active = mar == UINT32_MAX ? 0 : mar + 1;
	if (znp_geom_init(g))
		return -EPROTO;
	dev->is_zoned = true;
	return 0;
}

static int nvme_probe(struct znp_dev *dev)
{
	const struct znp_queue_limits *lim = znp_dev_limits(dev);
	struct znp_geom *g = &dev->geom;
	struct znp_ns_info *ns = &dev->ns;
	union id_buf *id;
	uint8_t lbaf, csi = ZNP_CSI_NVM;
	uint8_t ds;
	int ret;

	id = calloc(1, sizeof(*id));
	if (!id)
		return -ENOMEM;

	ret = znp_nvme_identify_ctrl(dev->fd, &id->ctrl);
	if (ret)
		goto out_free;
	g->mdts_bytes = mdts_to_bytes(id->ctrl.mdts, lim ? lim->max_hw_bytes : 0);
	g->vwc = id->ctrl.vwc & 1;
	g->crdt_ms[0] = le16toh(id->ctrl.crdt1) * 100u;
	g->crdt_ms[1] = le16toh(id->ctrl.crdt2) * 100u;
	g->crdt_ms[2] = le16toh(id->ctrl.crdt3) * 100u;
	if (!ns->serial[0])
		copy_id_str(ns->serial, sizeof(ns->serial), id->ctrl.sn, sizeof(id->ctrl.sn));
	if (!ns->model[0])
		copy_id_str(ns->model, sizeof(ns->model), id->ctrl.mn, sizeof(id->ctrl.mn));
	if (!ns->firmware[0])
		copy_id_str(ns->firmware, sizeof(ns->firmware), id->ctrl.fr, sizeof(id->ctrl.fr));

	ret = znp_nvme_identify_ns(dev->fd, ns->nsid, &id->ns);
	if (ret)
		goto out_free;
	nvme_id_ns_flbas_to_lbaf_inuse(id->ns.flbas, &lbaf);
	ds = id->ns.lbaf[lbaf].ds;
	if (lbaf > id->ns.nlbaf || ds < 9 || ds > 31) {
		ret = -EPROTO;
		goto out_free;
	}
	g->lba_size = UINT32_C(1) << ds;
	g->md_bytes = le16toh(id->ns.lbaf[lbaf].ms);
	g->md_extended = id->ns.flbas & NVME_NS_FLBAS_META_EXT;
	g->pi_type = id->ns.dps & NVME_NS_DPS_PI_MASK;
	g->nlbas = le64toh(id->ns.nsze);
	memcpy(ns->nguid, id->ns.nguid, sizeof(ns->nguid));
	memcpy(ns->eui64, id->ns.eui64, sizeof(ns->eui64));

	ret = nvme_ns_csi(dev->fd, ns->nsid, id, &csi);
	if (ret < 0 && ret != -ENOENT)
		goto out_free;
	if (ret) {
		/* no descriptor list (or no CSI in it): ask the ZNS command set */
		ret = nvme_probe_zns(dev, id, lbaf);
		csi = ret ? ZNP_CSI_NVM : ZNP_CSI_ZNS;
		if (ret < 0 && ret != -EPROTO)
			goto out_free;
	} else if (csi == ZNP_CSI_ZNS) {
		ret = nvme_probe_zns(dev, id, lbaf);
		if (ret)
			goto out_free;
	}
	ns->csi = csi;
	ret = 0;
	if (csi != ZNP_CSI_ZNS) {
		g->zone_size = g->zdes_bytes = g->max_open = g->max_active = 0;
		dev->is_zoned = false;
		ret = -EMEDIUMTYPE;
	}
out_free:
	free(id);
	return ret;
}

static int nvme_report(struct znp_dev *dev, uint64_t slba, enum znp_state_filter f,
		       bool partial, void *buf, uint32_t len, uint64_t *ncmds)
{
	(*ncmds)++;
	return znp_nvme_zns_report(dev->fd, dev->ns.nsid, slba, (uint16_t)f, partial, buf, len);
}

static int nvme_mgmt(struct znp_dev *dev, enum znp_zone_action a, uint64_t slba, bool all,
		     const atomic_int *stop)
{
	return znp_nvme_zns_send(dev->fd, dev->ns.nsid, all ? 0 : slba, all, (uint8_t)a);
}

const struct znp_backend znp_backend_nvme = {
	.name = "nvme",
	.probe = nvme_probe,
	.report = nvme_report,
	.mgmt = nvme_mgmt,
};
