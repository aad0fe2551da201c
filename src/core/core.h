/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The core room's public face: the return convention and its decoder
 * (error.h), all zone arithmetic (geometry.h), eligibility for a po2
 * mapping (check.h), the state-file toolkit (statefile.h: atomic replace,
 * lock files), and the string and array helpers every room uses.
 */
#ifndef ZNP_CORE_H
#define ZNP_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "error.h"
#include "geometry.h"
#include "statefile.h"

/* Number of elements of array @a (not of a pointer). */
#define ZNP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Copy @src into @dst (size @len), always terminated; -ENAMETOOLONG if cut. */
int znp_strlcpy(char *dst, const char *src, size_t len);

/**
 * znp_grow() - the growable-array helper: room for element @nr of @v
 * @v: the array (may be NULL), @nr elements used, *@cap allocated
 * @size: bytes per element
 * @first: capacity of the first allocation (doubling after that)
 *
 * Return: @v when it has room, else the reallocated array (*@cap updated),
 * or NULL on failure (@v and *@cap untouched: still valid).
 */
void *znp_grow(void *v, size_t *cap, size_t nr, size_t size, size_t first);

/**
 * znp_line_next() - the line walker: the next line of @buf (@len bytes,
 * need not be NUL-terminated) from *@off
 * @n: out, its length without the newline
 *
 * Advances *@off past the line and its newline (a last line may lack one).
 * Return: the line's first byte, or NULL when *@off reached @len.
 */
const char *znp_line_next(const char *buf, size_t len, size_t *off, size_t *n);

/**
 * znp_dec_u64() - the number parser of the files and attributes the library
 * reads (state files, the mapping file, dm tables, sysfs, /proc): unsigned
 * decimal, all of [@s, @s + @n), no sign, no blanks, no base prefix
 * Return: 0, -EINVAL (empty, or not a digit), -ERANGE (above UINT64_MAX, or
 * more than 20 digits).
 */
int znp_dec_u64(const char *s, size_t n, uint64_t *v);

/**
 * znp_fnv1a128() - the 128-bit FNV-1a hash of @len bytes at @buf, most
 * significant byte first in @out: a stable name for a string (the export's
 * namespace identity), not a cryptographic digest
 */
void znp_fnv1a128(const void *buf, size_t len, uint8_t out[16]);

#endif
