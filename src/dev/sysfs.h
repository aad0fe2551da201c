/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private: paths under env->sysfs_root / env->dev_root and attribute reads. */
#ifndef ZNP_SYSFS_H
#define ZNP_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "dev.h"

/* Longest kernel device name we keep ("nvme12c3n45", "ng0n1", "dm-3"). */
#define ZNP_NAME_MAX 32

/* "<sysfs root>/<printf result>"; -ENAMETOOLONG when it does not fit. */
int znp_sysfs_path(const struct znp_env *env, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Read a sysfs attribute, trailing whitespace removed. Return: 0 or -errno. */
int znp_attr_read(const char *path, char *buf, size_t len);
int znp_attr_read_u64(const char *path, uint64_t *v);
/* basename of what symlink @path resolves to (its text if dangling). Return: 0 or -errno. */
int znp_link_basename(const char *path, char *buf, size_t len);
bool znp_path_exists(const char *path);


#endif
