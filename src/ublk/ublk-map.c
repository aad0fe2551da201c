// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pure part of the ublk server: geometry derivation and translation
 * between the ublk device (512-byte sectors, po2 zones) and the namespace
 * (LBAs, npo2 zones). Zone arithmetic goes through the geometry module.
 */
#include <errno.h>
#include <string.h>

#include "ublk-map.h"

static const char *set_why(const char **why, const char *s)
{
	if (why)
		*why = s;
	return s;
}

/* Block size and zones: whole, equal, po2-roundable zones. Return: 0 or -errno. */
static int geom_zones(const struct znp_geom *ns, struct znp_ublk_geom *g, const char **why)
{
	unsigned int spl_shift;
	uint64_t po2;

	if (!ns->zone_size || !ns->nr_zones) {
		set_why(why, "not a zoned namespace");
		return -EMEDIUMTYPE;
	}
	if (ns->lba_size < 512 || ns->lba_size > 4096 || !znp_is_po2(ns->lba_size)) {
		set_why(why, "logical block size outside 512..4096 bytes: ublk cannot present it");
		return -EINVAL;
	}
	if (ns->md_bytes || ns->pi_type) {
		/* extended: metadata inside the data; separate: a buffer per command */
		set_why(why, "the LBA format has metadata or protection information: the ublk "
			"server moves data only");
		return -EINVAL;
	}
	g->lba_shift = (uint32_t)__builtin_ctz(ns->lba_size);
	spl_shift = g->lba_shift - 9;
	if (ns->zone_cap != ns->zone_size) {
		set_why(why, "zone capacity < zone size: the po2 layout needs capacity == size");
		return -EINVAL;
	}
	if (ns->zone_cap_varies) {
		set_why(why, "zone capacities differ between zones");
		return -EINVAL;
	}
	if (znp_has_small_last_zone(ns)) {
		set_why(why, "the last zone is smaller than the others: only whole zones map");
		return -EINVAL;
	}
	po2 = znp_po2_zone_size(ns);
	/* chunk_sectors is 32 bits and a power of two */
	if (!po2 || po2 > (UINT64_C(1) << 31) >> spl_shift) {
		set_why(why, "zone size too large for a ublk zoned device (2^31 sectors at most)");
		return -E2BIG;
	}
	g->nr_zones = ns->nr_zones;
	g->zone_sectors = po2 << spl_shift;
	g->zone_cap_sectors = ns->zone_size << spl_shift;
	if (__builtin_mul_overflow(g->nr_zones, g->zone_sectors, &g->dev_sectors) ||
	    g->dev_sectors >> 62) {
		set_why(why, "device too large");
		return -E2BIG;
	}
	return 0;
}

/* Open/active zone limits, command, append and request sizes. Return: 0 or -errno. */
static int geom_limits(const struct znp_geom *ns, uint32_t zasl_bytes, struct znp_ublk_geom *g,
		       const char **why)
{
	uint64_t cmd_bytes, app_bytes, min_report, sect;

	/* The block layer turns limits >= the zone count into "no limit". */
	g->max_active = ns->max_active && ns->max_active < g->nr_zones ? ns->max_active : 0;
	g->max_open = ns->max_open && ns->max_open < g->nr_zones ? ns->max_open : 0;
	if (g->max_active && g->max_open > g->max_active)
		g->max_open = g->max_active;
	if (g->max_active && !g->max_open)
		g->max_open = g->max_active;

	/* One NVMe command: MDTS (already limited by the queue) and 255 sectors. */
	cmd_bytes = ZNP_UBLK_HIDDEN_MAX_HW_SECTORS * 512u;
	if (ns->mdts_bytes && ns->mdts_bytes < cmd_bytes)
		cmd_bytes = ns->mdts_bytes;
	/* whole pages: ADD_DEV rounds the request buffer down to pages */
	cmd_bytes &= ~(uint64_t)(ZNP_UBLK_PAGE - 1);
	if (cmd_bytes < 4096) {
		set_why(why, "maximum transfer below 4 KiB");
		return -EINVAL;
	}
	g->max_cmd_sectors = (uint32_t)(cmd_bytes >> 9);
	app_bytes = cmd_bytes;
	if (zasl_bytes && zasl_bytes < app_bytes)
		app_bytes = zasl_bytes & ~(uint64_t)(ns->lba_size - 1);
	if (!app_bytes) {
		set_why(why, "zone append size limit below one logical block");
		return -EINVAL;
	}
	g->max_append_sectors = (uint32_t)(app_bytes >> 9);
	if (g->max_append_sectors > g->zone_cap_sectors)
		g->max_append_sectors = (uint32_t)g->zone_cap_sectors;

	/*
	 * 6.12 hands the report callback the index within one request: one
	 * request must hold every zone (64 bytes each, 8 per sector).
	 */
	min_report = (g->nr_zones + 7) / 8;
	/*
	 * Requests may be larger than one command (the server splits them):
	 * a 128 KiB write is then one round trip through ublk, not two.
	 */
	sect = ZNP_UBLK_REQ_BYTES / 512;
	if (sect < g->max_cmd_sectors)
		sect = g->max_cmd_sectors;
	/*
	 * Whole commands (whole pages too): a merged request splits into full
	 * passthrough commands, not 248 + 248 + 16 sectors.
	 */
	sect -= sect % g->max_cmd_sectors;
	if (min_report > sect) {
		sect = (min_report + g->max_cmd_sectors - 1) / g->max_cmd_sectors *
		       g->max_cmd_sectors;
		/* the report first: whole commands only while they fit the buffer */
		if (sect > ZNP_UBLK_IO_BUF_MAX / 512)
			sect = min_report;
	}
	if (sect > ZNP_UBLK_IO_BUF_MAX / 512) {
		set_why(why, "too many zones for one ublk report request");
		return -E2BIG;
	}
	g->max_sectors = (uint32_t)sect;
	return 0;
}

