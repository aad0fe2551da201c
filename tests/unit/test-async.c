// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Async engine without a device: SQE and NVMe command encoding byte by
 * byte, range parsing, validation, planning, and the io_uring -> ioctl
 * fallback on a file that supports neither.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <liburing.h>

#include "async.h"
#include "backend.h"
#include "discard.h"
#include "geometry.h"
#include "test.h"
#include "zone-mgmt.h"

static void test_blk_discard_sqe(void)
{
	struct io_uring_sqe sqe;

	memset(&sqe, 0xa5, sizeof(sqe));
	znp_aio_prep_blk_discard(&sqe, 7, 0x123456789000ull, 0x40000);
	CHECK_INT(sqe.opcode, IORING_OP_URING_CMD);
	CHECK_INT(sqe.fd, 7);
	CHECK_U64(sqe.cmd_op, 0x1200);		/* _IO(0x12, 0) */
	CHECK_U64(sqe.__pad1, 0);		/* high half of off */
	CHECK_U64(sqe.addr, 0x123456789000ull);
	CHECK_U64(sqe.addr3, 0x40000);
	CHECK_U64(sqe.len, 0);
	CHECK_U64(sqe.ioprio, 0);
	CHECK_U64(sqe.uring_cmd_flags, 0);
	CHECK_U64(sqe.file_index, 0);
	CHECK_U64(sqe.flags, 0);
	CHECK_U64(sqe.__pad2[0], 0);
}

static void test_nvme_dsm(void)
{
	uint8_t sqe_buf[128], dsm[16];
	struct io_uring_sqe *sqe = (struct io_uring_sqe *)sqe_buf;
	struct nvme_uring_cmd c, *in_sqe;

	memset(dsm, 0xff, sizeof(dsm));
	znp_nvme_encode_dsm(&c, 4, dsm, 0x1122334455ull, 0x800);
	CHECK_INT(c.opcode, 0x09);
	CHECK_INT(c.nsid, 4);
	CHECK_U64(c.cdw10, 0);			/* one range, 0's based */
	CHECK_U64(c.cdw11, 1u << 2);		/* AD */
	CHECK_U64(c.data_len, 16);
	CHECK_U64(c.addr, (uintptr_t)dsm);
	CHECK_U64(c.cdw12 | c.cdw13 | c.cdw14 | c.cdw15, 0);
	/* range descriptor: context attributes, length in LBAs, starting LBA (LE) */
	CHECK_U64(dsm[0] | dsm[1] | dsm[2] | dsm[3], 0);
	CHECK_U64(dsm[4] | dsm[5] << 8 | dsm[6] << 16 | (uint32_t)dsm[7] << 24, 0x800);
	CHECK_U64(dsm[8], 0x55);
	CHECK_U64(dsm[12], 0x11);
	CHECK_U64(dsm[13] | dsm[14] | dsm[15], 0);

	memset(sqe_buf, 0xa5, sizeof(sqe_buf));
	znp_aio_prep_nvme(sqe, 9, &c);
	CHECK_INT(sqe->opcode, IORING_OP_URING_CMD);
	CHECK_INT(sqe->fd, 9);
	CHECK_U64(sqe->cmd_op, NVME_URING_CMD_IO);
	CHECK_U64(sqe->len | sqe->uring_cmd_flags | sqe->ioprio | sqe->file_index, 0);
	/* the command lives in the 80 bytes from offset 48 of the 128-byte SQE */
	CHECK_U64((uint8_t *)sqe->cmd - sqe_buf, 48);
	in_sqe = (struct nvme_uring_cmd *)sqe->cmd;
	CHECK(!memcmp(in_sqe, &c, sizeof(c)), "command copied into the SQE");
	CHECK_INT(sqe_buf[48 + sizeof(c)], 0);	/* rest of the 80 bytes zeroed */
	CHECK_INT(sqe_buf[127], 0);
}

