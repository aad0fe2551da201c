/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one place the library meets libnvme's API, so that it builds against
 * both libnvmes nvme-cli links:
 *
 * - libnvme 1.x (Debian 12's 1.3 up to 1.16; nvme-cli 2.x): file
 *   descriptors, nvme_ names;
 * - the libnvme in nvme-cli 3's own tree (libnvme_ names, a global context,
 *   transport handles). Its handles are opened by /dev name only and cannot
 *   adopt a descriptor, while the library opens its devices itself (O_EXCL
 *   held for the whole operation, hidden namespaces, test roots). So commands
 *   are built by libnvme's nvme_init_*() and sent on that descriptor with the
 *   kernel's 64-bit passthrough ioctls, as libnvme's direct transport does;
 *   status names are libnvme_status_to_string()'s.
 *
 * Which one is chosen by what <libnvme.h> defines (LIBNVME_INVALID_FD is
 * libnvme 3's), not by a version number. The data structures (struct
 * nvme_id_ctrl, struct nvme_zns_id_ns, ...) have the same names in both.
 *
 * Every function returns 0, -errno, or the NVMe status (> 0) of the command.
 */
#ifndef ZNP_NVME_ADAPTER_H
#define ZNP_NVME_ADAPTER_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

/* libnvme 1.x first: its <nvme/ioctl.h> must precede the kernel's */
#include <libnvme.h>
#include <linux/nvme_ioctl.h>

#ifdef LIBNVME_INVALID_FD
#define ZNP_LIBNVME3 1

static inline int znp_nvme_send(int fd, bool admin, struct libnvme_passthru_cmd *cmd)
{
	int r = ioctl(fd, admin ? NVME_IOCTL_ADMIN64_CMD : NVME_IOCTL_IO64_CMD, cmd);

	return r < 0 ? -errno : r;
}

static inline int znp_nvme_identify_ctrl(int fd, struct nvme_id_ctrl *id)
{
	struct libnvme_passthru_cmd cmd;

	nvme_init_identify_ctrl(&cmd, id);
	return znp_nvme_send(fd, true, &cmd);
}

static inline int znp_nvme_identify_ns(int fd, uint32_t nsid, struct nvme_id_ns *id)
{
	struct libnvme_passthru_cmd cmd;

	nvme_init_identify_ns(&cmd, nsid, id);
	return znp_nvme_send(fd, true, &cmd);
}

/* @descs: NVME_IDENTIFY_DATA_SIZE bytes */
static inline int znp_nvme_identify_ns_descs(int fd, uint32_t nsid, struct nvme_ns_id_desc *descs)
{
	struct libnvme_passthru_cmd cmd;

	nvme_init_identify_ns_descs_list(&cmd, nsid, descs);
	return znp_nvme_send(fd, true, &cmd);
}

static inline int znp_nvme_zns_identify_ns(int fd, uint32_t nsid, struct nvme_zns_id_ns *id)
{
	struct libnvme_passthru_cmd cmd;

	nvme_init_zns_identify_ns(&cmd, nsid, id);
	return znp_nvme_send(fd, true, &cmd);
}

static inline int znp_nvme_zns_identify_ctrl(int fd, struct nvme_zns_id_ctrl *id)
{
	struct libnvme_passthru_cmd cmd;

	nvme_init_zns_identify_ctrl(&cmd, id);
	return znp_nvme_send(fd, true, &cmd);
}

/* Zone Management Receive, Report Zones; @zrasf: the state filter. */
static inline int znp_nvme_zns_report(int fd, uint32_t nsid, uint64_t slba, uint16_t zrasf,
				      bool partial, void *buf, uint32_t len)
{
	struct libnvme_passthru_cmd cmd;

	nvme_init_zns_mgmt_recv(&cmd, nsid, slba, NVME_ZNS_ZRA_REPORT_ZONES, zrasf, partial,
				buf, len);
	return znp_nvme_send(fd, false, &cmd);
}

/* Zone Management Send without data (open, close, finish, reset, offline). */
static inline int znp_nvme_zns_send(int fd, uint32_t nsid, uint64_t slba, bool all, uint8_t zsa)
{
	struct libnvme_passthru_cmd cmd;

	nvme_init_zns_mgmt_send(&cmd, nsid, slba, (enum nvme_zns_send_action)zsa, all, 0, 0,
				NULL, 0);
	return znp_nvme_send(fd, false, &cmd);
}

