// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Report iterator and zone management over an in-memory test backend:
 * command sizing against MDTS, the partial bit, filters, start inside a
 * zone, malformed data, per-zone and select-all management.
 */
#include <errno.h>
#include <stdlib.h>

#include "backend.h"
#include "znp.h"
#include "test.h"

#define MAXZ 5000

static struct {
	uint8_t cond[MAXZ];
	uint64_t cap;
	/* what the iterator sent */
	unsigned int calls;
	bool first_partial, later_partial_ok;
	uint32_t max_len_seen;
	uint32_t mdts;
	/* faults */
	int64_t hdr_delta;	/* added to the partial=0 header */
	long skip_zone;		/* zone left out of the report, -1: none */
	long bad_wp_zone;	/* zone with wp past its capacity, -1: none */
	long small_cap_zone;	/* zone with capacity cap - 1, -1: none */
	int fail_call;		/* call number that returns an NVMe status, 0: none */
	int fail_status;	/* that status, 0: 0x4002 */
	/* management */
	unsigned int mgmt_calls;
	uint64_t mgmt_slba[MAXZ];
	bool mgmt_all;
} fk;

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static bool matches(enum znp_state_filter f, uint8_t c)
{
	static const uint8_t want[] = { 0, ZNP_ZC_EMPTY, ZNP_ZC_IMP_OPEN, ZNP_ZC_EXP_OPEN,
					ZNP_ZC_CLOSED, ZNP_ZC_FULL, ZNP_ZC_READONLY,
					ZNP_ZC_OFFLINE };

	return f == ZNP_RF_ALL || want[f] == c;
}

static int fk_report(struct znp_dev *dev, uint64_t slba, enum znp_state_filter f,
		     bool partial, void *buf, uint32_t len, uint64_t *ncmds)
{
	const struct znp_geom *g = &dev->geom;
	unsigned char *b = buf;
	uint64_t z, n = 0, total = 0, fit = (len - 64) / 64;

	(*ncmds)++;
	fk.calls++;
	if (fk.calls == 1)
		fk.first_partial = partial;
	else if (!partial)
		fk.later_partial_ok = false;
	if (len > fk.max_len_seen)
		fk.max_len_seen = len;
	CHECK(len % 4 == 0 && len >= 128, "data_len %u", len);
	CHECK(!fk.mdts || len <= fk.mdts, "data_len %u above MDTS %u", len, fk.mdts);
	CHECK(znp_is_zone_start(g, slba), "report slba %llu not a zone start",
	      (unsigned long long)slba);
	if (fk.fail_call && (int)fk.calls == fk.fail_call)
		return fk.fail_status ? fk.fail_status : 0x4002;
	memset(buf, 0, len);
	for (z = znp_zone_no(g, slba); z < g->nr_zones; z++) {
		unsigned char *d;
		uint64_t start = znp_zone_start(g, z);

		if (!matches(f, fk.cond[z]) || (long)z == fk.skip_zone)
			continue;
		total++;
		if (n == fit)
			continue;
		d = b + 64 + n * 64;
		d[0] = ZNP_ZT_SEQ_REQ;
		d[1] = (unsigned char)(fk.cond[z] << 4);
		put_le64(d + 8, (long)z == fk.small_cap_zone ? fk.cap - 1 : fk.cap);
		put_le64(d + 16, start);
		put_le64(d + 24, start + ((long)z == fk.bad_wp_zone ? fk.cap + 1 :
					  fk.cond[z] == ZNP_ZC_EMPTY ? 0 : 1));
		n++;
	}
	put_le64(b, partial ? n : total + (uint64_t)fk.hdr_delta);
	return 0;
}

