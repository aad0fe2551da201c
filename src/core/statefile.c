// SPDX-License-Identifier: GPL-2.0-or-later
/* The state-file toolkit: atomic replace, lock files, process start times. See statefile.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core.h"

#define TMP_TRIES	16	/* random temporary names tried before giving up */
#define LOCK_TRIES	16	/* lock files found replaced after flock() */
#define LOCK_POLL_MS	20

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Create a fresh temporary next to @name: never one that exists (or a link). */
static int open_tmp(int dirfd, const char *name, char *tmp, size_t size)
{
	for (int i = 0; i < TMP_TRIES; i++) {
		uint64_t r = 0;
		int fd;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^ (uint64_t)i;
		if ((size_t)snprintf(tmp, size, ".%s.%016" PRIx64, name, r) >= size)
			return -ENAMETOOLONG;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int znp_file_replace(int dirfd, const char *name, const void *buf, size_t len, mode_t mode)
{
	char tmp[NAME_MAX + 1];
	int fd, ret;

	if (!name || !*name || strchr(name, '/'))
		return -EINVAL;
	fd = open_tmp(dirfd, name, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	ret = fchmod(fd, mode & 07777) ? -errno : 0;
	if (!ret)
		ret = write_all(fd, buf, len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, name))
		ret = -errno;
	if (ret) {
		unlinkat(dirfd, tmp, 0);
		return ret;
	}
	/* the rename itself must reach the disk */
	return fsync(dirfd) ? -errno : 0;
}

int znp_out_open(const char *path, mode_t mode, struct znp_outfile *of)
{
	char *real = NULL, *slash;
	const char *target = path, *base;
	struct stat st;
	mode_t mask;
	int ret;

	*of = (struct znp_outfile){ .dirfd = -1, .fd = -1 };
	if (!path || !*path)
		return -EINVAL;
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		/* the admin's link, followed once: a dangling one is -ENOENT */
		real = realpath(path, NULL);
		if (!real)
			return -errno;
		target = real;
	}
	slash = strrchr(target, '/');
	base = slash ? slash + 1 : target;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		ret = -EISDIR;
		goto out;
	}
	if (strlen(base) + 19 >= sizeof(of->tmp)) {	/* ".NAME.<16 hex>" */
		ret = -ENAMETOOLONG;
		goto out;
	}
	if (slash) {
		char dir[PATH_MAX];
		size_t n = (size_t)(slash - target);

		if (n >= sizeof(dir)) {
			ret = -ENAMETOOLONG;
			goto out;
		}
		memcpy(dir, target, n);
		dir[n] = '\0';
		of->dirfd = open(n ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		of->dirfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (of->dirfd < 0) {
		ret = -errno;
		goto out;
	}
	snprintf(of->name, sizeof(of->name), "%s", base);
	if (!fstatat(of->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (!S_ISREG(st.st_mode)) {
			of->found = st.st_mode & S_IFMT;
			ret = -EEXIST;
			goto out;
		}
	} else if (errno != ENOENT) {
		ret = -errno;
		goto out;
	} else {
		st.st_mode = 0;
	}
	of->fd = open_tmp(of->dirfd, of->name, of->tmp, sizeof(of->tmp));
	if (of->fd < 0) {
		ret = of->fd;
		goto out;
	}
	if (st.st_mode) {	/* the existing file's owner and mode */
		ret = (st.st_uid != geteuid() || st.st_gid != getegid()) &&
		      fchown(of->fd, st.st_uid, st.st_gid) ? -errno : 0;
		if (!ret && fchmod(of->fd, st.st_mode & 07777))
			ret = -errno;
	} else {
		mask = umask(0);
		umask(mask);
		ret = fchmod(of->fd, mode & 07777 & ~mask) ? -errno : 0;
	}
out:
	free(real);
	if (ret) {
		if (of->fd >= 0) {
			close(of->fd);
			unlinkat(of->dirfd, of->tmp, 0);
		}
		if (of->dirfd >= 0)
			close(of->dirfd);
		of->fd = of->dirfd = -1;
	}
	return ret;
}

int znp_out_commit(struct znp_outfile *of, bool keep)
{
	struct stat st;
	int ret = 0;

	if (of->dirfd < 0)
		return -EBADF;
	if (keep && fsync(of->fd))
		ret = -errno;
	/* what is at the name now: still a regular file, or nothing */
	if (!ret && keep && !fstatat(of->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW) &&
	    !S_ISREG(st.st_mode)) {
		of->found = st.st_mode & S_IFMT;
		ret = -EEXIST;
	}
	if (!ret && keep && renameat(of->dirfd, of->tmp, of->dirfd, of->name))
		ret = -errno;
	if (ret || !keep)
		unlinkat(of->dirfd, of->tmp, 0);
	close(of->dirfd);
	of->dirfd = -1;
	return ret;
}

/* Is @name in @dirfd (still) the file open as @fd? */
static int same_file(int dirfd, const char *name, int fd)
{
	struct stat a, b;

	if (fstat(fd, &a))
		return -errno;
	if (fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int open_lock(int dirfd, const char *name)
{
	struct stat st;
	int fd;

	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return S_ISREG(st.st_mode) ? -EPERM : -EINVAL;
	}
	/* an old lock file readable by others: anyone could flock() it */
	if ((st.st_mode & 077) && fchmod(fd, 0600)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The lock protocol, exclusive (@op LOCK_EX) or shared (LOCK_SH). */
static int lock_take(int dirfd, const char *name, int op, unsigned int wait_ms, int *lockfd)
{
	uint64_t deadline = now_ms() + wait_ms;

	for (int tries = 0; tries < LOCK_TRIES; tries++) {
		int fd = open_lock(dirfd, name), same;

		if (fd < 0)
			return fd;
		while (flock(fd, op | LOCK_NB)) {
			struct timespec ts = { 0, LOCK_POLL_MS * 1000 * 1000 };
			int err = errno;

			if (err == EINTR)
				continue;
			if (err != EWOULDBLOCK || now_ms() >= deadline) {
				close(fd);
				return err == EWOULDBLOCK ? -EBUSY : -err;
			}
			nanosleep(&ts, NULL);
		}
		same = same_file(dirfd, name, fd);
		if (same == 1) {
			*lockfd = fd;
			return 0;
		}
		close(fd);	/* unlinked or replaced by its last holder: the name again */
		if (same < 0)
			return same;
	}
	return -EAGAIN;
}

int znp_lock_take(int dirfd, const char *name, unsigned int wait_ms, int *lockfd)
{
	return lock_take(dirfd, name, LOCK_EX, wait_ms, lockfd);
}

int znp_lock_share(int dirfd, const char *name, unsigned int wait_ms, int *lockfd)
{
	return lock_take(dirfd, name, LOCK_SH, wait_ms, lockfd);
}

int znp_lock_unlink(int dirfd, const char *name, int fd)
{
	int same = same_file(dirfd, name, fd);

	if (same <= 0)
		return same;
	return unlinkat(dirfd, name, 0) ? -errno : 0;
}

pid_t znp_lock_holder(int dirfd, const char *name, const char *locks)
{
	char line[256], type[16];
	struct stat st;
	pid_t by_ino = 0, ret = 0;
	FILE *f;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	f = fopen(locks, "re");
	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		unsigned int maj, min;
		unsigned long ino;
		int pid;

		/* "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters have "->" */
		if (strstr(line, "->") ||
		    sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", type, &pid, &maj, &min, &ino) != 5 ||
		    strcmp(type, "FLOCK") || ino != st.st_ino || pid <= 0)
			continue;
		/* btrfs shows another device number in stat() than in /proc/locks */
		if (maj == major(st.st_dev) && min == minor(st.st_dev))
			ret = pid;
		else if (!by_ino)
			by_ino = pid;
	}
	fclose(f);
	return ret ? ret : by_ino;
}

int znp_proc_stat_start(const char *stat, uint64_t *ticks)
{
	const char *p = strrchr(stat, ')');	/* the command name may hold anything */

	if (!p)
		return -EBADMSG;
	/* after ") ": field 3 (the state), then on to field 22 */
	p++;
	for (int field = 3;; field++) {
		while (*p == ' ')
			p++;
		if (field == 22)
			break;
		p = strchr(p, ' ');
		if (!p)
			return -EBADMSG;
	}
	return znp_dec_u64(p, strcspn(p, "\n "), ticks) ? -EBADMSG : 0;
}

int znp_proc_start(const char *proc, pid_t pid, uint64_t *ticks)
{
	char path[PATH_MAX], buf[1024];
	ssize_t n;
	int fd;

	if (pid <= 0)
		return -ESRCH;
	if ((size_t)snprintf(path, sizeof(path), "%s/%ld/stat", proc, (long)pid) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -errno;
	buf[n] = '\0';
	return znp_proc_stat_start(buf, ticks);
}

/* ---- records ------------------------------------------------------------- */

bool znp_kv_split(const char *s, size_t n, struct znp_kv *kv)
{
	const char *eq = memchr(s, '=', n);

	if (!eq)
		return false;
	kv->key = s;
	kv->klen = (size_t)(eq - s);
	kv->val = eq + 1;
	kv->vlen = n - kv->klen - 1;
	return true;
}

bool znp_kv_is(const struct znp_kv *kv, const char *key)
{
	return strlen(key) == kv->klen && !memcmp(kv->key, key, kv->klen);
}

int znp_kv_u64(const struct znp_kv *kv, uint64_t *v)
{
	return znp_dec_u64(kv->val, kv->vlen, v);
}

int znp_kv_str(const struct znp_kv *kv, char *dst, size_t size)
{
	if (!size)
		return -ENAMETOOLONG;
	if (kv->vlen >= size) {
		dst[0] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(dst, kv->val, kv->vlen);
	dst[kv->vlen] = '\0';
	return 0;
}

int znp_record_next(const char *buf, size_t len, size_t *off, struct znp_kv *kv,
		    const char **why)
{
	const char *line;
	size_t n;

	while ((line = znp_line_next(buf, len, off, &n))) {
		/* the first fault in the line decides, as a reader copying it would meet it */
		size_t head = n < ZNP_RECORD_LINE_MAX ? n : ZNP_RECORD_LINE_MAX;

		if (memchr(line, '\0', head)) {
			*why = "NUL byte";
			return -EBADMSG;
		}
		if (n >= ZNP_RECORD_LINE_MAX) {
			*why = "line too long";
			return -EBADMSG;
		}
		if (!n || line[0] == '#')
			continue;
		if (!znp_kv_split(line, n, kv)) {
			*why = "line without '='";
			return -EBADMSG;
		}
		return 1;
	}
	return 0;
}
