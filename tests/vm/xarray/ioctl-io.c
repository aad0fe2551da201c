// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ioctl-io CTRL-DEV NSID LBA-SIZE: one NVMe Read of LBA 0 through
 * NVME_IOCTL_IO_CMD on the controller character device (the deprecated
 * path that picks the controller's only namespace). Prints "ok" or the
 * errno name; exit 0 when the ioctl succeeded, 1 when it failed, 2 on usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/nvme_ioctl.h>

int main(int argc, char **argv)
{
	struct nvme_passthru_cmd cmd;
	unsigned int lba;
	void *buf;
	int fd, ret;

	if (argc != 4) {
		fprintf(stderr, "usage: ioctl-io CTRL-DEV NSID LBA-SIZE\n");
		return 2;
	}
	lba = strtoul(argv[3], NULL, 0);
	if (!lba || posix_memalign(&buf, 4096, lba))
		return 2;
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "ioctl-io: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = 0x02;	/* Read */
	cmd.nsid = strtoul(argv[2], NULL, 0);
	cmd.addr = (unsigned long)buf;
	cmd.data_len = lba;
	cmd.cdw12 = 0;		/* one LBA (0's based) */
	ret = ioctl(fd, NVME_IOCTL_IO_CMD, &cmd);
	if (ret < 0) {
		printf("%s\n", errno == EINVAL ? "EINVAL" : errno == ENOTTY ? "ENOTTY" : strerror(errno));
		return 1;
	}
	printf(ret ? "status 0x%x\n" : "ok\n", ret);
	return ret ? 1 : 0;
}
