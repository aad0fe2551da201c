/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Exit codes of nvme-zns-npo2 and `nvme zns-npo2`. The numbers are part of
 * the user interface (scripts test them): never renumber.
 */
#ifndef ZNP_CLI_EXIT_H
#define ZNP_CLI_EXIT_H

enum znp_exit {
	ZNP_EXIT_OK = 0,
	ZNP_EXIT_FAILED = 1,		/* I/O error, NVMe status */
	ZNP_EXIT_USAGE = 2,		/* usage or bad argument */
	ZNP_EXIT_UNSUITABLE = 3,	/* missing, not NVMe/zoned, regular file, ... */
	ZNP_EXIT_REFUSED = 4,		/* needs --force, mounted/held/busy, mapped */
	ZNP_EXIT_UNSUPPORTED = 5,	/* kernel lacks a feature */
	ZNP_EXIT_INTERRUPTED = 130,

	/* `check` verdicts (ZNP_V_MAPPABLE exits 0) */
	ZNP_EXIT_V_PO2 = 10,
	ZNP_EXIT_V_NEEDS_KERNEL = 11,
	ZNP_EXIT_V_CAP_LT_SIZE = 12,
	ZNP_EXIT_V_CAP_VARIES = 13,
	ZNP_EXIT_V_NOT_ZNS = 14,
	ZNP_EXIT_V_UBLK = 15,		/* mappable through ublk (map --ublk) */
	ZNP_EXIT_V_METADATA = 16,	/* LBA format with metadata/PI: not mappable here */
};

/**
 * znp_exit_from_ret() - exit code for a failed library call
 * @ret: a negative errno or a positive NVMe status
 *
 * Errors that describe the device rather than the operation (-ENOENT,
 * -ENOTBLK, -ENODEV, -EISDIR, -EMEDIUMTYPE, -EROFS) are "unsuitable"; -EBUSY
 * and -EEXIST (a name or id in use) are safety refusals; -EOPNOTSUPP and NVMe
 * Invalid Command Opcode mean the kernel or device lacks support; everything
 * else, NVMe statuses included, is a failure. Commands detect bad arguments
 * themselves (ZNP_EXIT_USAGE) before calling the library, and map library
 * errors through znp_cli_exit() (cmdtab.h), which applies the few
 * exceptions a command declares in the command table before this map.
 */
int znp_exit_from_ret(int ret);

#endif
