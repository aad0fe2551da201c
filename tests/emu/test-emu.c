// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Tests of the emulator itself, with raw ioctls: the ZNS state machine
 * (implicit open and close, resource limits, write pointer errors), the
 * kernel-side checks, block ioctls, the stats file and state persistence.
 *
 * Usage: test-emu CASE (runs itself again with ZNP_EMU_CONFIG set).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/blkzoned.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>

#include "../unit/test.h"
#include "znpemu.h"

extern char **environ;
static char dir[PATH_MAX];
static char buf[1 << 16];
static const char *cur = "ng0n1";	/* device expect_zone() looks at */

static int dev_open(const char *name, int flags)
{
	char path[PATH_MAX + 8];
	int fd;

	snprintf(path, sizeof(path), "%s/dev/%s", dir, name);
	fd = open(path, flags);
	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	return fd;
}

/* I/O command: returns the ioctl result (NVMe status, or -errno). */
static int io(int fd, uint8_t opc, uint32_t nsid, uint64_t slba, uint32_t nlb, uint32_t cdw13,
	      uint32_t len, uint64_t *result)
{
	struct nvme_passthru_cmd64 c = {
		.opcode = opc, .nsid = nsid, .cdw10 = (uint32_t)slba,
		.cdw11 = (uint32_t)(slba >> 32), .cdw12 = nlb ? nlb - 1 : 0, .cdw13 = cdw13,
		.addr = (uint64_t)(uintptr_t)buf, .data_len = len,
	};
	int r = ioctl(fd, NVME_IOCTL_IO64_CMD, &c);

	if (result)
		*result = c.result;
	return r < 0 ? -errno : r;
}

static int zms(int fd, uint64_t slba, int action, bool all)
{
	return io(fd, 0x79, 1, slba, 0, (uint32_t)action | (all ? 0x100u : 0), 0, NULL);
}

static int write_lbas(int fd, uint64_t slba, uint32_t nlb)
{
	return io(fd, 0x01, 1, slba, nlb, 0, nlb * 4096, NULL);
}

static void expect_zone(uint64_t zone, uint8_t cond, uint64_t wp)
{
	uint64_t w;
	uint8_t c;

	CHECK(znpemu_zone(cur, zone, &c, &w), "zone %" PRIu64, zone);
	CHECK(c == cond && w == wp, "zone %" PRIu64 ": cond 0x%x wp %" PRIu64 ", want 0x%x %"
	      PRIu64, zone, c, w, cond, wp);
}

static int identify(int fd, uint32_t nsid, uint32_t cdw10, uint32_t cdw11)
{
	struct nvme_passthru_cmd c = {
		.opcode = 0x06, .nsid = nsid, .cdw10 = cdw10, .cdw11 = cdw11,
		.addr = (uint64_t)(uintptr_t)buf, .data_len = 4096,
	};

	memset(buf, 0xaa, 4096);
	return ioctl(fd, NVME_IOCTL_ADMIN_CMD, &c);
}