static void test_nvme_zone_mgmt(void)
{
	struct nvme_uring_cmd c;

	znp_nvme_encode_zone_mgmt(&c, 2, 0x123456789ull, ZNP_ZA_RESET, false);
	CHECK_INT(c.opcode, 0x79);
	CHECK_INT(c.nsid, 2);
	CHECK_U64(c.cdw10, 0x23456789);
	CHECK_U64(c.cdw11, 0x1);
	CHECK_U64(c.cdw13, 0x4);
	CHECK_U64(c.addr | c.data_len | c.cdw12 | c.cdw14 | c.cdw15, 0);
	znp_nvme_encode_zone_mgmt(&c, 1, 0, ZNP_ZA_FINISH, true);
	CHECK_U64(c.cdw13, 0x2 | 0x100);	/* select all */
	znp_nvme_encode_zone_mgmt(&c, 1, 96, ZNP_ZA_OPEN, false);
	CHECK_U64(c.cdw13, 0x3);
	znp_nvme_encode_zone_mgmt(&c, 1, 96, ZNP_ZA_CLOSE, false);
	CHECK_U64(c.cdw13, 0x1);
}

/* Stand-in for the CLI's number parser: decimal/hex, K and MiB. */
static int tparse(const char *s, uint64_t *v, const char **why)
{
	char *end;

	if (*s < '0' || *s > '9') {
		*why = "not a number";
		return -EINVAL;
	}
	*v = strtoull(s, &end, 0);
	if (!strcmp(end, "K"))
		*v <<= 10;
	else if (!strcmp(end, "MiB"))
		*v <<= 20;
	else if (*end) {
		*why = "unknown suffix";
		return -EINVAL;
	}
	return 0;
}

static void test_parse(void)
{
	const char *text = "# offset length\n0 4096\n\n 8K,4K  # comment\n0x10000 1MiB\n";
	struct znp_range_list l = { 0 };
	const char *why = NULL;
	size_t line;
	FILE *f;

	f = fmemopen((void *)text, strlen(text), "r");
	CHECK_INT(znp_range_list_read(f, tparse, &l, &line, &why), 0);
	fclose(f);
	CHECK_U64(l.nr, 3);
	CHECK_U64(l.r[1].start, 8192);
	CHECK_U64(l.r[1].len, 4096);
	CHECK_U64(l.r[2].start, 0x10000);
	CHECK_U64(l.r[2].len, 1 << 20);
	CHECK_U64(line, 5);
	znp_range_list_free(&l);

	f = fmemopen((void *)"0 4096\n4096\n", 12, "r");
	CHECK_INT(znp_range_list_read(f, tparse, &l, &line, &why), -EINVAL);
	CHECK_U64(line, 2);
	CHECK_STR(why, "expected \"OFFSET LENGTH\"");
	fclose(f);
	znp_range_list_free(&l);

	/* a line longer than the 511 bytes read at once is refused, not split */
	{
		char longline[700];

		memset(longline, ' ', sizeof(longline));
		memcpy(longline, "0 4096", 6);
		memcpy(longline + sizeof(longline) - 8, "4096 8\n", 8);
		f = fmemopen(longline, sizeof(longline), "r");
		CHECK_INT(znp_range_list_read(f, tparse, &l, &line, &why), -EINVAL);
		CHECK_U64(line, 1);
		CHECK_STR(why, "line too long");
		CHECK_U64(l.nr, 0);
		fclose(f);
		znp_range_list_free(&l);
	}
	/* ... but a last line without a newline is read */
	f = fmemopen((void *)"0 4096\n8192 4096", 17, "r");
	CHECK_INT(znp_range_list_read(f, tparse, &l, &line, &why), 0);
	CHECK_U64(l.nr, 2);
	CHECK_U64(l.r[1].start, 8192);
	fclose(f);
	znp_range_list_free(&l);
	f = fmemopen((void *)"0 4096 8\n", 9, "r");
	CHECK_INT(znp_range_list_read(f, tparse, &l, &line, &why), -EINVAL);
	fclose(f);
	znp_range_list_free(&l);
	f = fmemopen((void *)"4096 12X\n", 9, "r");
	CHECK_INT(znp_range_list_read(f, tparse, &l, &line, &why), -EINVAL);
	CHECK_STR(why, "unknown suffix");
	CHECK_U64(l.nr, 0);
	fclose(f);
	znp_range_list_free(&l);
}

