// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * zsend: guest-side setup helper for the async VM tests and benchmark, built
 * statically. Sends one synchronous Zone Management Send per zone through
 * the NVMe generic char device, independently of nvme-zns-npo2:
 *   zsend DEV ACTION FIRST_ZONE NR_ZONES ZONE_LBAS
 * ACTION: close 1, finish 2, open 3, reset 4. Exit: 0 ok, 1 a command failed, 2 usage.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/nvme_ioctl.h>

int main(int argc, char **argv)
{
	struct nvme_passthru_cmd c;
	uint64_t first, nr, zl, z, slba;
	int fd, nsid, action;

	if (argc != 6) {
		fprintf(stderr, "usage: zsend DEV ACTION FIRST_ZONE NR_ZONES ZONE_LBAS\n");
		return 2;
	}
	action = atoi(argv[2]);
	first = strtoull(argv[3], NULL, 0);
	nr = strtoull(argv[4], NULL, 0);
	zl = strtoull(argv[5], NULL, 0);
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || (nsid = ioctl(fd, NVME_IOCTL_ID)) <= 0) {
		perror(argv[1]);
		return 2;
	}
	for (z = first; z < first + nr; z++) {
		slba = z * zl;
		memset(&c, 0, sizeof(c));
		c.opcode = 0x79;
		c.nsid = (uint32_t)nsid;
		c.cdw10 = (uint32_t)slba;
		c.cdw11 = (uint32_t)(slba >> 32);
		c.cdw13 = (uint32_t)action;
		if (ioctl(fd, NVME_IOCTL_IO_CMD, &c)) {
			fprintf(stderr, "zsend: zone %llu: failed\n", (unsigned long long)z);
			return 1;
		}
	}
	close(fd);
	return 0;
}
