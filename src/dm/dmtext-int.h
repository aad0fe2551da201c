/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to dm/: character classes shared by the text parsers. */
#ifndef ZNP_DMTEXT_INT_H
#define ZNP_DMTEXT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool znp_dmtext_has_space(const char *s);
/* Characters allowed in a mapping name / in an identity. */
bool znp_dmtext_name_char(unsigned char c);
bool znp_dmtext_ident_char(unsigned char c);

#endif