static void test_validate_block(void)
{
	struct znp_discard_target t = {
		.type = ZNP_DT_BLOCK, .fd = -1, .lba_size = 512,
		.size = 1 << 20, .granularity = 4096,
	};
	struct znp_aio_range r[3] = { { 0, 4096 }, { 8192, 8192 }, { 65536, 4096 } };
	const char *why = NULL;
	struct znp_aio_job job;
	size_t bad = 99;

	CHECK_INT(znp_discard_validate(&t, r, 3, &bad, &why), 0);
	r[1].start = 512;
	CHECK_INT(znp_discard_validate(&t, r, 3, &bad, &why), -EINVAL);
	CHECK_U64(bad, 1);
	CHECK_STR(why, "not aligned to the discard granularity");
	r[1].start = 100;
	CHECK_INT(znp_discard_validate(&t, r, 3, &bad, &why), -EINVAL);
	CHECK_STR(why, "not a multiple of the logical block size");
	r[1].start = 8192;
	r[2].len = 0;
	CHECK_INT(znp_discard_validate(&t, r, 3, &bad, &why), -EINVAL);
	CHECK_U64(bad, 2);
	CHECK_STR(why, "length is zero");
	r[2].start = (1 << 20) - 4096;
	r[2].len = 8192;
	CHECK_INT(znp_discard_validate(&t, r, 3, &bad, &why), -EINVAL);
	CHECK_STR(why, "past the end of the device");
	r[2].start = UINT64_MAX - 4095;
	r[2].len = 1 << 20;
	CHECK_INT(znp_discard_validate(&t, r, 3, &bad, &why), -EINVAL);
	CHECK_STR(why, "past the end of the device");
	/* overlap, given out of order: reported on the later range */
	r[2].start = 12288;
	r[2].len = 4096;
	CHECK_INT(znp_discard_validate(&t, r, 3, &bad, &why), -EINVAL);
	CHECK_STR(why, "overlaps another range");
	CHECK_U64(bad, 2);
	/* adjacent is fine */
	r[2].start = 16384;
	CHECK_INT(znp_discard_validate(&t, r, 3, &bad, &why), 0);
	/* two ranges are checked for overlap too, one alone needs no check */
	{
		struct znp_aio_range two[2] = { { 8192, 8192 }, { 4096, 8192 } };

		CHECK_INT(znp_discard_validate(&t, two, 2, &bad, &why), -EINVAL);
		CHECK_STR(why, "overlaps another range");
		CHECK_U64(bad, 1);
		two[1].len = 4096;
		CHECK_INT(znp_discard_validate(&t, two, 2, &bad, &why), 0);
		CHECK_INT(znp_discard_validate(&t, two, 1, &bad, &why), 0);
	}
	/* a range that ends at the last byte of the device is inside it */
	{
		struct znp_aio_range last = { (1 << 20) - 8192, 8192 };

		CHECK_INT(znp_discard_validate(&t, &last, 1, &bad, &why), 0);
		last.start = 0;
		last.len = 1 << 20;
		CHECK_INT(znp_discard_validate(&t, &last, 1, &bad, &why), 0);
	}

	CHECK_INT(znp_discard_plan(&t, r, 3, &job), 0);
	CHECK_INT(job.kind, ZNP_AIO_BLK_DISCARD);
	CHECK_U64(job.nr, 3);
	CHECK_U64(job.ranges[1].start, 8192);
	CHECK_U64(job.ranges[1].len, 8192);
	znp_discard_plan_free(&job);
}

static void test_nvme_plan(void)
{
	struct znp_dev dev;
	struct znp_discard_target t = {
		.type = ZNP_DT_NVME_CONV, .fd = -1, .lba_size = 512,
		.granularity = 512, .dev = &dev,
	};
	struct znp_aio_range r = { 4096, (0x100000000ull + 10) * 512 };
	struct znp_aio_job job;

	memset(&dev, 0, sizeof(dev));
	dev.ns.nsid = 3;
	t.size = 0x200000000ull * 512;
	CHECK_INT(znp_discard_plan(&t, &r, 1, &job), 0);
	CHECK_INT(job.kind, ZNP_AIO_NVME_DSM);
	CHECK_INT(job.nsid, 3);
	CHECK_U64(job.nr, 2);			/* split at the 32-bit NLB limit */
	CHECK_U64(job.ranges[0].start, 8);
	CHECK_U64(job.ranges[0].len, 0xffffffffull);
	CHECK_U64(job.ranges[1].start, 8 + 0xffffffffull);
	CHECK_U64(job.ranges[1].len, 11);
	znp_discard_plan_free(&job);
	/* one LBA above the limit: a range of the limit and one of a single LBA */
	r.len = (0x100000000ull) * 512;
	CHECK_INT(znp_discard_plan(&t, &r, 1, &job), 0);
	CHECK_U64(job.nr, 2);
	CHECK_U64(job.ranges[0].len, 0xffffffffull);
	CHECK_U64(job.ranges[1].start, 8 + 0xffffffffull);
	CHECK_U64(job.ranges[1].len, 1);
	znp_discard_plan_free(&job);
}

