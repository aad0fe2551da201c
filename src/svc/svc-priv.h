/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to src/svc/: the names of a namespace's files in the state directory. */
#ifndef ZNP_SVC_PRIV_H
#define ZNP_SVC_PRIV_H

#include <stddef.h>

#define REC_SUFFIX	".ublk"
#define LOCK_SUFFIX	".lock"
#define JOURNAL_SUFFIX	".journal"

/*
 * The file of @ident with @suffix: znp_svc_key(@ident) then @suffix, in
 * @buf of @size bytes (state.c). Return: 0 or -errno.
 */
int znp_svc_file_name(const char *ident, const char *suffix, char *buf, size_t size);

#endif
