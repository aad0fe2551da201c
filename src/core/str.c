// SPDX-License-Identifier: GPL-2.0-or-later
/* String helpers. See core.h. */
#include <errno.h>
#include <string.h>

#include "core.h"

int znp_strlcpy(char *dst, const char *src, size_t len)
{
	size_t n = strlen(src);

	if (!len)
		return -ENAMETOOLONG;
	if (n >= len) {
		memcpy(dst, src, len - 1);
		dst[len - 1] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(dst, src, n + 1);
	return 0;
}
