// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nvme-pattern: write or verify a deterministic data pattern on an NVMe
 * namespace through its generic character device (/dev/ngXnY), so VM tests
 * can move write pointers and check data on namespaces whose block device
 * the kernel hides.  Built statically: it starts fast under TCG.
 *
 *   nvme-pattern write  DEV SLBA NLB LBA_SIZE SEED   (NVMe Write)
 *   nvme-pattern verify DEV SLBA NLB LBA_SIZE SEED   (NVMe Read + compare)
 *   nvme-pattern gen    -   SLBA NLB LBA_SIZE SEED   (the pattern on stdout, to
 *                                                     write or compare through
 *                                                     another path)
 *
 * Every byte of LBA n is a function of (SEED, n).  Exit: 0 ok, 1 command
 * failed or data mismatch, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <linux/nvme_ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define OP_WRITE	0x01
#define OP_READ		0x02
#define CHUNK_BYTES	(64 * 1024)	/* under the 255-sector default of hidden namespaces */

static void fill(unsigned char *buf, uint64_t lba, unsigned int lbas,
		 unsigned int lba_size, unsigned int seed)
{
	for (unsigned int i = 0; i < lbas; i++) {
		uint64_t x = (lba + i) * 0x9e3779b97f4a7c15ULL ^ seed;

		for (unsigned int j = 0; j < lba_size; j += 8) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			memcpy(buf + (size_t)i * lba_size + j, &x, 8);
		}
	}
}

static int io(int fd, unsigned int nsid, int opcode, uint64_t slba,
	      unsigned int nlb, void *buf, unsigned int len)
{
	struct nvme_passthru_cmd64 cmd = {
		.opcode = opcode,
		.nsid = nsid,
		.addr = (uintptr_t)buf,
		.data_len = len,
		.cdw10 = (uint32_t)slba,
		.cdw11 = (uint32_t)(slba >> 32),
		.cdw12 = nlb - 1,
		.timeout_ms = 30000,
	};

	return ioctl(fd, NVME_IOCTL_IO64_CMD, &cmd);
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: %s write|verify|gen DEV SLBA NLB LBA_SIZE SEED\n", argv[0]);
		return 2;
	}
	const char *mode = argv[1], *dev = argv[2];
	uint64_t slba = strtoull(argv[3], NULL, 0);
	uint64_t nlb = strtoull(argv[4], NULL, 0);
	unsigned int lba_size = strtoul(argv[5], NULL, 0);
	unsigned int seed = strtoul(argv[6], NULL, 0);
	int opcode = !strcmp(mode, "write") ? OP_WRITE :
		     !strcmp(mode, "verify") ? OP_READ : -1;
	bool gen = !strcmp(mode, "gen");

	if ((opcode < 0 && !gen) || !nlb || lba_size < 512 || lba_size % 8) {
		fprintf(stderr, "%s: bad arguments\n", argv[0]);
		return 2;
	}
	if (gen) {
		unsigned char *b = malloc(lba_size);

		if (!b)
			return 1;
		for (uint64_t i = 0; i < nlb; i++) {
			fill(b, slba + i, 1, lba_size, seed);
			if (fwrite(b, lba_size, 1, stdout) != 1)
				return 1;
		}
		return fflush(stdout) ? 1 : 0;
	}
	int fd = open(dev, opcode == OP_READ ? O_RDONLY : O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], dev, strerror(errno));
		return 1;
	}
	int nsid = ioctl(fd, NVME_IOCTL_ID);
	if (nsid <= 0) {
		fprintf(stderr, "%s: %s: cannot get NSID: %s\n", argv[0], dev, strerror(errno));
		return 1;
	}
	unsigned int per = CHUNK_BYTES / lba_size;
	unsigned char *buf = malloc((size_t)per * lba_size);
	unsigned char *want = malloc((size_t)per * lba_size);
	if (!buf || !want)
		return 1;

	for (uint64_t done = 0; done < nlb;) {
		unsigned int n = nlb - done < per ? nlb - done : per;
		uint64_t lba = slba + done;
		int ret;

		if (opcode == OP_READ) {
			ret = io(fd, nsid, OP_READ, lba, n, buf, n * lba_size);
			if (!ret) {
				fill(want, lba, n, lba_size, seed);
				if (memcmp(buf, want, (size_t)n * lba_size)) {
					fprintf(stderr, "%s: %s: data mismatch in LBAs %" PRIu64 "..%" PRIu64 "\n",
						argv[0], dev, lba, lba + n - 1);
					return 1;
				}
			}
		} else {
			fill(buf, lba, n, lba_size, seed);
			ret = io(fd, nsid, OP_WRITE, lba, n, buf, n * lba_size);
		}
		if (ret) {
			if (ret < 0)
				fprintf(stderr, "%s: %s: %s at LBA %" PRIu64 ": %s\n", argv[0], dev, mode, lba, strerror(errno));
			else
				fprintf(stderr, "%s: %s: %s at LBA %" PRIu64 ": NVMe status 0x%x\n", argv[0], dev, mode, lba, ret);
			return 1;
		}
		done += n;
	}
	return 0;
}