static void test_zoned(void)
{
	struct znp_dev dev;
	struct znp_discard_target t = {
		.type = ZNP_DT_ZONED, .fd = -1, .lba_size = 4096,
		.granularity = 4096, .dev = &dev,
	};
	struct znp_aio_range r[2];
	const char *why = NULL;
	struct znp_aio_job job;
	uint64_t zbytes;
	size_t bad;

	memset(&dev, 0, sizeof(dev));
	dev.geom.lba_size = 4096;
	dev.geom.zone_size = 24576;		/* 96 MiB: npo2 */
	dev.geom.zone_cap = 24576;
	dev.geom.nlbas = 24576 * 10 + 100;	/* short last zone */
	CHECK_INT(znp_geom_init(&dev.geom), 0);
	t.size = dev.geom.nlbas * 4096;
	zbytes = 24576ull * 4096;
	r[0].start = zbytes;			/* zones 1..2 */
	r[0].len = 2 * zbytes;
	r[1].start = 10 * zbytes;		/* the short last zone */
	r[1].len = 100 * 4096;
	CHECK_INT(znp_discard_validate(&t, r, 2, &bad, &why), 0);
	CHECK_INT(znp_discard_plan(&t, r, 2, &job), 0);
	CHECK_INT(job.kind, ZNP_AIO_NVME_ZONE_MGMT);
	CHECK_INT(job.zone_action, ZNP_ZA_RESET);
	CHECK_U64(job.ranges[0].start, 24576);
	CHECK_U64(job.ranges[0].len, 2 * 24576);
	znp_discard_plan_free(&job);
	r[0].len = zbytes + 4096;		/* one zone and a bit */
	CHECK_INT(znp_discard_validate(&t, r, 2, &bad, &why), -EINVAL);
	CHECK_U64(bad, 0);
	CHECK(why && strstr(why, "part of a zone"), "why = %s", why);
	r[0].start = zbytes + 4096;		/* not a zone start */
	r[0].len = zbytes - 4096;
	CHECK_INT(znp_discard_validate(&t, r, 2, &bad, &why), -EINVAL);
}

struct prog {
	unsigned int calls;
	uint64_t last_done;
};

static void on_progress(const struct znp_aio_progress *p, void *arg)
{
	struct prog *pr = arg;

	pr->calls++;
	pr->last_done = p->cmds_done;
}

/* A regular file supports neither uring discard nor BLKDISCARD. */
static void test_fallback(void)
{
	char path[] = "/tmp/znp-test-async-XXXXXX";
	struct znp_aio_range r[4] = { { 0, 4096 }, { 4096, 4096 }, { 8192, 4096 }, { 12288, 4096 } };
	struct znp_aio_job job = { .kind = ZNP_AIO_BLK_DISCARD, .ranges = r, .nr = 4, .qd = 4 };
	atomic_int stop = 0;
	struct znp_aio_result res;
	struct prog pr = { 0 };
	int fd, ret;

	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	unlink(path);
	job.fd = fd;
	job.progress = on_progress;
	job.progress_arg = &pr;
	ret = znp_aio_run(&job, &res);
	CHECK_INT(ret, -ENOTTY);
	CHECK_INT(res.fallbacks, 1);
	CHECK_INT(res.fallback_reason, -EOPNOTSUPP);
	CHECK_STR(znp_aio_engine_name(res.engine), "blkdiscard-ioctl");
	CHECK_U64(res.submitted, 1);		/* stops at the first failure */
	CHECK_U64(res.failed, 1);
	CHECK_U64(res.completed, 0);
	CHECK_U64(res.first_err_idx, 0);
	CHECK(pr.calls >= 1, "progress reported");
	CHECK_U64(pr.last_done, 1);

	job.force_sync = true;
	ret = znp_aio_run(&job, &res);
	CHECK_INT(ret, -ENOTTY);
	CHECK_INT(res.fallbacks, 0);
	CHECK_STR(znp_aio_engine_name(res.engine), "blkdiscard-ioctl");

	/* a stop request before the start: nothing is sent */
	stop = 1;
	job.stop = &stop;
	ret = znp_aio_run(&job, &res);
	CHECK_INT(ret, -EINTR);
	CHECK_U64(res.submitted, 0);
	CHECK(res.interrupted, "interrupted");
	job.force_sync = false;
	ret = znp_aio_run(&job, &res);
	CHECK_INT(ret, -EINTR);
	CHECK_U64(res.submitted, 0);

	/* NVMe passthrough on a non-NVMe file: refused, then the ioctl fails too */
	stop = 0;
	job.kind = ZNP_AIO_NVME_ZONE_MGMT;
	job.lba_size = 4096;
	job.nsid = 1;
	ret = znp_aio_run(&job, &res);
	CHECK(ret < 0, "ret = %d", ret);
	CHECK_U64(res.completed, 0);
	CHECK_U64(res.failed, 1);
	close(fd);
}

