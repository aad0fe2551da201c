/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to src/ublk/: the ublk UAPI constants of kernels newer than the
 * header the build found (6.12's), each defined only when that header lacks
 * it, with the values of include/uapi/linux/ublk_cmd.h in Linux 6.15 and
 * later (7.3 included). Whether a running driver has them is asked at run
 * time (GET_FEATURES): a definition here never means the kernel has it.
 */
#ifndef ZNP_UBLK_UAPI_EXT_H
#define ZNP_UBLK_UAPI_EXT_H

#include <linux/ioctl.h>

/* the request's pages, registered as an io_uring buffer by the server (6.15) */
#ifndef UBLK_F_SUPPORT_ZERO_COPY
#define UBLK_F_SUPPORT_ZERO_COPY	(1ULL << 0)
#endif
/* ... registered by the driver at the index FETCH/COMMIT_AND_FETCH's addr names (6.16) */
#ifndef UBLK_F_AUTO_BUF_REG
#define UBLK_F_AUTO_BUF_REG		(1ULL << 11)
#endif
/* UBLK_F_SUPPORT_ZERO_COPY: register and unregister a request's buffer (addr: the index) */
#ifndef UBLK_U_IO_REGISTER_IO_BUF
#define UBLK_U_IO_REGISTER_IO_BUF	_IOWR('u', 0x23, struct ublksrv_io_cmd)
#endif
#ifndef UBLK_U_IO_UNREGISTER_IO_BUF
#define UBLK_U_IO_UNREGISTER_IO_BUF	_IOWR('u', 0x24, struct ublksrv_io_cmd)
#endif

#endif
