// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Backend tests: the core library (src/) against emulated namespaces.
 *
 * Usage: test-backend CASE. Each case has its own emulator config: the
 * test writes it into a temporary directory, builds the fake sysfs/dev
 * tree with mkfake.py ($ZNPEMU_MKFAKE), and runs itself again with
 * ZNP_EMU_CONFIG / ZNP_SYSFS_ROOT / ZNP_DEV_ROOT pointing there. Results
 * are checked against the emulator's own record of commands and zone
 * states (znpemu.h), never against the library's earlier output.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/test.h"
#include "znp.h"
#include "znpemu.h"

extern char **environ;

static struct znp_env env;
static char root[PATH_MAX];

/* ---- helpers ---- */

static struct znp_dev *open_dev(const char *name, unsigned int flags, int want_probe)
{
	char path[PATH_MAX];
	struct znp_dev *dev = NULL;
	const char *why = NULL;
	int ret;

	if (snprintf(path, sizeof(path), "%s/dev/%s", root, name) >= (int)sizeof(path))
		return NULL;
	ret = znp_dev_open(&env, path, flags, &dev, &why);
	CHECK(ret == 0, "open %s: %d %s", path, ret, why ? why : "");
	if (ret)
		return NULL;
	ret = znp_dev_probe(dev);
	CHECK(ret == want_probe, "probe %s: %d (%s), want %d", name, ret, znp_strerror(ret),
	      want_probe);
	return dev;
}

/* The @n most recent recorded commands, oldest first. */
static int last_cmds(struct znpemu_cmd *out, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (!znpemu_last_cmd(n - 1 - i, &out[i]))
			return -1;
	return 0;
}

