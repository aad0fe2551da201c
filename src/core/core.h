/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The core room's public face: the return convention and its decoder
 * (error.h), all zone arithmetic (geometry.h), eligibility for a po2
 * mapping (check.h), and the string helper every room uses.
 */
#ifndef ZNP_CORE_H
#define ZNP_CORE_H

#include <stddef.h>

#include "check.h"
#include "error.h"
#include "geometry.h"

/* Copy @src into @dst (size @len), always terminated; -ENAMETOOLONG if cut. */
int znp_strlcpy(char *dst, const char *src, size_t len);

#endif
