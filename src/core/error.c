// SPDX-License-Identifier: GPL-2.0-or-later
/* One decoder for the library's return values: -errno and NVMe status. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "nvme-adapter.h"

/* Enough for "NVMe status 0x7fff: " plus libnvme's longest status name. */
#define ZNP_ERRBUF_SIZE 160

const char *znp_strerror(int ret)
{
	static __thread char buf[ZNP_ERRBUF_SIZE];
	const char *s;
	size_t n;

	if (ret == 0)
		return "Success";
	if (ret < 0)
		return strerror(-ret);

	s = znp_nvme_status_name(ret);
	if (!s || !strcmp(s, "unrecognized"))
		s = "Unknown status";
	n = strcspn(s, ":");
	snprintf(buf, sizeof(buf), "NVMe status 0x%x: %.*s", (unsigned int)ret, (int)n, s);
	return buf;
}