/* zsze 1000, zcap 800, 8 zones, max open 2, max active 3, MDTS 64K, zone 7 ro */
static void case_statemachine(void)
{
	int fd = dev_open("ng0n1", O_RDWR);
	uint64_t res = 0;
	struct stat st;
	uint8_t *b = (uint8_t *)buf;

	CHECK_INT(fstat(fd, &st), 0);
	CHECK(S_ISCHR(st.st_mode), "mode 0%o", st.st_mode);
	CHECK_U64(major(st.st_rdev), 242);
	CHECK_INT(ioctl(fd, NVME_IOCTL_ID), 1);

	/* Identify: MDTS 2^4 * 4K, MOR/MAR 0-based, zone size */
	CHECK_INT(identify(fd, 0, 1, 0), 0);
	CHECK_U64(b[77], 4);
	CHECK_INT(identify(fd, 1, 5, 2u << 24), 0);
	CHECK_U64(b[4] | b[5] << 8, 2);			/* MAR = 3 - 1 */
	CHECK_U64(b[8] | b[9] << 8, 1);			/* MOR = 2 - 1 */
	CHECK_U64(b[2816] | b[2817] << 8, 1000);	/* LBAFE[0].ZSZE */
	CHECK_INT(identify(fd, 1, 5, 0), 0);		/* NVM command set: zeroes */
	CHECK_INT(identify(fd, 9, 0, 0), 0);		/* inactive NSID: zeroes */
	CHECK_U64(b[0], 0);
	CHECK_INT(identify(fd, 1, 0x42, 0), 0x4002);

	/* writes implicitly open; the write pointer must match */
	CHECK_INT(write_lbas(fd, 0, 8), 0);
	expect_zone(0, 0x2, 8);
	CHECK_INT(write_lbas(fd, 0, 8), 0x1bc);
	CHECK_INT(io(fd, 0x7d, 1, 1000, 4, 0, 4 * 4096, &res), 0);
	CHECK_U64(res, 1000);
	CHECK_INT(io(fd, 0x7d, 1, 1000, 4, 0, 4 * 4096, &res), 0);
	CHECK_U64(res, 1004);
	CHECK_INT(io(fd, 0x7d, 1, 1001, 1, 0, 4096, &res), 0x4002);	/* not a zone start */
	expect_zone(1, 0x2, 1008);
	/* max open 2: a third implicit open closes the first implicitly opened zone */
	CHECK_INT(write_lbas(fd, 2000, 1), 0);
	expect_zone(0, 0x4, 8);
	expect_zone(2, 0x2, 2001);
	/* max active 3: closed + 2 open */
	CHECK_INT(write_lbas(fd, 3000, 1), 0x41bd);
	expect_zone(3, 0x1, 3000);
	/* explicit open of a closed zone takes an open resource from an implicit one */
	CHECK_INT(zms(fd, 0, 3, false), 0);
	expect_zone(0, 0x3, 8);
	expect_zone(1, 0x4, 1008);
	/* two explicitly open zones and no implicit one: too many open */
	CHECK_INT(zms(fd, 1000, 3, false), 0);
	expect_zone(2, 0x4, 2001);
	CHECK_INT(zms(fd, 2000, 3, false), 0x41be);
	/* boundary, then exactly to capacity -> full, then full errors */
	CHECK_INT(io(fd, 0x08, 1, 1008, 800, 0, 0, NULL), 0x1b8);
	CHECK_INT(io(fd, 0x08, 1, 1008, 792, 0, 0, NULL), 0);
	expect_zone(1, 0xe, 1800);
	CHECK_INT(write_lbas(fd, 1800, 1), 0x1b9);
	CHECK_INT(write_lbas(fd, 7000, 1), 0x1ba);
	CHECK_INT(write_lbas(fd, 8000, 1), 0x4080);			/* past the end */
	/* transitions that are not allowed */
	CHECK_INT(zms(fd, 1000, 1, false), 0x1bf);			/* close full */
	CHECK_INT(zms(fd, 4000, 1, false), 0x1bf);			/* close empty */
	CHECK_INT(zms(fd, 4000, 5, false), 0x1bf);			/* offline empty */
	CHECK_INT(zms(fd, 7000, 4, false), 0x1bf);			/* reset read-only */
	CHECK_INT(zms(fd, 7000, 5, false), 0);				/* ro -> offline */
	expect_zone(7, 0xf, 7000);
	CHECK_INT(zms(fd, 4001, 2, false), 0x4002);
	CHECK_INT(zms(fd, 0, 0x10, false), 0x4002);			/* no desc ext */
	/* kernel checks: NSID of the node, transfer limit */
	CHECK_INT(io(fd, 0x01, 2, 4000, 1, 0, 4096, NULL), -EINVAL);
	CHECK_INT(io(fd, 0x7a, 1, 0, 16385, 0, 65536 + 4, NULL), -EINVAL);
	/* report header: partial 0 counts every match from slba, partial 1 what is there */
	CHECK_INT(io(fd, 0x7a, 1, 0, 64 * 4 / 4, 4u << 8, 4 * 64, NULL), 0);	/* closed */
	CHECK_U64(*(uint64_t *)buf, 1);
	CHECK_U64(*(uint64_t *)(buf + 64 + 16), 2000);
	CHECK_U64(*(uint64_t *)(buf + 64 + 24), 2001);
	CHECK_INT(io(fd, 0x7a, 1, 3500, 128 / 4, 0, 128, NULL), 0);	/* 1 desc fits */
	CHECK_U64(*(uint64_t *)buf, 5);
	CHECK_U64(*(uint64_t *)(buf + 64 + 16), 3000);
	CHECK_INT(io(fd, 0x7a, 1, 3500, 128 / 4, 1u << 16, 128, NULL), 0);
	CHECK_U64(*(uint64_t *)buf, 1);
	CHECK_INT(io(fd, 0x7a, 1, 0, 16, 1, 64, NULL), 0x4002);		/* extended: zdes 0 */
	/* select all */
	CHECK_INT(zms(fd, 0, 4, true), 0);
	CHECK_U64(znpemu_nr_zones("ng0n1", 0x1), 7);
	expect_zone(7, 0xf, 7000);
	CHECK_U64(znpemu_count("ng0n1", ZNPEMU_CLS_IO, 0x79), 11);
	close(fd);
}