struct totals {
	uint64_t cmds_total;
	uint64_t bytes_total;
};

static void on_totals(const struct znp_aio_progress *p, void *arg)
{
	struct totals *t = arg;

	t->cmds_total = p->cmds_total;
	t->bytes_total = p->bytes_total;
}

/* Zone batches: split into one command per zone (npo2, short last zone). */
static void test_zone_batch(void)
{
	char path[] = "/tmp/znp-test-zbatch-XXXXXX";
	struct znp_aio_range r[2];
	struct znp_aio_result res;
	struct totals tot = { 0 };
	struct znp_mgmt_opts o = { .qd = 8, .progress = on_totals, .progress_arg = &tot };
	struct znp_mgmt_req req = { .action = ZNP_ZA_FINISH, .all = true };
	struct znp_dev dev;
	int ret;

	memset(&dev, 0, sizeof(dev));
	dev.fd = mkstemp(path);
	CHECK(dev.fd >= 0, "mkstemp");
	if (dev.fd < 0)
		return;
	unlink(path);
	dev.kind = ZNP_DEV_NVME_CHAR;
	dev.ns.nsid = 1;
	dev.geom.lba_size = 4096;
	dev.geom.zone_size = 192;		/* 768 KiB: npo2 */
	dev.geom.zone_cap = 192;
	dev.geom.nlbas = 192 * 10 + 64;		/* 11 zones, the last one short */
	CHECK_INT(znp_geom_init(&dev.geom), 0);
	r[0].start = 192;			/* zones 1, 2 */
	r[0].len = 2 * 192;
	r[1].start = 192 * 10;			/* zone 10, 64 LBAs */
	r[1].len = 64;
	ret = znp_zone_mgmt_ranges(&dev, ZNP_ZA_RESET, r, 2, &o, &res);
	CHECK(ret < 0, "ret = %d (a regular file is no NVMe device)", ret);
	CHECK_U64(tot.cmds_total, 3);		/* one command per zone */
	CHECK_U64(tot.bytes_total, (2 * 192 + 64) * 4096ull);
	CHECK_U64(res.failed, 1);
	CHECK_U64(res.first_err_idx, 0);

	/* block devices: one range ioctl per range, zones counted */
	dev.kind = ZNP_DEV_ZONED_BLOCK;
	ret = znp_zone_mgmt_ranges(&dev, ZNP_ZA_RESET, r, 2, &o, &res);
	CHECK_INT(ret, -ENOTTY);
	CHECK_STR(znp_aio_engine_name(res.engine), "blkzone-ioctl");
	CHECK_U64(res.submitted, 2);		/* the first range: zones 1 and 2 */
	CHECK_U64(res.failed, 2);
	CHECK_INT(znp_zone_mgmt_ranges(&dev, ZNP_ZA_OFFLINE, r, 2, &o, &res), -EOPNOTSUPP);
	/*
	 * select-all finish on a block device: the backend walks the zones
	 * (BLKREPORTZONE first, which a regular file does not answer); the
	 * engine no longer refuses what the backend implements
	 */
	dev.be = &znp_backend_blk;
	dev.is_zoned = true;
	CHECK_INT(znp_zone_mgmt_run(&dev, &req, &o, &res), -ENOTTY);
	CHECK_U64(res.failed, 1);
	close(dev.fd);
}

int main(void)
{
	test_blk_discard_sqe();
	test_nvme_dsm();
	test_nvme_zone_mgmt();
	test_parse();
	test_validate_block();
	test_nvme_plan();
	test_zoned();
	test_fallback();
	test_zone_batch();
	return t_done("test-async");
}