static int fk_mgmt(struct znp_dev *dev, enum znp_zone_action a, uint64_t slba, bool all,
		   const atomic_int *stop)
{
	if (all && stop && atomic_load(stop))
		return -EINTR;
	if (all)
		fk.mgmt_all = true;
	else
		fk.mgmt_slba[fk.mgmt_calls] = slba;
	fk.mgmt_calls++;
	if (!all && slba == znp_zone_start(&dev->geom, 7))
		return 0x1b9;	/* Zone Is Full */
	return 0;
}

static int fk_probe(struct znp_dev *dev)
{
	return 0;	/* geometry set up by the test */
}

static const struct znp_backend fake = {
	.name = "test", .probe = fk_probe, .report = fk_report, .mgmt = fk_mgmt,
};

static void setup(struct znp_dev *dev, uint64_t nzones, uint64_t zs, uint64_t cap, uint32_t mdts)
{
	uint64_t i;

	memset(dev, 0, sizeof(*dev));
	memset(&fk, 0, sizeof(fk));
	fk.skip_zone = fk.bad_wp_zone = fk.small_cap_zone = -1;
	fk.later_partial_ok = true;
	fk.cap = cap;
	fk.mdts = mdts;
	for (i = 0; i < nzones; i++)
		fk.cond[i] = i % 3 == 0 ? ZNP_ZC_FULL : ZNP_ZC_EMPTY;
	dev->fd = -1;
	dev->be = &fake;
	dev->is_zoned = true;
	dev->kind = ZNP_DEV_NVME_CHAR;
	dev->geom.lba_size = 4096;
	dev->geom.nlbas = nzones * zs;
	dev->geom.zone_size = zs;
	dev->geom.zone_cap = cap;
	dev->geom.mdts_bytes = mdts;
	CHECK_INT(znp_geom_init(&dev->geom), 0);
}

/* Walk a report; return the zones seen (or the error). */
static long walk(struct znp_dev *dev, uint64_t slba, enum znp_state_filter f,
		 uint64_t *hdr, uint64_t *cmds, uint64_t *first)
{
	struct znp_report_iter *it;
	struct znp_zone z;
	long n = 0;
	int ret;

	ret = znp_report_begin(dev, slba, f, &it);
	if (ret)
		return ret;
	*hdr = znp_report_nr_zones(it);
	while (znp_report_next(it, &z, &ret)) {
		if (!n && first)
			*first = z.start;
		CHECK(matches(f, z.cond), "zone %llu cond %u does not match filter %d",
		      (unsigned long long)z.start, z.cond, f);
		n++;
	}
	*cmds = znp_report_cmds(it);
	znp_report_end(it);
	return ret ? ret : n;
}

static void test_chunking(void)
{
	struct znp_dev dev;
	uint64_t hdr, cmds, first = 0;

	/* 4096 zones of 96 MiB, MDTS 16 KiB: 255 descriptors per command */
	setup(&dev, 4096, 24576, 24576, 16384);
	CHECK_INT(walk(&dev, 0, ZNP_RF_ALL, &hdr, &cmds, &first), 4096);
	CHECK_U64(hdr, 4096);
	CHECK_U64(cmds, (4096 + 254) / 255);
	CHECK(!fk.first_partial, "first command must clear the partial bit");
	CHECK(fk.later_partial_ok, "later commands must set the partial bit");
	CHECK(fk.max_len_seen <= 16384, "buffer %u above MDTS", fk.max_len_seen);

	/* few zones: one command sized to them, not to MDTS */
	setup(&dev, 10, 24576, 24576, 512 * 1024);
	CHECK_INT(walk(&dev, 0, ZNP_RF_ALL, &hdr, &cmds, &first), 10);
	CHECK_U64(cmds, 1);
	CHECK_U64(fk.max_len_seen, 64 + 10 * 64);

	/* start inside zone 5: the report starts at zone 5's start */
	CHECK_INT(walk(&dev, 5 * 24576 + 77, ZNP_RF_ALL, &hdr, &cmds, &first), 5);
	CHECK_U64(hdr, 5);
	CHECK_U64(first, 5 * 24576);
	/* past the end */
	CHECK_INT(walk(&dev, 10 * 24576, ZNP_RF_ALL, &hdr, &cmds, &first), -EINVAL);

	/* MDTS unknown: default cap, still one command for 10 zones */
	setup(&dev, 4096, 24576, 24576, 0);
	CHECK_INT(walk(&dev, 0, ZNP_RF_ALL, &hdr, &cmds, &first), 4096);
	CHECK_U64(cmds, 1);
	CHECK(fk.max_len_seen <= ZNP_REPORT_MAX_BYTES, "default cap exceeded");
}