/* Zone Management Receive commands (BLKREPORTZONE calls for dm-*) the emulator saw. */
static uint64_t zmr_count(const char *dev)
{
	if (!strncmp(dev, "dm-", 3))
		return znpemu_count(dev, ZNPEMU_CLS_BLK, ZNPEMU_BLK_REPORT);
	return znpemu_count(dev, ZNPEMU_CLS_IO, 0x7a);
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* Descriptors per Zone Management Receive for a transfer limit of @bytes. */
static uint64_t per_cmd(uint64_t bytes)
{
	return (bytes - 64) / 64;
}

static void check_zone_vs_emu(const char *name, const struct znp_dev *dev,
			      const struct znp_zone *z, uint64_t zno)
{
	const struct znp_geom *g = &dev->geom;
	uint64_t wp, want_len;
	uint8_t cond;

	if (!znpemu_zone(name, zno, &cond, &wp)) {
		CHECK(0, "zone %" PRIu64 " unknown to the emulator", zno);
		return;
	}
	want_len = zno == g->nr_zones - 1 ? g->nlbas - zno * g->zone_size : g->zone_size;
	if (z->start != zno * g->zone_size || z->len != want_len || z->cond != cond ||
	    z->type != ZNP_ZT_SEQ_REQ) {
		CHECK(0, "zone %" PRIu64 ": start 0x%" PRIx64 " len 0x%" PRIx64 " cond %u, "
		      "want 0x%" PRIx64 " 0x%" PRIx64 " %u", zno, z->start, z->len, z->cond,
		      zno * g->zone_size, want_len, cond);
		return;
	}
	/* full: NVMe gives no valid wp (~0), the block layer start + len */
	if (cond == ZNP_ZC_FULL && !strncmp(name, "dm-", 3))
		CHECK_U64(z->wp, z->start + z->len);
	else if (cond == ZNP_ZC_FULL || cond == ZNP_ZC_READONLY || cond == ZNP_ZC_OFFLINE)
		CHECK(z->wp == UINT64_MAX, "zone %" PRIu64 " wp 0x%" PRIx64, zno, z->wp);
	else
		CHECK(z->wp == wp, "zone %" PRIu64 " wp 0x%" PRIx64 " want 0x%" PRIx64,
		      zno, z->wp, wp);
}

/*
 * Full report from @slba with @filter; every zone checked against the
 * emulator. Returns the zones seen, sets *cmds to the Zone Management
 * Receive commands the emulator counted for the report itself.
 */
static uint64_t report_all(const char *name, struct znp_dev *dev, uint64_t slba,
			   enum znp_state_filter filter, uint64_t *cmds, int *err)
{
	static const uint8_t fcond[] = { 0, 1, 2, 3, 4, 0xe, 0xd, 0xf };
	struct znp_report_iter *it = NULL;
	uint64_t n = 0, before = zmr_count(name), zno = slba / dev->geom.zone_size;
	struct znp_zone z;
	int ret;

	*err = znp_report_begin(dev, slba, filter, &it);
	if (*err)
		goto out;
	while (znp_report_next(it, &z, &ret)) {
		uint64_t this = z.start / dev->geom.zone_size;

		if (filter == ZNP_RF_ALL)
			CHECK_U64(this, zno + n);
		else
			CHECK(z.cond == fcond[filter], "zone %" PRIu64 " cond %u in filter %d",
			      this, z.cond, filter);
		check_zone_vs_emu(name, dev, &z, this);
		n++;
	}
	*err = ret;
	CHECK_U64(znp_report_cmds(it), zmr_count(name) - before);
	znp_report_end(it);
out:
	*cmds = zmr_count(name) - before;
	return n;
}

/* ---- cases ---- */

/* Identify + report + zone management commands, field by field. */
static void case_encode(void)
{
	struct znpemu_cmd c[5];
	struct znp_mgmt_req r = { .action = ZNP_ZA_OPEN, .slba = 0x180000000ull, .nr_zones = 1 };
	struct znp_report_iter *it;
	struct znp_dev *dev;
	uint64_t done;
	int ret;

	dev = open_dev("ng0n1", ZNP_OPEN_WRITE, 0);
	if (!dev)
		return;
	CHECK_U64(dev->ns.nsid, 7);
	CHECK_U64(dev->geom.zone_size, 0xC0000000ull);
	CHECK_U64(dev->geom.nr_zones, 4);
	CHECK_U64(dev->geom.lba_size, 512);
	CHECK_U64(dev->geom.mdts_bytes, 128 * 1024);
	CHECK_U64(dev->geom.max_open, 14);
	CHECK_U64(dev->geom.max_active, 15);
	CHECK_U64(znpemu_nr_recorded(), 5);
	CHECK(last_cmds(c, 5) == 0, "5 commands recorded");
	/* Identify Controller, Namespace, NS descriptors, ZNS Namespace */
	for (int i = 0; i < 4; i++) {
		CHECK_INT(c[i].cls, ZNPEMU_CLS_ADMIN);
		CHECK_U64(c[i].opcode, 0x06);
		CHECK_U64(c[i].data_len, 4096);
		CHECK_INT(c[i].status, 0);
	}
	CHECK_U64(c[0].cdw10, 1);
	CHECK_U64(c[1].cdw10, 0);
	CHECK_U64(c[1].nsid, 7);
	CHECK_U64(c[2].cdw10, 3);
	CHECK_U64(c[2].nsid, 7);
	CHECK_U64(c[3].cdw10, 5);
	CHECK_U64(c[3].cdw11, 2u << 24);
	CHECK_U64(c[3].nsid, 7);
	/* first report chunk: whole device (4 zones), partial bit clear */
	CHECK_INT(c[4].cls, ZNPEMU_CLS_IO);
	CHECK_U64(c[4].opcode, 0x7a);
	CHECK_U64(c[4].nsid, 7);
	CHECK_U64(c[4].cdw10, 0);
	CHECK_U64(c[4].cdw11, 0);
	CHECK_U64(c[4].data_len, 64 + 4 * 64);
	CHECK_U64(c[4].cdw12, (64 + 4 * 64) / 4 - 1);
	CHECK_U64(c[4].cdw13, 0);
	for (int i = 0; i < 5; i++) {
		CHECK_U64(c[i].cdw2 | c[i].cdw3 | c[i].cdw14 | c[i].cdw15, 0);
		CHECK_U64(c[i].metadata_len, 0);
		CHECK_U64(c[i].flags, 0);
	}

	/* report from inside zone 2 (LBA above 2^32), state filter closed */
	ret = znp_report_begin(dev, 0x180000000ull + 5, ZNP_RF_CLOSED, &it);
	CHECK_INT(ret, 0);
	if (!ret) {
		CHECK_U64(znp_report_nr_zones(it), 0);
		znp_report_end(it);
	}
	CHECK(znpemu_last_cmd(0, &c[0]), "recorded");
	CHECK_U64(c[0].opcode, 0x7a);
	CHECK_U64(c[0].cdw10, 0x80000000u);
	CHECK_U64(c[0].cdw11, 1);
	CHECK_U64(c[0].cdw13, 4u << 8);		/* ZRA 0, ZRASF closed, partial 0 */
	CHECK_U64(c[0].data_len, 64 + 2 * 64);	/* zones 2 and 3 left */
	CHECK_U64(c[0].cdw12, c[0].data_len / 4 - 1);

	/* Zone Management Send: open zone 2 */
	ret = znp_zone_mgmt(dev, &r, &done);
	CHECK_INT(ret, 0);
	CHECK_U64(done, 1);
	CHECK(znpemu_last_cmd(0, &c[0]), "recorded");
	CHECK_U64(c[0].opcode, 0x79);
	CHECK_U64(c[0].nsid, 7);
	CHECK_U64(c[0].cdw10, 0x80000000u);
	CHECK_U64(c[0].cdw11, 1);
	CHECK_U64(c[0].cdw13, 0x03);
	CHECK_U64(c[0].data_len, 0);

	/* select-all reset: one command, SLBA 0, bit 8 */
	r = (struct znp_mgmt_req){ .action = ZNP_ZA_RESET, .all = true };
	done = 0;
	ret = znp_zone_mgmt(dev, &r, &done);
	CHECK_INT(ret, 0);
	CHECK_U64(done, 1);
	CHECK(znpemu_last_cmd(0, &c[0]) && znpemu_last_cmd(1, &c[1]), "recorded");
	CHECK_U64(c[0].opcode, 0x79);
	CHECK_U64(c[0].cdw10, 0);
	CHECK_U64(c[0].cdw11, 0);
	CHECK_U64(c[0].cdw13, 0x104);
	CHECK_U64(c[1].cdw13, 0x03);		/* the open before it: nothing in between */

	/* each action's ZSA code */
	for (int a = ZNP_ZA_CLOSE; a <= ZNP_ZA_OFFLINE; a++) {
		r = (struct znp_mgmt_req){ .action = a, .slba = 0, .nr_zones = 1 };
		znp_zone_mgmt(dev, &r, &done);
		CHECK(znpemu_last_cmd(0, &c[0]), "recorded");
		CHECK_U64(c[0].cdw13, (unsigned int)a);
		CHECK_U64(c[0].cdw10, 0);
	}
	znp_dev_close(dev);
}

static uint8_t zcond(const char *name, uint64_t zno)
{
	uint64_t wp;
	uint8_t c = 0;

	znpemu_zone(name, zno, &c, &wp);
	return c;
}

static int mgmt(struct znp_dev *dev, enum znp_zone_action a, uint64_t zno, uint64_t n,
		uint64_t *done)
{
	struct znp_mgmt_req r = {
		.action = a, .slba = zno * dev->geom.zone_size, .nr_zones = n, .all = n == 0,
	};
	uint64_t d;

	return znp_zone_mgmt(dev, &r, done ? done : &d);
}

/* Zone state transitions through znp_zone_mgmt(), checked in the emulator. */
static void case_states(void)
{
	const char *n = "ng0n1";
	struct znp_dev *dev = open_dev(n, ZNP_OPEN_WRITE, 0);
	uint64_t wp, done, cmds;
	uint8_t c;
	int ret;

	if (!dev)
		return;
	CHECK_U64(dev->geom.max_open, 3);
	CHECK_U64(dev->geom.max_active, 4);
	CHECK_INT(mgmt(dev, ZNP_ZA_OPEN, 0, 1, NULL), 0);
	CHECK_U64(zcond(n, 0), ZNP_ZC_EXP_OPEN);
	CHECK_INT(mgmt(dev, ZNP_ZA_CLOSE, 0, 1, NULL), 0);
	CHECK_U64(zcond(n, 0), ZNP_ZC_CLOSED);
	CHECK_INT(mgmt(dev, ZNP_ZA_FINISH, 0, 1, NULL), 0);
	znpemu_zone(n, 0, &c, &wp);
	CHECK_U64(c, ZNP_ZC_FULL);
	CHECK_U64(wp, 20000);			/* zcap of the config */
	CHECK_INT(mgmt(dev, ZNP_ZA_RESET, 0, 1, NULL), 0);
	znpemu_zone(n, 0, &c, &wp);
	CHECK_U64(c, ZNP_ZC_EMPTY);
	CHECK_U64(wp, 0);

	/* offline: only from read-only (zones 5, 6 configured ro) */
	CHECK_INT(mgmt(dev, ZNP_ZA_OFFLINE, 5, 1, NULL), 0);
	CHECK_U64(zcond(n, 5), ZNP_ZC_OFFLINE);
	ret = mgmt(dev, ZNP_ZA_OFFLINE, 1, 1, NULL);
	CHECK(znp_is_nvme_status(ret) && (ret & 0x7ff) == 0x1bf,
	      "offline of an empty zone: %d (%s)", ret, znp_strerror(ret));
	CHECK_U64(zcond(n, 1), ZNP_ZC_EMPTY);
	ret = mgmt(dev, ZNP_ZA_CLOSE, 1, 1, NULL);
	CHECK(znp_is_nvme_status(ret) && (ret & 0x7ff) == 0x1bf, "close of empty: %d", ret);

	/* max open 3: a range of 4 stops after 3 with Too Many Open Zones */
	ret = mgmt(dev, ZNP_ZA_OPEN, 0, 4, &done);
	CHECK(znp_is_nvme_status(ret) && (ret & 0x7ff) == 0x1be,
	      "4th open: %d (%s)", ret, znp_strerror(ret));
	CHECK_U64(done, 3);
	CHECK_U64(znpemu_nr_zones(n, ZNP_ZC_EXP_OPEN), 3);
	CHECK_U64(zcond(n, 3), ZNP_ZC_EMPTY);
	/* close one, then max active 4: 3 open + 1 closed */
	CHECK_INT(mgmt(dev, ZNP_ZA_CLOSE, 0, 1, NULL), 0);
	CHECK_INT(mgmt(dev, ZNP_ZA_OPEN, 3, 1, NULL), 0);
	ret = mgmt(dev, ZNP_ZA_OPEN, 4, 1, NULL);
	CHECK(znp_is_nvme_status(ret) && (ret & 0x7ff) == 0x1bd,
	      "5th active: %d (%s)", ret, znp_strerror(ret));
	CHECK_U64(zcond(n, 4), ZNP_ZC_EMPTY);
	/* finishing a zone frees its resources */
	CHECK_INT(mgmt(dev, ZNP_ZA_FINISH, 3, 1, NULL), 0);
	CHECK_INT(mgmt(dev, ZNP_ZA_OPEN, 4, 1, NULL), 0);

	/* select-all: one command each */
	cmds = znpemu_count(n, ZNPEMU_CLS_IO, 0x79);
	CHECK_INT(mgmt(dev, ZNP_ZA_CLOSE, 0, 0, NULL), 0);
	CHECK_U64(znpemu_nr_zones(n, ZNP_ZC_CLOSED), 4);
	CHECK_U64(znpemu_nr_zones(n, ZNP_ZC_EXP_OPEN), 0);
	CHECK_INT(mgmt(dev, ZNP_ZA_FINISH, 0, 0, NULL), 0);
	CHECK_U64(znpemu_nr_zones(n, ZNP_ZC_FULL), 5);
	CHECK_INT(mgmt(dev, ZNP_ZA_RESET, 0, 0, NULL), 0);
	CHECK_U64(znpemu_nr_zones(n, ZNP_ZC_EMPTY), 14);
	CHECK_U64(zcond(n, 6), ZNP_ZC_READONLY);	/* reset-all leaves ro alone */
	CHECK_INT(mgmt(dev, ZNP_ZA_OFFLINE, 0, 0, NULL), 0);
	CHECK_U64(znpemu_nr_zones(n, ZNP_ZC_OFFLINE), 2);
	CHECK_U64(znpemu_count(n, ZNPEMU_CLS_IO, 0x79) - cmds, 4);

	/* bad requests are refused before anything is sent */
	cmds = znpemu_count(n, ZNPEMU_CLS_IO, -1);
	{
		struct znp_mgmt_req r = { .action = ZNP_ZA_OPEN, .slba = 1, .nr_zones = 1 };
		const char *why;

		CHECK_INT(znp_zone_mgmt_validate(dev, &r, &why), -EINVAL);
		CHECK_INT(znp_zone_mgmt(dev, &r, &done), -EINVAL);
		r.slba = 0;
		r.nr_zones = 17;
		CHECK_INT(znp_zone_mgmt(dev, &r, &done), -EINVAL);
	}
	CHECK_U64(znpemu_count(n, ZNPEMU_CLS_IO, -1), cmds);
	znp_dev_close(dev);
}

/* Report over a geometry; zone count and command count exact. */
static void case_report(const char *n, uint64_t nzones, uint32_t xfer)
{
	struct znp_dev *dev = open_dev(n, 0, 0);
	bool nvme = strncmp(n, "dm-", 3);
	uint64_t cmds, got, want_cmds;
	int err;

	if (!dev)
		return;
	CHECK_U64(dev->geom.nr_zones, nzones);
	if (nvme)
		CHECK_U64(zmr_count(n), 1);	/* probe: one full first chunk */
	got = report_all(n, dev, 0, ZNP_RF_ALL, &cmds, &err);
	CHECK_INT(err, 0);
	CHECK_U64(got, nzones);
	/* block devices: 256 zones per BLKREPORTZONE (the core's choice) */
	want_cmds = nvme ? div_up(nzones, per_cmd(xfer)) : div_up(nzones, 256);
	CHECK_U64(cmds, want_cmds);
	fprintf(stderr, "%s: %" PRIu64 " zones, %" PRIu64 " Zone Management Receive "
		"(ceil(zones*64/MDTS) = %" PRIu64 ")\n", n, got, cmds,
		div_up(nzones * 64, xfer));
	/* every command stayed within the transfer limit */
	for (unsigned int i = 0; nvme && i < (cmds < 256 ? cmds : 256); i++) {
		struct znpemu_cmd c;

		if (znpemu_last_cmd(i, &c))
			CHECK(c.data_len <= xfer && c.cdw12 == c.data_len / 4 - 1,
			      "data_len %u cdw12 %u", c.data_len, c.cdw12);
	}
	/* from the middle of a zone, and filtered */
	got = report_all(n, dev, (nzones / 2) * dev->geom.zone_size + 3, ZNP_RF_ALL, &cmds, &err);
	CHECK_INT(err, 0);
	CHECK_U64(got, nzones - nzones / 2);
	for (int f = ZNP_RF_EMPTY; f <= ZNP_RF_OFFLINE; f++) {
		static const uint8_t fcond[] = { 0, 1, 2, 3, 4, 0xe, 0xd, 0xf };

		got = report_all(n, dev, 0, f, &cmds, &err);
		CHECK_INT(err, 0);
		CHECK_U64(got, znpemu_nr_zones(n, fcond[f]));
		CHECK(!nvme || cmds <= div_up(got, per_cmd(xfer)) + 1, "filter %d: %" PRIu64 " cmds for %"
		      PRIu64 " zones", f, cmds, got);
	}
	znp_dev_close(dev);
}

static void case_report_npo2(void) { case_report("ng0n1", 5000, 128 * 1024); }
static void case_report_last(void)
{
	struct znp_dev *dev;
	struct znp_report_iter *it;
	struct znp_zone z;
	int ret;

	case_report("ng0n1", 11, 512 * 1024);
	dev = open_dev("ng0n1", 0, 0);
	if (!dev)
		return;
	CHECK_U64(dev->geom.nlbas, 10 * 32768 + 1000);
	ret = znp_report_begin(dev, 10 * 32768, ZNP_RF_ALL, &it);
	CHECK_INT(ret, 0);
	if (!ret) {
		CHECK(znp_report_next(it, &z, &ret), "no zone");
		CHECK_U64(z.len, 1000);
		CHECK_U64(z.cap, 1000);
		CHECK(!znp_report_next(it, &z, &ret) && !ret, "not the end");
		znp_report_end(it);
	}
	znp_dev_close(dev);
}
static void case_report_1m(void) { case_report("ng0n1", 1048576, 512 * 1024); }
static void case_report_1m_po2(void) { case_report("ng0n1", 1000000, 128 * 1024); }
static void case_report_xfer(void) { case_report("ng0n1", 10000, 128 * 1024); }
static void case_report_blk(void) { case_report("dm-0", 3000, 1024 * 1024); }

/* NVMe status on the first / a middle / the last report command. */
static void case_fail(uint64_t fail_at_report_cmd, int want)
{
	const char *n = "ng0n1";
	struct znp_dev *dev = open_dev(n, 0, 0);
	struct znp_report_iter *it = NULL;
	uint64_t per = per_cmd(128 * 1024), got = 0;
	struct znp_zone z;
	int ret;

	if (!dev)
		return;
	ret = znp_report_begin(dev, 0, ZNP_RF_ALL, &it);
	if (fail_at_report_cmd == 1) {
		CHECK_INT(ret, want);
		CHECK(it == NULL, "no iterator on failure");
	} else {
		CHECK_INT(ret, 0);
		while (znp_report_next(it, &z, &ret))
			got++;
		CHECK_INT(ret, want);
		CHECK_U64(got, (fail_at_report_cmd - 1) * per);
		znp_report_end(it);
	}
	/* the failing command was the last one sent */
	CHECK_U64(zmr_count(n), 1 + fail_at_report_cmd);
	znp_dev_close(dev);
}

/* 100000 zones, 2047 per command: report = 49 commands, after 1 for probe */
static void case_fail_first(void) { case_fail(1, 0x6); }
static void case_fail_middle(void) { case_fail(25, 0x4002); }
static void case_fail_last(void) { case_fail(49, 0x6); }
static void case_errno_middle(void) { case_fail(25, -EIO); }

static void case_fail_probe(void)
{
	struct znp_dev *dev;

	/* Identify Controller failing: probe reports the status */
	dev = open_dev("ng0n1", 0, 0x6);
	znp_dev_close(dev);
}

/* Malformed report data: -EPROTO wherever it shows up, never a zone past it. */
static void case_malformed(int want_probe, uint64_t bad_zone)
{
	struct znp_dev *dev = open_dev("ng0n1", 0, want_probe);
	struct znp_report_iter *it = NULL;
	struct znp_zone z;
	uint64_t got = 0;
	int ret;

	if (!dev || want_probe) {
		znp_dev_close(dev);
		return;
	}
	ret = znp_report_begin(dev, 0, ZNP_RF_ALL, &it);
	if (!ret) {
		while (znp_report_next(it, &z, &ret)) {
			CHECK(z.start / dev->geom.zone_size < bad_zone, "zone %" PRIu64
			      " delivered past the bad one", z.start / dev->geom.zone_size);
			got++;
		}
		znp_report_end(it);
	}
	CHECK_INT(ret, -EPROTO);
	CHECK(got <= bad_zone, "%" PRIu64 " zones before the bad one", got);	znp_dev_close(dev);
}

static void case_bad_wp(void) { case_malformed(0, 5000); }
static void case_bad_start(void) { case_malformed(0, 5000); }
static void case_bad_cap(void) { case_malformed(0, 5000); }
static void case_bad_cond(void) { case_malformed(0, 5000); }
static void case_short(void) { case_malformed(0, 2047); }
static void case_more_zones(void) { case_malformed(-EPROTO, 0); }
static void case_fewer_zones(void) { case_malformed(-EPROTO, 0); }

/* A namespace seen through its ng and nvme nodes shares one zone state. */
static void case_twin(void)
{
	struct znp_dev *blk = open_dev("nvme0n1", ZNP_OPEN_WRITE, 0);
	struct znp_dev *ng = open_dev("ng0n1", 0, 0);
	struct znp_report_iter *it;
	struct znp_zone z;
	int ret;

	if (!blk || !ng)
		return;
	CHECK_INT(blk->kind, ZNP_DEV_NVME_BLOCK);
	CHECK_INT(ng->kind, ZNP_DEV_NVME_CHAR);
	CHECK_INT(mgmt(blk, ZNP_ZA_OPEN, 2, 1, NULL), 0);
	CHECK_U64(znpemu_count("nvme0n1", ZNPEMU_CLS_IO, 0x79), 1);
	CHECK_U64(znpemu_count("ng0n1", ZNPEMU_CLS_IO, 0x79), 0);
	if (znp_report_begin(ng, 2 * ng->geom.zone_size, ZNP_RF_ALL, &it) == 0) {
		CHECK(znp_report_next(it, &z, &ret), "no zone");
		CHECK_U64(z.cond, ZNP_ZC_EXP_OPEN);
		znp_report_end(it);
	}
	znp_dev_close(blk);
	znp_dev_close(ng);
}

/* Zone management on a (dm-like) zoned block device: BLK*ZONE ioctls. */
static void case_blk_mgmt(void)
{
	const char *n = "dm-0";
	struct znp_dev *dev = open_dev(n, ZNP_OPEN_WRITE, 0);
	struct znpemu_cmd c;
	uint64_t done;

	if (!dev)
		return;
	CHECK_INT(dev->kind, ZNP_DEV_ZONED_BLOCK);
	CHECK_U64(dev->geom.lba_size, 512);
	CHECK_U64(dev->geom.zone_size, 196608);
	CHECK_INT(mgmt(dev, ZNP_ZA_OPEN, 1, 2, &done), 0);
	CHECK_U64(done, 2);
	CHECK_U64(zcond(n, 1), ZNP_ZC_EXP_OPEN);
	CHECK_U64(zcond(n, 2), ZNP_ZC_EXP_OPEN);
	CHECK(znpemu_last_cmd(0, &c), "recorded");
	CHECK_INT(c.cls, ZNPEMU_CLS_BLK);
	CHECK_U64(c.opcode, ZNPEMU_BLK_OPEN);
	CHECK_U64(c.blk_sector, 2 * 196608);
	CHECK_U64(c.blk_nr, 196608);
	CHECK_INT(mgmt(dev, ZNP_ZA_FINISH, 1, 1, NULL), 0);
	CHECK_U64(zcond(n, 1), ZNP_ZC_FULL);
	CHECK_INT(mgmt(dev, ZNP_ZA_CLOSE, 2, 1, NULL), 0);
	CHECK_U64(zcond(n, 2), ZNP_ZC_CLOSED);
	CHECK_INT(mgmt(dev, ZNP_ZA_RESET, 0, 0, NULL), 0);
	CHECK_U64(znpemu_nr_zones(n, ZNP_ZC_EMPTY), 3000);
	CHECK(znpemu_last_cmd(0, &c), "recorded");
	CHECK_U64(c.opcode, ZNPEMU_BLK_RESET);
	CHECK_U64(c.blk_sector, 0);
	CHECK_U64(c.blk_nr, 3000ull * 196608);
	znp_dev_close(dev);
}

/*
 * znp_dev_is_nvme(): true for the NVMe nodes a backend drives, false for
 * other zoned block devices and for a block device that is not zoned
 * (ZNP_OPEN_ANY_BLOCK, as discard opens a conventional namespace's disk).
 */
static void case_is_nvme(void)
{
	static const struct {
		const char *name;
		unsigned int flags;
		enum znp_dev_kind kind;
		bool nvme;
	} t[] = {
		{ "ng0n1", 0, ZNP_DEV_NVME_CHAR, true },
		{ "nvme0n1", 0, ZNP_DEV_NVME_BLOCK, true },
		{ "nvme1n1", ZNP_OPEN_ANY_BLOCK, ZNP_DEV_BLOCK, false },
		{ "dm-0", 0, ZNP_DEV_ZONED_BLOCK, false },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char path[PATH_MAX];
		struct znp_dev *dev = NULL;
		const char *why = NULL;
		int ret;

		if (snprintf(path, sizeof(path), "%s/dev/%s", root, t[i].name) >= (int)sizeof(path))
			continue;
		ret = znp_dev_open(&env, path, t[i].flags, &dev, &why);
		CHECK(ret == 0, "open %s: %d %s", t[i].name, ret, why ? why : "");
		if (ret)
			continue;
		CHECK(dev->kind == t[i].kind, "%s: kind %d, want %d", t[i].name, dev->kind,
		      t[i].kind);
		CHECK(znp_dev_is_nvme(dev) == t[i].nvme, "%s: is_nvme %d", t[i].name,
		      znp_dev_is_nvme(dev));
		znp_dev_close(dev);
	}
	CHECK(!znp_dev_is_nvme(NULL));
}

static const struct tcase {
	const char *name;
	void (*fn)(void);
	const char *conf;
} cases[] = {
	{ "encode", case_encode,
	  "path=dev/ng0n1 nsid=7 lba=512 zsze=0xC0000000 zones=4 mdts=128K max_open=14 max_active=15" },
	{ "states", case_states,
	  "path=dev/ng0n1 zsze=24576 zcap=20000 zones=16 max_open=3 max_active=4 zone=5:ro zone=6:ro" },
	{ "report-npo2", case_report_npo2,
	  "path=dev/ng0n1 zsze=24576 zones=5000 mdts=128K preset=mixed zone=7:eopen zone=9:iopen:77 "
	  "zone=11:ro zone=13:offline" },
	{ "report-last-zone", case_report_last,
	  "path=dev/ng0n1 zsze=32768 zcap=24576 nlbas=328680 preset=mixed" },
	{ "report-1m-npo2", case_report_1m,
	  "path=dev/ng0n1 zsze=4000 zones=1048576 mdts=512K preset=mixed" },
	{ "report-1m-po2", case_report_1m_po2,
	  "path=dev/ng0n1 lba=512 zsze=65536 zcap=50000 zones=1000000 mdts=128K preset=mixed" },
	{ "report-xfer-limit", case_report_xfer,
	  "path=dev/ng0n1 zsze=24576 zones=10000 mdts=2M max_xfer=128K preset=mixed" },
	{ "report-blk", case_report_blk,
	  "path=dev/dm-0 kind=blk lba=512 zsze=196608 zones=3000 max_xfer=1M preset=mixed" },
	{ "fail-first", case_fail_first,
	  "path=dev/ng0n1 zsze=24576 zones=100000 mdts=128K fail_io=0x7a:2:0x6" },
	{ "fail-middle", case_fail_middle,
	  "path=dev/ng0n1 zsze=24576 zones=100000 mdts=128K fail_io=0x7a:26:0x4002" },
	{ "fail-last", case_fail_last,
	  "path=dev/ng0n1 zsze=24576 zones=100000 mdts=128K fail_io=0x7a:50:0x6" },
	{ "errno-middle", case_errno_middle,
	  "path=dev/ng0n1 zsze=24576 zones=100000 mdts=128K errno_io=0x7a:26:5" },
	{ "fail-probe", case_fail_probe,
	  "path=dev/ng0n1 zsze=24576 zones=10 fail_admin=0x06:1:0x6" },
	{ "bad-wp", case_bad_wp, "path=dev/ng0n1 zsze=24576 zones=10000 mdts=128K bad_wp=5000" },
	{ "bad-start", case_bad_start, "path=dev/ng0n1 zsze=24576 zones=10000 mdts=128K bad_start=5000" },
	{ "bad-cap", case_bad_cap, "path=dev/ng0n1 zsze=24576 zones=10000 mdts=128K bad_cap=5000" },
	{ "bad-cond", case_bad_cond, "path=dev/ng0n1 zsze=24576 zones=10000 mdts=128K bad_cond=5000" },
	{ "short-transfer", case_short,
	  "path=dev/ng0n1 zsze=24576 zones=10000 mdts=128K short=2:4096" },
	{ "zone-count-grows", case_more_zones, "path=dev/ng0n1 zsze=24576 zones=10000 zones_delta=1" },
	{ "zone-count-shrinks", case_fewer_zones,
	  "path=dev/ng0n1 zsze=24576 zones=10000 zones_delta=-1" },
	{ "twin-nodes", case_twin,
	  "path=dev/ng0n1 zsze=32768 zones=16\npath=dev/nvme0n1 kind=nvme twin=ng0n1" },
	{ "blk-mgmt", case_blk_mgmt, "path=dev/dm-0 kind=blk lba=512 zsze=196608 zones=3000" },
	{ "is-nvme", case_is_nvme,
	  "path=dev/ng0n1 zsze=24576 zones=16\npath=dev/nvme0n1 kind=nvme twin=ng0n1\n"
	  "path=dev/ng1n1 csi=0 nlbas=100000\npath=dev/nvme1n1 kind=nvme twin=ng1n1\n"
	  "path=dev/dm-0 kind=blk lba=512 zsze=196608 zones=30" },
};

static const struct tcase *find_case(const char *name)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(cases[i].name, name))
			return &cases[i];
	return NULL;
}