int znp_ublk_geom_compute(const struct znp_geom *ns, uint32_t zasl_bytes, bool vwc,
			  struct znp_ublk_geom *g, const char **why)
{
	int ret;

	memset(g, 0, sizeof(*g));
	g->ns = *ns;
	/*
	 * The server asks for basic reports (Zone Receive Action 0x00), whose
	 * descriptors carry no extension whatever the namespace's ZDES.
	 */
	g->ns.zdes_bytes = 0;
	ret = geom_zones(ns, g, why);
	if (!ret)
		ret = geom_limits(ns, zasl_bytes, g, why);
	if (ret)
		return ret;
	g->volatile_cache = vwc;
	return 0;
}

int znp_ublk_map_rw(const struct znp_ublk_geom *g, uint64_t sector, uint32_t nr_sectors,
		    bool op_write, struct znp_ublk_ext *e)
{
	unsigned int spl_shift = g->lba_shift - 9;
	uint64_t spl_mask = (UINT64_C(1) << spl_shift) - 1;
	uint64_t plba, n, off, left, po2 = znp_po2_zone_size(&g->ns);

	memset(e, 0, sizeof(*e));
	if (!nr_sectors || nr_sectors > g->max_sectors || (sector & spl_mask) ||
	    (nr_sectors & spl_mask))
		return -EINVAL;
	if (sector >= g->dev_sectors || nr_sectors > g->dev_sectors - sector)
		return -EINVAL;
	plba = sector >> spl_shift;
	n = nr_sectors >> spl_shift;
	off = znp_po2_offset_in_zone(&g->ns, plba);
	if (n > po2 - off)
		return -EINVAL;		/* crosses a zone boundary: the block layer splits */
	e->zone_no = znp_po2_zone_no(&g->ns, plba);
	left = znp_po2_data_left(&g->ns, plba);
	if (op_write && n > left)
		return -EIO;
	e->nlb = (uint32_t)(n < left ? n : left);
	e->zero_bytes = (uint32_t)((n - e->nlb) << g->lba_shift);
	if (e->nlb && !znp_po2_to_dev(&g->ns, plba, &e->lba))
		return -EINVAL;
	return 0;
}

int znp_ublk_map_zone(const struct znp_ublk_geom *g, uint64_t sector, uint64_t *zslba)
{
	uint64_t plba, zno;

	if (sector >= g->dev_sectors)
		return -EINVAL;
	plba = sector >> (g->lba_shift - 9);
	zno = znp_po2_zone_no(&g->ns, plba);
	if (znp_po2_offset_in_zone(&g->ns, plba) || (sector & ((1u << (g->lba_shift - 9)) - 1)))
		return -EINVAL;
	*zslba = znp_zone_start(&g->ns, zno);
	return 0;
}

int znp_ublk_map_alba(const struct znp_ublk_geom *g, uint64_t zone_no, uint64_t alba,
		      uint32_t nlb, uint64_t *sector)
{
	uint64_t zstart = znp_zone_start(&g->ns, zone_no);
	uint64_t cap = znp_zone_len(&g->ns, zone_no);

	if (zone_no >= g->nr_zones || alba < zstart || alba - zstart > cap ||
	    nlb > cap - (alba - zstart))
		return -EIO;
	*sector = (znp_po2_zone_start(&g->ns, zone_no) + (alba - zstart)) << (g->lba_shift - 9);
	return 0;
}