static void test_filters(void)
{
	struct znp_dev dev;
	uint64_t hdr, cmds, first = 0;

	setup(&dev, 3000, 24576, 20000, 8192);	/* 127 descriptors per command */
	CHECK_INT(walk(&dev, 0, ZNP_RF_FULL, &hdr, &cmds, &first), 1000);
	CHECK_U64(hdr, 1000);
	CHECK_U64(cmds, (1000 + 126) / 127);
	CHECK_INT(walk(&dev, 0, ZNP_RF_EMPTY, &hdr, &cmds, &first), 2000);
	CHECK_U64(first, 24576);
	CHECK_INT(walk(&dev, 0, ZNP_RF_OFFLINE, &hdr, &cmds, &first), 0);
	CHECK_U64(hdr, 0);
	CHECK_U64(cmds, 1);
	CHECK_INT(walk(&dev, 2997 * 24576, ZNP_RF_FULL, &hdr, &cmds, &first), 1);	/* 2997 only */
}

static void test_malformed(void)
{
	struct znp_dev dev;
	uint64_t hdr, cmds;

	setup(&dev, 300, 24576, 24576, 4096);
	fk.hdr_delta = 1;	/* zone count differs from Identify */
	CHECK_INT(walk(&dev, 0, ZNP_RF_ALL, &hdr, &cmds, NULL), -EPROTO);
	setup(&dev, 300, 24576, 24576, 4096);
	fk.skip_zone = 100;	/* a hole: zones not contiguous */
	fk.hdr_delta = 1;
	CHECK_INT(walk(&dev, 0, ZNP_RF_ALL, &hdr, &cmds, NULL), -EPROTO);
	setup(&dev, 300, 24576, 24576, 4096);
	fk.bad_wp_zone = 250;	/* in a later chunk */
	CHECK_INT(walk(&dev, 0, ZNP_RF_ALL, &hdr, &cmds, NULL), -EPROTO);
	setup(&dev, 300, 24576, 24576, 4096);
	fk.fail_call = 2;	/* NVMe status in the second command */
	CHECK_INT(walk(&dev, 0, ZNP_RF_ALL, &hdr, &cmds, NULL), 0x4002);
	setup(&dev, 300, 24576, 24576, 4096);
	fk.fail_call = 1;
	CHECK_INT(walk(&dev, 0, ZNP_RF_ALL, &hdr, &cmds, NULL), 0x4002);
	dev.is_zoned = false;
	CHECK_INT(walk(&dev, 0, ZNP_RF_ALL, &hdr, &cmds, NULL), -EMEDIUMTYPE);
}

/*
 * zone_cap has one meaning on both probe paths (probe chunk, deferred to
 * the first report): the capacity of zone 0, the first full-size zone.
 */
static void test_cap_meaning(void)
{
	struct znp_report_iter *it;
	struct znp_dev dev;

	setup(&dev, 5, 24576, 24576, 4096);
	fk.small_cap_zone = 0;			/* zone 0 differs from the others */
	dev.geom.zone_cap = 0;
	CHECK_INT(znp_report_probe_cap(&dev), 0);
	CHECK_U64(dev.geom.zone_cap, 24575);
	dev.geom.zone_cap = 0;
	CHECK_INT(znp_report_begin(&dev, 0, ZNP_RF_ALL, &it), 0);
	CHECK_U64(dev.geom.zone_cap, 24575);
	znp_report_end(it);
}

