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

static int lock_open(const char *path)
{
	char lpath[PATH_MAX];
	int fd;

	if (snprintf(lpath, sizeof(lpath), "%s.lock", path) >= (int)sizeof(lpath))
		return -ENAMETOOLONG;
	fd = open(lpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX)) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int fsync_dir(const char *path)
{
	char tmp[PATH_MAX];
	int fd, ret = 0;

	if (znp_strlcpy(tmp, path, sizeof(tmp)))
		return -ENAMETOOLONG;
	fd = open(dirname(tmp), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Rewrite @path: keep every line of @old except those matching (@ident or
 * @name), then append @add (may be NULL). Return: lines dropped or -errno.
 */
static int rewrite(const char *path, const char *old, size_t len, const char *ident,
		   const char *name, const char *add)
{
	char tmp[PATH_MAX];
	mode_t mode = 0644;
	struct stat st;
	size_t off = 0, n;
	const char *line;
	int fd, ret = 0, dropped = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (!stat(path, &st))
		mode = st.st_mode & 07777;	/* keep the file's mode */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode))
		ret = -errno;
	if (!ret && !old)
		ret = write_all(fd, header, sizeof(header) - 1);
	while (!ret && old && (line = znp_line_next(old, len, &off, &n))) {
		struct znp_dmconf_entry e;
		const char *why;

		if (znp_dmconf_parse_line(line, n, &e, &why) == 1 &&
		    ((ident && !strcmp(e.ident, ident)) || (name && !strcmp(e.name, name)))) {
			dropped++;
		} else {
			ret = write_all(fd, line, n);
			if (!ret)
				ret = write_all(fd, "\n", 1);
		}
	}
	if (!ret && add)
		ret = write_all(fd, add, strlen(add));
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	ret = fsync_dir(path);	/* the rename itself must reach the disk */
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