int znp_ublk_zone_to_blk(const struct znp_ublk_geom *g, uint64_t idx,
			 const struct znp_zone *z, struct blk_zone *bz)
{
	unsigned int spl_shift = g->lba_shift - 9;
	uint64_t start;

	memset(bz, 0, sizeof(*bz));
	if (idx >= g->nr_zones || z->start != znp_zone_start(&g->ns, idx) ||
	    z->type != ZNP_ZT_SEQ_REQ || z->cap != g->ns.zone_cap)
		return -EIO;
	start = znp_po2_zone_start(&g->ns, idx) << spl_shift;
	bz->start = start;
	bz->len = g->zone_sectors;
	bz->capacity = g->zone_cap_sectors;
	bz->type = BLK_ZONE_TYPE_SEQWRITE_REQ;
	bz->cond = z->cond;
	bz->reset = !!(z->attrs & 0x04);	/* ZA.RZR: reset zone recommended */
	switch (z->cond) {
	case ZNP_ZC_EMPTY:
		bz->wp = start;
		break;
	case ZNP_ZC_IMP_OPEN:
	case ZNP_ZC_EXP_OPEN:
	case ZNP_ZC_CLOSED:
		if (z->wp < z->start || z->wp - z->start > z->cap)
			return -EIO;
		bz->wp = start + ((z->wp - z->start) << spl_shift);
		break;
	case ZNP_ZC_FULL:
	case ZNP_ZC_READONLY:
	case ZNP_ZC_OFFLINE:
		bz->wp = start + bz->len;
		break;
	default:
		return -EIO;
	}
	return 0;
}

enum znp_ublk_verdict znp_ublk_status_verdict(int status, bool write)
{
	if (status == -ENODEV || status == -ENXIO)
		return ZNP_UBLK_GONE;
	if (status == -EINTR || status == -EAGAIN || status == -ETIMEDOUT)
		return ZNP_UBLK_RETRY;	/* cancelled by a controller reset, or no tag */
	if (status <= 0)
		return ZNP_UBLK_FAIL;
	switch (status & 0x7ff) {
	case 0x00b:		/* Invalid Namespace or Format: detached under the server */
		return ZNP_UBLK_GONE;
	case 0x1b8:		/* Zone Boundary Error */
	case 0x1b9:		/* Zone Is Full */
	case 0x1bc:		/* Zone Invalid Write */
		/* an earlier attempt (a dead server's, or one that timed out) may have landed */
		return write ? ZNP_UBLK_CHECK_WP : ZNP_UBLK_FAIL;
	case 0x001:		/* Invalid Command Opcode: never better on a retry */
	case 0x002:		/* Invalid Field in Command */
		return ZNP_UBLK_FAIL;
	case 0x370:		/* Host Pathing Error */
	case 0x371:		/* Command Aborted By Host (controller reset) */
		return ZNP_UBLK_RETRY;
	default:
		break;
	}
	/* Do Not Retry clear: the controller says a retry may succeed */
	return (status & 0x4000) ? ZNP_UBLK_FAIL : ZNP_UBLK_RETRY;
}

uint32_t znp_ublk_retry_ms(int status, const uint32_t crdt_ms[3], unsigned int retry)
{
	uint32_t ms = 10u << (retry < ZNP_UBLK_RETRIES ? retry : ZNP_UBLK_RETRIES);
	unsigned int crd = status > 0 ? ((unsigned int)status >> 11) & 3 : 0;

	if (crd && crdt_ms[crd - 1] > ms)
		ms = crdt_ms[crd - 1];
	return ms;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

uint64_t znp_ublk_fingerprint(const struct znp_ns_info *id, const struct znp_geom *g)
{
	uint64_t h = 0xcbf29ce484222325ULL, v[4] = { g->lba_size, g->nlbas, g->zone_size,
						       g->zone_cap };

	h = fnv(h, id->nguid, sizeof(id->nguid));
	h = fnv(h, id->eui64, sizeof(id->eui64));
	h = fnv(h, id->serial, strnlen(id->serial, sizeof(id->serial)));
	h = fnv(h, &id->nsid, sizeof(id->nsid));
	h = fnv(h, v, sizeof(v));
	return h ? h : 1;
}

int znp_ublk_status_errno(int status)
{
	if (status <= 0)
		return status;
	switch (status & 0x7ff) {
	case 0x1bd:		/* Too Many Active Zones */
		return -EOVERFLOW;
	case 0x1be:		/* Too Many Open Zones */
		return -ETOOMANYREFS;
	case 0x001:		/* Invalid Command Opcode */
		return -EOPNOTSUPP;
	case 0x002:		/* Invalid Field in Command */
		return -EINVAL;
	default:		/* zone boundary, full, read-only, offline, invalid write ... */
		return -EIO;
	}
}
