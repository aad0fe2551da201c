// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * blocktags: 4 KiB blocks that say who they are, to count how many times a
 * file system's data reached a zoned namespace (a Zone Append applied twice
 * leaves a block twice). Built statically for the VM tests.
 *
 *   blocktags gen TAG NBLOCKS                 NBLOCKS blocks of file TAG on stdout
 *   blocktags scan NG SLBA NLB LBA_SIZE       read LBAs [SLBA, SLBA+NLB) of the
 *                                             namespace through its generic node
 *                                             (NVMe Read) and print one line per
 *                                             tagged block found: TAG BLOCK LBA
 *                                             and "ok" or "torn" (the rest of the
 *                                             block is not that block's)
 *
 * A block starts with "ZNPBLK1 TAG BLOCK\n" (TAG: no blanks, up to 64
 * characters); the rest is a function of (TAG, BLOCK). Exit: 0 ok, 1 I/O
 * error, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/nvme_ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define BLK	4096
#define MAGIC	"ZNPBLK1 "
#define CHUNK	(64 * 1024)	/* under the 255-sector limit of hidden namespaces */

static void fill(unsigned char *b, const char *tag, uint64_t blk)
{
	uint64_t x = 0xcbf29ce484222325ULL ^ blk;
	int n;

	for (const char *p = tag; *p; p++)
		x = (x ^ (unsigned char)*p) * 0x100000001b3ULL;
	for (size_t j = 0; j < BLK; j += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(b + j, &x, 8);
	}
	n = snprintf((char *)b, 96, MAGIC "%s %" PRIu64 "\n", tag, blk);
	b[n] = 0;
}

static int gen(const char *tag, uint64_t n)
{
	unsigned char b[BLK];

	if (strlen(tag) > 64 || strpbrk(tag, " \n"))
		return 2;
	for (uint64_t i = 0; i < n; i++) {
		fill(b, tag, i);
		if (fwrite(b, BLK, 1, stdout) != 1)
			return 1;
	}
	return fflush(stdout) ? 1 : 0;
}

static void look(const unsigned char *b, uint64_t lba)
{
	unsigned char want[BLK];
	char tag[80];
	uint64_t blk;

	if (memcmp(b, MAGIC, strlen(MAGIC)))
		return;
	if (sscanf((const char *)b + strlen(MAGIC), "%64s %" SCNu64, tag, &blk) != 2) {
		printf("? ? %" PRIu64 " torn\n", lba);
		return;
	}
	fill(want, tag, blk);
	printf("%s %" PRIu64 " %" PRIu64 " %s\n", tag, blk, lba, memcmp(b, want, BLK) ? "torn" : "ok");
}

static int scan(const char *dev, uint64_t slba, uint64_t nlb, unsigned int lbs)
{
	unsigned char *buf = aligned_alloc(4096, CHUNK);
	int fd = open(dev, O_RDONLY), nsid;

	if (!buf || lbs < 512 || BLK % lbs)
		return 2;
	if (fd < 0 || (nsid = ioctl(fd, NVME_IOCTL_ID)) <= 0) {
		fprintf(stderr, "blocktags: %s: %s\n", dev, strerror(errno));
		return 1;
	}
	for (uint64_t done = 0; done < nlb;) {
		unsigned int n = nlb - done < CHUNK / lbs ? (unsigned int)(nlb - done) : CHUNK / lbs;
		struct nvme_passthru_cmd64 cmd = {
			.opcode = 0x02,
			.nsid = (uint32_t)nsid,
			.addr = (uintptr_t)buf,
			.data_len = n * lbs,
			.cdw10 = (uint32_t)(slba + done),
			.cdw11 = (uint32_t)((slba + done) >> 32),
			.cdw12 = n - 1,
			.timeout_ms = 30000,
		};
		int ret = ioctl(fd, NVME_IOCTL_IO64_CMD, &cmd);

		if (ret) {
			fprintf(stderr, "blocktags: %s: read at LBA %" PRIu64 ": %s %d\n", dev,
				slba + done, ret < 0 ? strerror(errno) : "NVMe status", ret);
			return 1;
		}
		for (unsigned int off = 0; off + BLK <= n * lbs; off += BLK)
			look(buf + off, slba + done + off / lbs);
		done += n;
	}
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], strtoull(argv[3], NULL, 0));
	if (argc == 6 && !strcmp(argv[1], "scan"))
		return scan(argv[2], strtoull(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
			    (unsigned int)strtoul(argv[5], NULL, 0));
	fprintf(stderr, "usage: blocktags gen TAG NBLOCKS | scan NG SLBA NLB LBA_SIZE\n");
	return 2;
}
