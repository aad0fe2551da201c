// SPDX-License-Identifier: GPL-2.0-or-later
/* String and memory helpers. See core.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
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

void *znp_grow(void *v, size_t *cap, size_t nr, size_t size, size_t first)
{
	size_t n;
	void *p;

	if (nr < *cap)
		return v;
	n = *cap ? 2 * *cap : first;
	if (n < *cap || n > SIZE_MAX / size)
		return NULL;
	p = realloc(v, n * size);
	if (p)
		*cap = n;
	return p;
}

const char *znp_line_next(const char *buf, size_t len, size_t *off, size_t *n)
{
	const char *line, *nl;

	if (*off >= len)
		return NULL;
	line = buf + *off;
	nl = memchr(line, '\n', len - *off);
	*n = nl ? (size_t)(nl - line) : len - *off;
	*off += *n + (nl ? 1 : 0);
	return line;
}

int znp_dec_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	/* more than 20 digits is out of range even when they start with zeros */
	if (!n || n > 20)
		return n ? -ERANGE : -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

void znp_fnv1a128(const void *buf, size_t len, uint8_t out[16])
{
	/* the FNV 128-bit offset basis and prime */
	unsigned __int128 h = ((unsigned __int128)0x6c62272e07bb0142ULL << 64) | 0x62b821756295c58dULL;
	const unsigned __int128 prime = ((unsigned __int128)0x0000000001000000ULL << 64) | 0x13bULL;
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= prime;
	}
	for (int i = 15; i >= 0; i--) {
		out[i] = (uint8_t)h;
		h >>= 8;
	}
}