static void case_blk(void)
{
	struct blk_zone_range zr = { .sector = 0, .nr_sectors = 2048 };
	struct {
		struct blk_zone_report r;
		struct blk_zone z[8];
	} rep = { .r = { .sector = 2048 + 5, .nr_zones = 8 } };
	int fd = dev_open("dm-0", O_RDONLY), fdw;
	uint32_t v32 = 0;
	uint64_t v64 = 0;
	int lbs = 0;

	cur = "dm-0";
	CHECK_INT(ioctl(fd, BLKGETZONESZ, &v32), 0);
	CHECK_U64(v32, 2048);
	CHECK_INT(ioctl(fd, BLKGETNRZONES, &v32), 0);
	CHECK_U64(v32, 4);
	CHECK_INT(ioctl(fd, BLKGETSIZE64, &v64), 0);
	CHECK_U64(v64, (3 * 2048 + 100) * 512ull);
	CHECK_INT(ioctl(fd, BLKSSZGET, &lbs), 0);
	CHECK_INT(lbs, 512);
	CHECK(ioctl(fd, NVME_IOCTL_ID) < 0 && errno == ENOTTY, "NVME_IOCTL_ID on dm");
	CHECK(ioctl(fd, BLKOPENZONE, &zr) < 0 && errno == EBADF, "open zone read-only fd");
	CHECK_INT(ioctl(fd, BLKREPORTZONE, &rep), 0);
	CHECK_U64(rep.r.nr_zones, 3);
	CHECK_U64(rep.z[0].start, 2048);
	CHECK_U64(rep.z[2].len, 100);
	CHECK_U64(rep.z[2].capacity, 100);
	CHECK(rep.r.flags & BLK_ZONE_REP_CAPACITY, "capacity flag");
	close(fd);

	fdw = dev_open("dm-0", O_RDWR);
	CHECK_INT(ioctl(fdw, BLKOPENZONE, &zr), 0);
	expect_zone(0, 0x3, 0);
	zr.sector = 1;
	CHECK(ioctl(fdw, BLKOPENZONE, &zr) < 0 && errno == EINVAL, "unaligned");
	zr = (struct blk_zone_range){ .sector = 2 * 2048, .nr_sectors = 2048 + 100 };
	CHECK_INT(ioctl(fdw, BLKFINISHZONE, &zr), 0);		/* up to capacity: allowed */
	expect_zone(3, 0xe, 3 * 2048 + 100);
	zr = (struct blk_zone_range){ .sector = 2048, .nr_sectors = 2047 };
	CHECK(ioctl(fdw, BLKRESETZONE, &zr) < 0 && errno == EINVAL, "partial zone");
	CHECK_U64(znpemu_count("dm-0", ZNPEMU_CLS_BLK, ZNPEMU_BLK_OPEN), 1);
	close(fdw);
	/* excl_busy: O_EXCL refused like a mounted block device */
	CHECK(open("dev/dm-0", O_RDONLY | O_EXCL) < 0 && errno == EBUSY, "O_EXCL busy");
}

static void case_faults(void)
{
	int fd = dev_open("ng0n1", O_RDONLY);
	int st[6];

	/* fail=3:0x6, fail_io=0x7a:2:0x4002, errno_io=0x79:*:5 */
	for (int i = 0; i < 4; i++)
		st[i] = io(fd, 0x7a, 1, 0, 16, 0, 64, NULL);
	CHECK_INT(st[0], 0);
	CHECK_INT(st[1], 0x4002);
	CHECK_INT(st[2], 0x6);
	CHECK_INT(st[3], 0);
	st[4] = zms(fd, 0, 3, false);
	st[5] = zms(fd, 0, 3, false);
	CHECK_INT(st[4], -EIO);
	CHECK_INT(st[5], -EIO);
	CHECK_U64(znpemu_count("ng0n1", ZNPEMU_CLS_IO, -1), 6);
	close(fd);
}

