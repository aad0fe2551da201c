/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ZNP_ERROR_H
#define ZNP_ERROR_H

/*
 * Return convention of the whole library: 0 on success, -errno on failure,
 * and a positive NVMe status (SCT/SC, as returned by the NVMe ioctls) only
 * from functions that send NVMe commands.
 */

/**
 * znp_strerror() - describe a library return value
 * @ret: 0, a negative errno or a positive NVMe status
 *
 * Return: a string valid until the next call from the same thread, e.g.
 * "No such file or directory" or
 * "NVMe status 0x4002: Invalid Field in Command".
 */
const char *znp_strerror(int ret);

static inline int znp_is_nvme_status(int ret)
{
	return ret > 0;
}

#endif
