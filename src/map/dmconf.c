// SPDX-License-Identifier: GPL-2.0-or-later
/* The persistent mapping file: reading, and atomic updates under a lock. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dmconf.h"
#include "core.h"

#define DMCONF_MAX	(1u << 20)

static const char header[] =
	"# zns-npo2: power-of-2 zone mappings restored at boot by\n"
	"# `nvme-zns-npo2 map --restore` (written by `map --persist` and `unmap`).\n"
	"# <name> <identity: nguid:HEX | eui64:HEX | sn:SERIAL:nsid:N> [lba_size=N zone_size=N nr_zones=N] [via=ublk]\n";

int znp_dmconf_read(const char *path, char **buf, size_t *len)
{
	struct stat st;
	char *b;
	ssize_t n;
	size_t off = 0;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out_close;
	}
	if ((uint64_t)st.st_size > DMCONF_MAX) {
		ret = -EFBIG;
		goto out_close;
	}
	b = malloc((size_t)st.st_size + 1);
	if (!b) {
		ret = -ENOMEM;
		goto out_close;
	}
	while (off < (size_t)st.st_size) {
		n = read(fd, b + off, (size_t)st.st_size - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/*
			 * A failed or short read must never pass for the whole file:
			 * the next rewrite would drop the recorded mappings.
			 */
			ret = n < 0 ? -errno : -EIO;
			free(b);
			goto out_close;
		}
		off += (size_t)n;
	}
	b[off] = '\0';
	*buf = b;
	*len = off;
out_close:
	close(fd);
	return ret;
}

static int mkdir_parent(const char *path)
{
	char tmp[PATH_MAX];
	char *dir;

	if (znp_strlcpy(tmp, path, sizeof(tmp)))
		return -ENAMETOOLONG;
	dir = dirname(tmp);
	if (!mkdir(dir, 0755) || errno == EEXIST)
		return 0;
	return -errno;
}

/* The directory of @path (O_DIRECTORY) and @path's last component in @base. */
static int open_dir(const char *path, char *base, size_t size)
{
	char tmp[PATH_MAX];
	int fd;

	if (znp_strlcpy(tmp, path, sizeof(tmp)) || znp_strlcpy(base, basename(tmp), size))
		return -ENAMETOOLONG;
	if (znp_strlcpy(tmp, path, sizeof(tmp)))
		return -ENAMETOOLONG;
	fd = open(dirname(tmp), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int lock_name(const char *path, char *dir_base, size_t size, int *dirfd)
{
	char base[NAME_MAX + 1];

	*dirfd = open_dir(path, base, sizeof(base));
	if (*dirfd < 0)
		return *dirfd;
	if ((size_t)snprintf(dir_base, size, "%s.lock", base) >= size) {
		close(*dirfd);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* The mappings lock (0600, next to the file), waited for ZNP_DMCONF_LOCK_MS at most. */
static int lock_open(const char *path)
{
	char name[NAME_MAX + 1];
	int dirfd, fd, ret = lock_name(path, name, sizeof(name), &dirfd);

	if (ret)
		return ret;
	ret = znp_lock_take(dirfd, name, ZNP_DMCONF_LOCK_MS, &fd);
	close(dirfd);
	return ret ? ret : fd;
}

pid_t znp_dmconf_lock_holder(const char *path)
{
	char name[NAME_MAX + 1];
	int dirfd, ret = lock_name(path, name, sizeof(name), &dirfd);
	pid_t pid;

	if (ret)
		return ret;
	pid = znp_lock_holder(dirfd, name, "/proc/locks");
	close(dirfd);
	return pid;
}

static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n < *len)
		return -ENOMEM;
	while (*len + n > *cap) {
		/* room for byte *len + n - 1: doubles the buffer once per call */
		char *b = znp_grow(*buf, cap, *len + n - 1, 1, 4096);

		if (!b)
			return -ENOMEM;
		*buf = b;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	return 0;
}

/*
 * Rewrite @path: keep every line of @old except those matching (@ident or
 * @name), then append @add (may be NULL); znp_file_replace() with the
 * file's mode. Return: lines dropped or -errno.
 */
static int rewrite(const char *path, const char *old, size_t len, const char *ident,
		   const char *name, const char *add)
{
	char base[NAME_MAX + 1], *out = NULL;
	mode_t mode = 0644;
	struct stat st;
	size_t off = 0, n, olen = 0, cap = 0;
	const char *line;
	int dirfd, ret = 0, dropped = 0;

	dirfd = open_dir(path, base, sizeof(base));
	if (dirfd < 0)
		return dirfd;
	if (!fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;	/* keep the file's mode */
	if (!old)
		ret = append(&out, &olen, &cap, header, sizeof(header) - 1);
	while (!ret && old && (line = znp_line_next(old, len, &off, &n))) {
		struct znp_dmconf_entry e;
		const char *why;

		if (znp_dmconf_parse_line(line, n, &e, &why) == 1 &&
		    ((ident && !strcmp(e.ident, ident)) || (name && !strcmp(e.name, name)))) {
			dropped++;
		} else {
			ret = append(&out, &olen, &cap, line, n);
			if (!ret)
				ret = append(&out, &olen, &cap, "\n", 1);
		}
	}
	if (!ret && add)
		ret = append(&out, &olen, &cap, add, strlen(add));
	if (!ret)
		ret = znp_file_replace(dirfd, base, out ? out : "", olen, mode);
	free(out);
	close(dirfd);
	return ret ? ret : dropped;
}

int znp_dmconf_put(const char *path, const struct znp_dmconf_entry *e)
{
	char line[ZNP_DM_NAME_MAX + ZNP_IDENT_MAX + 128];
	char *old = NULL;
	size_t len = 0;
	int lock, ret;

	ret = znp_dmconf_format(line, sizeof(line), e);
	if (ret)
		return ret;
	ret = mkdir_parent(path);
	if (ret)
		return ret;
	lock = lock_open(path);
	if (lock < 0)
		return lock;
	ret = znp_dmconf_read(path, &old, &len);
	if (ret && ret != -ENOENT)
		goto out;
	ret = rewrite(path, old, len, e->ident, e->name, line);
	ret = ret < 0 ? ret : 0;
out:
	free(old);
	close(lock);
	return ret;
}

int znp_dmconf_drop(const char *path, const char *ident, const char *name)
{
	struct znp_dmconf_entry e;
	const char *why;
	char *old = NULL;
	size_t len = 0, off = 0, n;
	const char *line;
	bool found = false;
	int lock, ret;

	lock = lock_open(path);
	if (lock < 0)
		return lock == -ENOENT ? 0 : lock;
	ret = znp_dmconf_read(path, &old, &len);
	if (ret) {
		ret = ret == -ENOENT ? 0 : ret;
		goto out;
	}
	while (!found && (line = znp_line_next(old, len, &off, &n)))
		found = znp_dmconf_parse_line(line, n, &e, &why) == 1 &&
			((ident && !strcmp(e.ident, ident)) || (!ident && name && !strcmp(e.name, name)));
	if (found) {
		/* lines dropped or -errno: a failed rewrite is not "not recorded" */
		ret = rewrite(path, old, len, ident, ident ? NULL : name, NULL);
		if (ret > 0)
			ret = 1;
	}
out:
	free(old);
	close(lock);
	return ret;
}