/* Parent: build the tree, run the case in a child with the emulator pointed at it. */
static int run_parent(const struct tcase *t, char **argv)
{
	const char *mkfake = getenv("ZNPEMU_MKFAKE");
	char dir[] = "/tmp/znpemu-XXXXXX", conf[PATH_MAX + 16], buf[2 * PATH_MAX];
	char *mk_argv[] = { "python3", (char *)mkfake, dir, NULL };
	char *rm_argv[] = { "rm", "-rf", dir, NULL };
	pid_t pid;
	int st = 0;
	FILE *f;

	if (!mkfake || !mkdtemp(dir)) {
		fprintf(stderr, "need ZNPEMU_MKFAKE and a writable /tmp\n");
		return 1;
	}
	snprintf(conf, sizeof(conf), "%s/emu.conf", dir);
	f = fopen(conf, "w");
	if (!f)
		return 1;
	fprintf(f, "%s\n", t->conf);
	fclose(f);
	if (posix_spawnp(&pid, "python3", NULL, NULL, mk_argv, environ) ||
	    waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "mkfake.py failed\n");
		return 1;
	}
	setenv("ZNP_EMU_CONFIG", conf, 1);
	snprintf(buf, sizeof(buf), "%s/sys", dir);
	setenv("ZNP_SYSFS_ROOT", buf, 1);
	snprintf(buf, sizeof(buf), "%s/dev", dir);
	setenv("ZNP_DEV_ROOT", buf, 1);
	if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ) ||
	    waitpid(pid, &st, 0) < 0)
		st = 1 << 8;
	if (!posix_spawnp(&pid, "rm", NULL, NULL, rm_argv, environ))
		waitpid(pid, NULL, 0);
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "%s: killed by signal %d\n", t->name, WTERMSIG(st));
		return 1;
	}
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	const struct tcase *t = argc == 2 ? find_case(argv[1]) : NULL;
	const char *sys = getenv("ZNP_SYSFS_ROOT"), *devroot = getenv("ZNP_DEV_ROOT");

	if (!t) {
		fprintf(stderr, "usage: %s CASE\ncases:", argv[0]);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			fprintf(stderr, " %s", cases[i].name);
		fputc('\n', stderr);
		return 2;
	}
	if (!getenv("ZNP_EMU_CONFIG"))
		return run_parent(t, argv);
	if (!sys || !devroot || strlen(devroot) < 4)
		return 1;
	snprintf(root, sizeof(root), "%.*s", (int)(strlen(devroot) - 4), devroot);
	env.sysfs_root = sys;
	env.dev_root = devroot;
	t->fn();
	return t_done(t->name);
}