/* NVMe status 0x001 (Invalid Command Opcode) is a status, not "a zone". */
static void test_status_one(void)
{
	struct znp_report_iter *it;
	struct znp_dev dev;
	struct znp_zone z;
	uint64_t n = 0;
	int ret;

	setup(&dev, 300, 24576, 24576, 4096);
	fk.fail_call = 2;
	fk.fail_status = 0x001;
	CHECK_INT(znp_report_begin(&dev, 0, ZNP_RF_ALL, &it), 0);
	while (znp_report_next(it, &z, &ret))
		n++;
	CHECK_INT(ret, 0x001);
	CHECK(n > 0 && n < 300, "%llu zones before the failing command", (unsigned long long)n);
	znp_report_end(it);
	fk.fail_status = 0;
}

static void test_probe_cap(void)
{
	struct znp_dev dev;

	setup(&dev, 50, 20480, 16384, 4096);
	dev.geom.zone_cap = 0;
	CHECK_INT(znp_report_probe_cap(&dev), 0);
	CHECK_U64(dev.geom.zone_cap, 16384);
	CHECK(!dev.geom.zone_cap_varies, "caps do not vary");
	fk.small_cap_zone = 2;
	CHECK_INT(znp_report_probe_cap(&dev), 0);
	CHECK(dev.geom.zone_cap_varies, "capacity of zone 2 differs");
	fk.bad_wp_zone = 4;	/* an empty zone */
	CHECK_INT(znp_report_probe_cap(&dev), -EPROTO);
}

/* A differing capacity past the first chunk: only a full report sees it. */
static void test_cap_varies_full(void)
{
	struct znp_report_iter *it;
	struct znp_dev dev;
	struct znp_zone z;
	int ret;

	setup(&dev, 1000, 20480, 16384, 4096);	/* 63 zones per command */
	fk.small_cap_zone = 900;
	CHECK_INT(znp_report_probe_cap(&dev), 0);
	CHECK(!dev.geom.zone_cap_varies, "probe looks at the first chunk only");
	CHECK_INT(znp_report_begin(&dev, 0, ZNP_RF_ALL, &it), 0);
	CHECK(!znp_report_cap_varies(it), "not seen yet");
	while (znp_report_next(it, &z, &ret))
		;
	CHECK_INT(ret, 0);
	CHECK(znp_report_cap_varies(it), "zone 900 differs");
	znp_report_end(it);
	CHECK(!znp_report_cap_varies(NULL), "NULL iterator");
}

