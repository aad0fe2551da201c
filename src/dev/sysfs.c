// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysfs and /dev paths. Every path goes through env->sysfs_root and
 * env->dev_root so that tests can point the library at a fake tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysfs.h"

static const char *znp_sysfs_root(const struct znp_env *env)
{
	return env && env->sysfs_root ? env->sysfs_root : "/sys";
}

static const char *znp_dev_root(const struct znp_env *env)
{
	return env && env->dev_root ? env->dev_root : "/dev";
}

int znp_sysfs_path(const struct znp_env *env, char *buf, size_t len, const char *fmt, ...)
{
	char rel[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	n = snprintf(buf, len, "%s/%s", znp_sysfs_root(env), rel);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int znp_dev_path(const struct znp_env *env, char *buf, size_t len, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", znp_dev_root(env), name);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int znp_attr_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, ret = 0;

	if (len < 2)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		ret = -errno;
		goto out_close;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
out_close:
	close(fd);
	return ret;
}

int znp_attr_read_u64(const char *path, uint64_t *v)
{
	char buf[32];
	int ret;

	ret = znp_attr_read(path, buf, sizeof(buf));
	if (ret)
		return ret;
	/* sysfs numbers are decimal: no octal, hex or sign */
	return znp_dec_u64(buf, strlen(buf), v) ? -EINVAL : 0;
}

/*
 * Resolve fully when possible (a link like "device -> .." still names its
 * target); fall back to the link text for dangling links.
 */
int znp_link_basename(const char *path, char *buf, size_t len)
{
	char target[PATH_MAX];
	const char *base;
	ssize_t n;

	if (!realpath(path, target)) {
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			return -errno;
		target[n] = '\0';
	} else {
		n = (ssize_t)strlen(target);
	}
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	base = strrchr(target, '/');
	return znp_strlcpy(buf, base ? base + 1 : target, len);
}

bool znp_path_exists(const char *path)
{
	return access(path, F_OK) == 0;
}
