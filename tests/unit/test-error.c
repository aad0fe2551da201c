// SPDX-License-Identifier: GPL-2.0-or-later
/* znp_strerror(): errno and NVMe status texts. */
#include <errno.h>

#include "error.h"
#include "test.h"

int main(void)
{
	CHECK_STR(znp_strerror(0), "Success");
	CHECK_STR(znp_strerror(-ENOENT), "No such file or directory");
	CHECK_STR(znp_strerror(-EPROTO), "Protocol error");
	CHECK_STR(znp_strerror(-EBUSY), "Device or resource busy");
	CHECK_STR(znp_strerror(0x4002), "NVMe status 0x4002: Invalid Field in Command");
	CHECK_STR(znp_strerror(0x2), "NVMe status 0x2: Invalid Field in Command");
	CHECK_STR(znp_strerror(0x1b9), "NVMe status 0x1b9: Zone Is Full");
	CHECK_STR(znp_strerror(0x1bc), "NVMe status 0x1bc: Zone Invalid Write");
	CHECK(!strncmp(znp_strerror(0xb9), "NVMe status 0xb9: ", 18), "unknown status: %s",
	      znp_strerror(0xb9));
	CHECK(!strchr(znp_strerror(0x4002), '\n'), "one line");
	CHECK(znp_is_nvme_status(0x4002), "0x4002 is an NVMe status");
	CHECK(!znp_is_nvme_status(-EIO), "-EIO is not an NVMe status");
	CHECK(!znp_is_nvme_status(0), "0 is not an NVMe status");
	return t_done("test-error");
}