static void test_mgmt(void)
{
	struct znp_mgmt_req r = { .action = ZNP_ZA_RESET, .slba = 2 * 24576, .nr_zones = 3 };
	struct znp_dev dev;
	const char *why;
	uint64_t done = 99;

	setup(&dev, 10, 24576, 24576, 4096);
	CHECK_INT(znp_zone_mgmt(&dev, &r, &done), 0);
	CHECK_U64(done, 3);
	CHECK_INT(fk.mgmt_calls, 3);
	CHECK_U64(fk.mgmt_slba[0], 2 * 24576);
	CHECK_U64(fk.mgmt_slba[2], 4 * 24576);

	/* stops at the failing zone 7, counting zones 5 and 6 */
	fk.mgmt_calls = 0;
	r.slba = 5 * 24576;
	r.nr_zones = 6;
	CHECK_INT(znp_zone_mgmt(&dev, &r, &done), -22);		/* past the last zone */
	CHECK_INT(fk.mgmt_calls, 0);
	r.nr_zones = 4;
	CHECK_INT(znp_zone_mgmt(&dev, &r, &done), 0x1b9);
	CHECK_U64(done, 2);
	CHECK_INT(fk.mgmt_calls, 3);

	/* select-all: one command */
	fk.mgmt_calls = 0;
	r.all = true;
	r.slba = 12345;	/* ignored */
	CHECK_INT(znp_zone_mgmt(&dev, &r, &done), 0);
	CHECK_INT(fk.mgmt_calls, 1);
	CHECK(fk.mgmt_all, "select-all not sent");
	CHECK_U64(done, 1);

	/* validation */
	r.all = false;
	r.nr_zones = 1;
	r.slba = 32768;	/* po2 boundary, not a zone start of this npo2 device */
	CHECK_INT(znp_zone_mgmt_validate(&dev, &r, &why), -EINVAL);
	CHECK_STR(why, "start LBA is not a zone start");
	r.slba = 10 * 24576;
	CHECK_INT(znp_zone_mgmt_validate(&dev, &r, &why), -EINVAL);
	CHECK_STR(why, "start LBA is past the end of the device");
	r.slba = 9 * 24576;
	r.nr_zones = 0;
	CHECK_INT(znp_zone_mgmt_validate(&dev, &r, &why), -EINVAL);
	CHECK_STR(why, "zone count must be at least 1");
	r.nr_zones = 2;
	CHECK_INT(znp_zone_mgmt_validate(&dev, &r, &why), -EINVAL);
	CHECK_STR(why, "zone count past the last zone");
	r.nr_zones = UINT64_MAX;
	CHECK_INT(znp_zone_mgmt_validate(&dev, &r, &why), -EINVAL);
	r.nr_zones = 1;
	CHECK_INT(znp_zone_mgmt_validate(&dev, &r, NULL), 0);
	r.action = (enum znp_zone_action)9;
	CHECK_INT(znp_zone_mgmt_validate(&dev, &r, &why), -EINVAL);
	CHECK_STR(why, "unknown zone action");
	r.action = ZNP_ZA_OPEN;
	dev.is_zoned = false;
	CHECK_INT(znp_zone_mgmt_validate(&dev, &r, &why), -EMEDIUMTYPE);
	CHECK_INT(znp_zone_mgmt(&dev, &r, &done), -EMEDIUMTYPE);
	CHECK_U64(done, 0);
}

/* A stop request is seen on every path: queue depth 1 and select-all. */
static void test_mgmt_stop(void)
{
	struct znp_mgmt_req r = { .action = ZNP_ZA_RESET, .slba = 0, .nr_zones = 5 };
	atomic_int stop = 0;
	struct znp_mgmt_opts o = { .qd = 1, .stop = &stop };
	struct znp_aio_result res;
	struct znp_dev dev;

	setup(&dev, 10, 24576, 24576, 4096);
	CHECK_INT(znp_zone_mgmt_run(&dev, &r, &o, &res), 0);
	CHECK_U64(res.completed, 5);
	CHECK_U64(res.submitted, 5);
	CHECK_STR(znp_aio_engine_name(res.engine), "nvme-ioctl");

	fk.mgmt_calls = 0;
	stop = 1;
	CHECK_INT(znp_zone_mgmt_run(&dev, &r, &o, &res), -EINTR);
	CHECK(res.interrupted, "interrupted not set");
	CHECK_U64(res.completed, 0);
	CHECK_INT(fk.mgmt_calls, 0);

	r.all = true;
	CHECK_INT(znp_zone_mgmt_run(&dev, &r, &o, &res), -EINTR);
	CHECK(res.interrupted, "select-all: interrupted not set");
	CHECK_INT(fk.mgmt_calls, 0);
	stop = 0;
	CHECK_INT(znp_zone_mgmt_run(&dev, &r, &o, &res), 0);
	CHECK_U64(res.completed, 1);
	CHECK_INT(fk.mgmt_calls, 1);
}

int main(void)
{
	test_chunking();
	test_filters();
	test_malformed();
	test_probe_cap();
	test_cap_varies_full();
	test_status_one();
	test_cap_meaning();
	test_mgmt();
	test_mgmt_stop();
	return t_done("test-report");
}