/* First child: change zones; second child (same state file): see them. */
static void case_persist_write(void)
{
	int fd = dev_open("ng0n1", O_RDWR);

	CHECK_INT(zms(fd, 3 * 96, 3, false), 0);
	CHECK_INT(write_lbas(fd, 5 * 96, 7), 0);
	CHECK_INT(io(fd, 0x7a, 1, 0, 16, 0, 64, NULL), 0);
	close(fd);
}

static void case_persist_check(void)
{
	expect_zone(3, 0x3, 3 * 96);
	expect_zone(5, 0x2, 5 * 96 + 7);
	expect_zone(4, 0x1, 4 * 96);
	CHECK_U64(znpemu_nr_zones("ng0n1", 0x1), 98);
}

static const struct tcase {
	const char *name;
	void (*fn)(void);
	const char *conf;
	const char *then;	/* second child run on the same tree */
	const char *stats;	/* expected line in the stats file */
} cases[] = {
	{ "statemachine", case_statemachine,
	  "path=dev/ng0n1 zsze=1000 zcap=800 zones=8 max_open=2 max_active=3 mdts=64K zone=7:ro",
	  NULL, "ng0n1 io 0x79 11" },
	{ "blk", case_blk,
	  "path=dev/dm-0 kind=blk lba=512 zsze=2048 nlbas=6244 excl_busy=1", NULL,
	  "dm-0 blk 0x03 1" },
	{ "faults", case_faults,
	  "path=dev/ng0n1 zsze=96 zones=4 fail=3:0x6 fail_io=0x7a:2:0x4002 errno_io=0x79:*:5",
	  NULL, "ng0n1 io 0x7a 4" },
	{ "persist", case_persist_write, "path=dev/ng0n1 zsze=96 zones=100 state=zones.state",
	  "persist-check", "ng0n1 io 0x7a 1" },
	{ "persist-check", case_persist_check,
	  "path=dev/ng0n1 zsze=96 zones=100 state=zones.state", NULL, NULL },
};

static const struct tcase *find_case(const char *name)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(cases[i].name, name))
			return &cases[i];
	return NULL;
}

static int spawn_wait(char **argv)
{
	pid_t pid;
	int st;

	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) || waitpid(pid, &st, 0) < 0)
		return 1;
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "%s: signal %d\n", argv[1], WTERMSIG(st));
		return 1;
	}
	return WEXITSTATUS(st);
}

static bool file_has_line(const char *path, const char *want)
{
	char line[256];
	bool found = false;
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)) && line[strlen(want)] == ' ')
			found = true;
	if (f)
		fclose(f);
	return found;
}

static int run_parent(const struct tcase *t)
{
	char tmpl[] = "/tmp/znpemu-XXXXXX", path[PATH_MAX + 32], self[PATH_MAX];
	char *argv[] = { self, (char *)t->name, NULL };
	char *rm_argv[] = { "/bin/rm", "-rf", tmpl, NULL };
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int rc;
	FILE *f;

	if (n < 0 || !mkdtemp(tmpl))
		return 1;
	self[n] = '\0';
	snprintf(path, sizeof(path), "%s/dev", tmpl);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/emu.conf", tmpl);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%s\n", t->conf);
	fclose(f);
	setenv("ZNP_EMU_CONFIG", path, 1);
	snprintf(path, sizeof(path), "%s/stats", tmpl);
	setenv("ZNP_EMU_STATS", path, 1);
	setenv("ZNPEMU_DIR", tmpl, 1);
	rc = spawn_wait(argv);
	if (!rc && t->stats && !file_has_line(path, t->stats)) {
		fprintf(stderr, "%s: stats file lacks \"%s\"\n", t->name, t->stats);
		rc = 1;
	}
	if (!rc && t->then) {
		argv[1] = (char *)t->then;
		rc = spawn_wait(argv);
	}
	spawn_wait(rm_argv);
	fprintf(stderr, "%s: %s\n", t->name, rc ? "FAILED" : "ok");
	return rc;
}

int main(int argc, char **argv)
{
	const struct tcase *t = argc == 2 ? find_case(argv[1]) : NULL;

	if (!t) {
		fprintf(stderr, "usage: %s CASE\n", argv[0]);
		return 2;
	}
	if (!getenv("ZNP_EMU_CONFIG"))
		return run_parent(t);
	snprintf(dir, sizeof(dir), "%s", getenv("ZNPEMU_DIR") ? getenv("ZNPEMU_DIR") : ".");
	if (chdir(dir))
		return 1;
	t->fn();
	return t_done(t->name);
}
