// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zonectl: zone ioctls and pattern I/O for the patched-kernel VM tests.
 *
 * util-linux 2.38 blkzone checks zone alignment with a power-of-2 mask in
 * user space, so it cannot drive zone operations on npo2 zoned devices; this
 * helper passes the range to the kernel unchanged and reports what the
 * kernel said (the errno name), which is what the tests check.
 *
 *   zonectl report DEV [SECTOR [COUNT]]    "start len cap wp cond type" per zone
 *   zonectl reset|open|close|finish DEV SECTOR NR_SECTORS
 *   zonectl write|verify DEV SECTOR BYTES SEED   O_DIRECT pattern I/O
 *   zonectl put DEV SECTOR FILE                  O_DIRECT write of FILE
 *
 * Sectors are 512 bytes. Exit: 0 ok, 1 the kernel refused (errno name on
 * stdout: "error EINVAL"), 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *errno_name(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EIO: return "EIO";
	case EBUSY: return "EBUSY";
	case ENOTTY: return "ENOTTY";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case ENOSPC: return "ENOSPC";
	default: return "EOTHER";
	}
}

static int fail(const char *what, int e)
{
	printf("error %s\n", errno_name(e));
	fprintf(stderr, "zonectl: %s: %s\n", what, strerror(e));
	return 1;
}

static int report(int fd, uint64_t sector, unsigned int count)
{
	unsigned int batch = 64, i;
	struct blk_zone_report *rep;

	rep = calloc(1, sizeof(*rep) + batch * sizeof(struct blk_zone));
	if (!rep)
		return fail("calloc", ENOMEM);
	while (count) {
		rep->sector = sector;
		rep->nr_zones = count < batch ? count : batch;
		if (ioctl(fd, BLKREPORTZONE, rep))
			return fail("BLKREPORTZONE", errno);
		if (!rep->nr_zones)
			break;
		for (i = 0; i < rep->nr_zones; i++) {
			struct blk_zone *z = &rep->zones[i];

			printf("%llu %llu %llu %llu %u %u\n",
			       (unsigned long long)z->start,
			       (unsigned long long)z->len,
			       (unsigned long long)z->capacity,
			       (unsigned long long)z->wp, z->cond, z->type);
			sector = z->start + z->len;
		}
		count -= rep->nr_zones;
	}
	free(rep);
	return 0;
}

static void fill(unsigned char *buf, size_t len, uint64_t off, unsigned int seed)
{
	size_t i;

	/* depends on the byte offset on the device and the seed */
	for (i = 0; i < len; i += 8) {
		uint64_t v = (off + i) * 0x9e3779b97f4a7c15ULL ^ seed;

		memcpy(buf + i, &v, 8);
	}
}

/*
 * Short transfers are continued (zonefs limits a direct write to what one
 * zone write can carry); a transfer of 0 bytes is an error.
 */
static int pattern_io(int fd, int do_write, uint64_t sector, size_t bytes,
		      unsigned int seed)
{
	size_t chunk = 1 << 20, done = 0;
	unsigned char *buf, *want;

	if (posix_memalign((void **)&buf, 4096, chunk) ||
	    posix_memalign((void **)&want, 4096, chunk))
		return fail("posix_memalign", ENOMEM);
	while (done < bytes) {
		size_t n = bytes - done < chunk ? bytes - done : chunk;
		off_t off = (off_t)(sector * 512 + done);
		ssize_t r;

		fill(want, n, off, seed);
		if (do_write)
			r = pwrite(fd, want, n, off);
		else
			r = pread(fd, buf, n, off);
		if (r < 0)
			return fail(do_write ? "pwrite" : "pread", errno);
		if (r == 0 || r % 512)
			return fail("short I/O", EIO);
		if (!do_write && memcmp(buf, want, r)) {
			printf("mismatch in bytes %llu..%llu\n",
			       (unsigned long long)off,
			       (unsigned long long)(off + r - 1));
			return 1;
		}
		done += r;
	}
	return 0;
}

/* put DEV SECTOR FILE: write FILE (a multiple of 4 KiB) with O_DIRECT */
static int put_file(int fd, uint64_t sector, const char *path)
{
	unsigned char *buf;
	ssize_t n;
	int in;

	in = open(path, O_RDONLY);
	if (in < 0)
		return fail(path, errno);
	if (posix_memalign((void **)&buf, 4096, 1 << 20))
		return fail("posix_memalign", ENOMEM);
	n = read(in, buf, 1 << 20);
	if (n <= 0 || n % 4096)
		return fail(path, EINVAL);
	if (pwrite(fd, buf, n, (off_t)(sector * 512)) != n)
		return fail("pwrite", errno);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; unsigned long req; } ops[] = {
		{ "reset", BLKRESETZONE }, { "open", BLKOPENZONE },
		{ "close", BLKCLOSEZONE }, { "finish", BLKFINISHZONE },
	};
	const char *cmd, *dev;
	unsigned int i;
	int fd;

	if (argc < 3)
		goto usage;
	cmd = argv[1];
	dev = argv[2];

	if (!strcmp(cmd, "report")) {
		fd = open(dev, O_RDONLY);
		if (fd < 0)
			return fail(dev, errno);
		return report(fd, argc > 3 ? strtoull(argv[3], NULL, 0) : 0,
			      argc > 4 ? strtoul(argv[4], NULL, 0) : ~0U);
	}
	if (!strcmp(cmd, "write") || !strcmp(cmd, "verify")) {
		int wr = !strcmp(cmd, "write");

		if (argc != 6)
			goto usage;
		fd = open(dev, (wr ? O_WRONLY : O_RDONLY) | O_DIRECT);
		if (fd < 0)
			return fail(dev, errno);
		return pattern_io(fd, wr, strtoull(argv[3], NULL, 0),
				  strtoull(argv[4], NULL, 0),
				  strtoul(argv[5], NULL, 0));
	}
	if (!strcmp(cmd, "put")) {
		if (argc != 5)
			goto usage;
		fd = open(dev, O_WRONLY | O_DIRECT);
		if (fd < 0)
			return fail(dev, errno);
		return put_file(fd, strtoull(argv[3], NULL, 0), argv[4]);
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct blk_zone_range range;

		if (strcmp(cmd, ops[i].name))
			continue;
		if (argc != 5)
			goto usage;
		range.sector = strtoull(argv[3], NULL, 0);
		range.nr_sectors = strtoull(argv[4], NULL, 0);
		fd = open(dev, O_WRONLY);
		if (fd < 0)
			return fail(dev, errno);
		if (ioctl(fd, ops[i].req, &range))
			return fail(cmd, errno);
		return 0;
	}
usage:
	fprintf(stderr, "usage: zonectl report DEV [SECTOR [COUNT]] | "
		"reset|open|close|finish DEV SECTOR NR_SECTORS | "
		"write|verify DEV SECTOR BYTES SEED | put DEV SECTOR FILE\n");
	return 2;
}