/* An I/O command encoded for io_uring passthrough, sent synchronously. */
static inline int znp_nvme_io_uring_cmd_sync(int fd, const struct nvme_uring_cmd *c)
{
	struct libnvme_passthru_cmd cmd;

	_Static_assert(sizeof(cmd) >= sizeof(*c), "uring command is a passthru prefix");
	memset(&cmd, 0, sizeof(cmd));
	memcpy(&cmd, c, sizeof(*c));
	return znp_nvme_send(fd, false, &cmd);
}

static inline int znp_nvme_get_nsid(int fd, uint32_t *nsid)
{
	int r = ioctl(fd, NVME_IOCTL_ID);

	if (r < 0)
		return -errno;
	*nsid = (uint32_t)r;
	return 0;
}

static inline const char *znp_nvme_status_name(int status)
{
	return libnvme_status_to_string(status, false);
}

#else	/* libnvme 1.x */

/* libnvme 1.x: NVMe status (> 0), or -1 with errno set. */
static inline int znp_nvme_ret(int r)
{
	if (r < 0)
		return errno ? -errno : -EIO;
	return r;
}

static inline int znp_nvme_identify_ctrl(int fd, struct nvme_id_ctrl *id)
{
	return znp_nvme_ret(nvme_identify_ctrl(fd, id));
}

static inline int znp_nvme_identify_ns(int fd, uint32_t nsid, struct nvme_id_ns *id)
{
	return znp_nvme_ret(nvme_identify_ns(fd, nsid, id));
}

static inline int znp_nvme_identify_ns_descs(int fd, uint32_t nsid, struct nvme_ns_id_desc *descs)
{
	return znp_nvme_ret(nvme_identify_ns_descs(fd, nsid, descs));
}

static inline int znp_nvme_zns_identify_ns(int fd, uint32_t nsid, struct nvme_zns_id_ns *id)
{
	return znp_nvme_ret(nvme_zns_identify_ns(fd, nsid, id));
}

static inline int znp_nvme_zns_identify_ctrl(int fd, struct nvme_zns_id_ctrl *id)
{
	return znp_nvme_ret(nvme_zns_identify_ctrl(fd, id));
}

static inline int znp_nvme_zns_report(int fd, uint32_t nsid, uint64_t slba, uint16_t zrasf,
				      bool partial, void *buf, uint32_t len)
{
	__u32 result = 0;
	struct nvme_zns_mgmt_recv_args args = {
		.slba = slba,
		.result = &result,
		.data = buf,
		.args_size = sizeof(args),
		.fd = fd,
		.timeout = 0,
		.nsid = nsid,
		.zra = NVME_ZNS_ZRA_REPORT_ZONES,
		.data_len = len,
		.zrasf = zrasf,
		.zras_feat = partial,
	};

	return znp_nvme_ret(nvme_zns_mgmt_recv(&args));
}

static inline int znp_nvme_zns_send(int fd, uint32_t nsid, uint64_t slba, bool all, uint8_t zsa)
{
	__u32 result = 0;
	struct nvme_zns_mgmt_send_args args = {
		.slba = slba,
		.result = &result,
		.data = NULL,
		.args_size = sizeof(args),
		.fd = fd,
		.timeout = 0,
		.nsid = nsid,
		.zsa = (enum nvme_zns_send_action)zsa,
		.data_len = 0,
		.select_all = all,
		.zsaso = 0,
	};

	return znp_nvme_ret(nvme_zns_mgmt_send(&args));
}

/* nvme_uring_cmd is nvme_passthru_cmd without the result field */
static inline int znp_nvme_io_uring_cmd_sync(int fd, const struct nvme_uring_cmd *c)
{
	struct nvme_passthru_cmd pc;

	_Static_assert(sizeof(pc) >= sizeof(*c), "uring command is a passthru prefix");
	memset(&pc, 0, sizeof(pc));
	memcpy(&pc, c, sizeof(*c));
	return znp_nvme_ret(nvme_submit_io_passthru(fd, &pc, NULL));
}

static inline int znp_nvme_get_nsid(int fd, uint32_t *nsid)
{
	__u32 n = 0;

	if (nvme_get_nsid(fd, &n))
		return errno ? -errno : -EIO;
	*nsid = n;
	return 0;
}

static inline const char *znp_nvme_status_name(int status)
{
	return nvme_status_to_string(status, false);
}

#endif	/* LIBNVME_INVALID_FD */
#endif	/* ZNP_NVME_ADAPTER_H */
