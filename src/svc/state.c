// SPDX-License-Identifier: GPL-2.0-or-later
/* ublk mapping state under /run/zns-npo2: the directory, file names, namespace locks. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "svc.h"
#include "svc-priv.h"

int znp_run_dir_open(const char *path, bool create)
{
	struct stat st;
	int fd;

	if (!path || !*path)
		return -EINVAL;
	if (create && mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR && !lstat(path, &st) && S_ISLNK(st.st_mode) ? -ELOOP
										       : -errno;
	if (fstat(fd, &st)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EPERM : -ENOTDIR;
	}
	return fd;
}

int znp_svc_key(const char *ident, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!ident || !*ident)
		return -EINVAL;
	for (const unsigned char *s = (const unsigned char *)ident; *s; s++) {
		bool plain = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			     (*s >= '0' && *s <= '9') || *s == '.' || *s == '-';

		if (o + (plain ? 1 : 3) >= size)
			return -ENAMETOOLONG;
		if (plain) {
			buf[o++] = (char)*s;
		} else {
			buf[o++] = '_';
			buf[o++] = hex[*s >> 4];
			buf[o++] = hex[*s & 15];
		}
	}
	/* "." and ".." are not file names we may use */
	if (buf[0] == '.' && (o == 1 || (o == 2 && buf[1] == '.')))
		return -EINVAL;
	buf[o] = '\0';
	return 0;
}

int znp_unit_escape(const char *s, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!s || !*s)
		return -EINVAL;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		/* systemd's unit name alphabet; a leading '.' would hide the unit */
		bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			     (*c >= '0' && *c <= '9') || *c == ':' || *c == '_' ||
			     (*c == '.' && c != (const unsigned char *)s);

		if (o + (plain || *c == '/' ? 1 : 4) >= size)
			return -ENAMETOOLONG;
		if (plain) {
			buf[o++] = (char)*c;
		} else if (*c == '/') {
			buf[o++] = '-';
		} else {
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[*c >> 4];
			buf[o++] = hex[*c & 15];
		}
	}
	buf[o] = '\0';
	return 0;
}

int znp_svc_file_name(const char *ident, const char *suffix, char *buf, size_t size)
{
	char key[ZNP_SVC_KEY_MAX];
	int ret = znp_svc_key(ident, key, sizeof(key));

	if (ret)
		return ret;
	if ((size_t)snprintf(buf, size, "%s%s", key, suffix) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* The namespace's lock file, taken exclusive or @shared, without waiting. */
static int ns_take(int dirfd, const char *ident, bool shared, int *lockfd)
{
	char name[ZNP_SVC_KEY_MAX + 8];
	int ret = znp_svc_file_name(ident, LOCK_SUFFIX, name, sizeof(name));

	if (ret)
		return ret;
	/* the inode re-check: a second server never locks a lock file unmap removed */
	if (shared)
		return znp_lock_share(dirfd, name, 0, lockfd);
	return znp_lock_take(dirfd, name, 0, lockfd);
}

int znp_ns_lock(int dirfd, const char *ident, int *lockfd)
{
	return ns_take(dirfd, ident, false, lockfd);
}

int znp_ns_claim(int dirfd, const char *ident, int *lockfd)
{
	return ns_take(dirfd, ident, true, lockfd);
}

pid_t znp_ns_lock_holder(int dirfd, const char *ident, const char *locks)
{
	char name[ZNP_SVC_KEY_MAX + 8];
	int ret = znp_svc_file_name(ident, LOCK_SUFFIX, name, sizeof(name));

	if (ret)
		return ret;
	return znp_lock_holder(dirfd, name, locks);
}

void znp_ns_unlock(int lockfd)
{
	if (lockfd >= 0)
		close(lockfd);
}

int znp_ns_lock_held(int dirfd, const char *ident)
{
	char name[ZNP_SVC_KEY_MAX + 8];
	int fd, ret = znp_svc_file_name(ident, LOCK_SUFFIX, name, sizeof(name));

	if (ret)
		return ret;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	/* a shared lock conflicts only with the server's exclusive one */
	if (flock(fd, LOCK_SH | LOCK_NB))
		ret = errno == EWOULDBLOCK ? 1 : -errno;
	close(fd);
	return ret;
}
