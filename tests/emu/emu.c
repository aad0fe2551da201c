// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libznpemu.so: LD_PRELOAD interposer that turns paths named in the file
 * $ZNP_EMU_CONFIG into emulated NVMe ZNS namespaces / zoned block devices.
 *
 * open*() of such a path returns a real descriptor (of the placeholder file
 * or /dev/null) that is remembered; stat-family calls report it as a char
 * or block device with the configured major:minor; ioctl() on it is served
 * by emu-nvme.c / emu-blk.c. Everything else passes through to libc.
 *
 * Environment: ZNP_EMU_CONFIG (devices), ZNP_EMU_TRACE (append one line
 * per command); ZNP_EMU_STATS: see emu-record.c; ZNP_EMU_SIGACTION_ERRNO,
 * ZNP_EMU_FDOPENDIR_ERRNO (process-wide faults: see sigaction() and
 * fdopendir() below).
 */
#undef _FILE_OFFSET_BITS	/* define stat() and stat64() as distinct symbols */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "emu-priv.h"

#define EXPORT __attribute__((visibility("default")))

struct emu_state emu;

struct fd_slot {
	struct emu_dev *d;
	int flags;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct fd_slot *fds;
static int nfds;

static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);
static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_fstat)(int, struct stat *);
static int (*real_fstatat)(int, const char *, struct stat *, int);
static int (*real_statx)(int, const char *, int, unsigned int, struct statx *);

static void emu_init(void)
{
	const char *cfg = getenv("ZNP_EMU_CONFIG"), *tr = getenv("ZNP_EMU_TRACE");

	real_open = dlsym(RTLD_NEXT, "open");
	real_openat = dlsym(RTLD_NEXT, "openat");
	real_close = dlsym(RTLD_NEXT, "close");
	real_ioctl = dlsym(RTLD_NEXT, "ioctl");
	real_fstat = dlsym(RTLD_NEXT, "fstat");
	real_fstatat = dlsym(RTLD_NEXT, "fstatat");
	real_statx = dlsym(RTLD_NEXT, "statx");
	if (cfg && *cfg)
		emu_config_load(cfg);
	if (tr && *tr)
		emu_trace_fd = real_open(tr, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	emu.parsed = true;
}

void emu_init_once(void)
{
	pthread_once(&once, emu_init);
}

static inline void init(void)
{
	emu_init_once();
}

void emu_lock(void)
{
	pthread_mutex_lock(&lock);
}

void emu_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

static struct emu_dev *match_path(int dirfd, const char *path)
{
	char abs[PATH_MAX], canon[PATH_MAX];
	const char *base, *slash;
	bool cand = false;

	if (!emu.ndevs || !path || !*path)
		return NULL;
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	for (int i = 0; i < emu.ndevs && !cand; i++)
		cand = !strcmp(emu.devs[i].base, base);
	if (!cand)
		return NULL;
	if (path[0] == '/') {
		snprintf(abs, sizeof(abs), "%s", path);
	} else {
		char dir[PATH_MAX];

		if (dirfd == AT_FDCWD) {
			if (!getcwd(dir, sizeof(dir)))
				return NULL;
		} else {
			char proc[64];
			ssize_t n;

			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dirfd);
			n = readlink(proc, dir, sizeof(dir) - 1);
			if (n < 0)
				return NULL;
			dir[n] = '\0';
		}
		if (snprintf(abs, sizeof(abs), "%s/%s", dir, path) >= (int)sizeof(abs))
			return NULL;
	}
	if (!realpath(abs, canon))
		snprintf(canon, sizeof(canon), "%s", abs);
	for (int i = 0; i < emu.ndevs; i++)
		if (!strcmp(emu.devs[i].path, canon))
			return &emu.devs[i];
	return NULL;
}

static struct fd_slot *fd_slot(int fd)
{
	if (fd < 0 || fd >= nfds || !fds[fd].d)
		return NULL;
	return &fds[fd];
}

static int emu_open(struct emu_dev *d, int flags)
{
	int fd, oflags = (flags & (O_ACCMODE | O_CLOEXEC | O_NONBLOCK)) | O_NOCTTY;

	if (d->excl_busy && (flags & O_EXCL)) {
		errno = EBUSY;
		return -1;
	}
	fd = real_open(d->path, oflags);
	if (fd < 0)
		fd = real_open("/dev/null", oflags);
	if (fd < 0)
		return -1;
	pthread_mutex_lock(&lock);
	if (fd >= nfds) {
		int n = fd + 64;
		struct fd_slot *p = realloc(fds, (size_t)n * sizeof(*p));

		if (!p) {
			pthread_mutex_unlock(&lock);
			real_close(fd);
			errno = ENOMEM;
			return -1;
		}
		memset(p + nfds, 0, (size_t)(n - nfds) * sizeof(*p));
		fds = p;
		nfds = n;
	}
	fds[fd].d = d;
	fds[fd].flags = flags;
	emu_zones_load(d);
	pthread_mutex_unlock(&lock);
	return fd;
}

static int do_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	struct emu_dev *d;

	init();
	d = match_path(dirfd, path);
	if (d)
		return emu_open(d, flags);
	return real_openat(dirfd, path, flags, mode);
}

static mode_t va_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = va_mode(flags, ap);
	va_end(ap);
	return do_openat(AT_FDCWD, path, flags, m);
}

EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = va_mode(flags, ap);
	va_end(ap);
	return do_openat(AT_FDCWD, path, flags | O_LARGEFILE, m);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = va_mode(flags, ap);
	va_end(ap);
	return do_openat(dirfd, path, flags, m);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t m;

	va_start(ap, flags);
	m = va_mode(flags, ap);
	va_end(ap);
	return do_openat(dirfd, path, flags | O_LARGEFILE, m);
}

EXPORT int __open_2(const char *path, int flags)
{
	return do_openat(AT_FDCWD, path, flags, 0);
}

EXPORT int __open64_2(const char *path, int flags)
{
	return do_openat(AT_FDCWD, path, flags | O_LARGEFILE, 0);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return do_openat(dirfd, path, flags, 0);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return do_openat(dirfd, path, flags | O_LARGEFILE, 0);
}

EXPORT int close(int fd)
{
	init();
	pthread_mutex_lock(&lock);
	if (fd_slot(fd))
		fds[fd].d = NULL;
	pthread_mutex_unlock(&lock);
	return real_close(fd);
}

static void fake_stat(const struct emu_dev *d, struct stat *st)
{
	bool chr = d->kind == EMU_NG || d->kind == EMU_CTRL;

	st->st_mode = (chr ? S_IFCHR : S_IFBLK) | 0600;
	st->st_rdev = makedev(d->major, d->minor);
	st->st_size = 0;
	st->st_blocks = 0;
}

static int do_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	struct fd_slot *s;
	struct emu_dev *d;
	int ret;

	init();
	if (path && !*path && (flags & AT_EMPTY_PATH)) {
		ret = real_fstatat(dirfd, path, st, flags);
		s = fd_slot(dirfd);
		if (!ret && s)
			fake_stat(s->d, st);
		return ret;
	}
	d = match_path(dirfd, path);
	if (!d)
		return real_fstatat(dirfd, path, st, flags);
	ret = real_fstatat(AT_FDCWD, d->path, st, 0);
	if (ret)
		ret = real_fstatat(AT_FDCWD, "/dev/null", st, 0);
	if (!ret)
		fake_stat(d, st);
	return ret;
}

static int do_fstat(int fd, struct stat *st)
{
	struct fd_slot *s;
	int ret;

	init();
	ret = real_fstat(fd, st);
	s = fd_slot(fd);
	if (!ret && s)
		fake_stat(s->d, st);
	return ret;
}

/* x86-64 and other LP64 targets: struct stat and struct stat64 are one layout. */
_Static_assert(sizeof(struct stat) == sizeof(struct stat64), "stat64 layout");

EXPORT int fstat(int fd, struct stat *st) { return do_fstat(fd, st); }
EXPORT int fstat64(int fd, struct stat64 *st) { return do_fstat(fd, (struct stat *)st); }
EXPORT int stat(const char *p, struct stat *st) { return do_fstatat(AT_FDCWD, p, st, 0); }
EXPORT int stat64(const char *p, struct stat64 *st)
{
	return do_fstatat(AT_FDCWD, p, (struct stat *)st, 0);
}
EXPORT int lstat(const char *p, struct stat *st)
{
	return do_fstatat(AT_FDCWD, p, st, AT_SYMLINK_NOFOLLOW);
}
EXPORT int lstat64(const char *p, struct stat64 *st)
{
	return do_fstatat(AT_FDCWD, p, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}
EXPORT int fstatat(int dfd, const char *p, struct stat *st, int fl)
{
	return do_fstatat(dfd, p, st, fl);
}
EXPORT int fstatat64(int dfd, const char *p, struct stat64 *st, int fl)
{
	return do_fstatat(dfd, p, (struct stat *)st, fl);
}
/* pre-2.33 glibc entry points, for binaries built against older headers */
EXPORT int __fxstat(int v, int fd, struct stat *st) { return do_fstat(fd, st); }
EXPORT int __fxstat64(int v, int fd, struct stat64 *st) { return do_fstat(fd, (struct stat *)st); }
EXPORT int __xstat(int v, const char *p, struct stat *st) { return do_fstatat(AT_FDCWD, p, st, 0); }
EXPORT int __xstat64(int v, const char *p, struct stat64 *st)
{
	return do_fstatat(AT_FDCWD, p, (struct stat *)st, 0);
}
EXPORT int __lxstat(int v, const char *p, struct stat *st)
{
	return do_fstatat(AT_FDCWD, p, st, AT_SYMLINK_NOFOLLOW);
}
EXPORT int __lxstat64(int v, const char *p, struct stat64 *st)
{
	return do_fstatat(AT_FDCWD, p, (struct stat *)st, AT_SYMLINK_NOFOLLOW);
}
EXPORT int __fxstatat(int v, int dfd, const char *p, struct stat *st, int fl)
{
	return do_fstatat(dfd, p, st, fl);
}
EXPORT int __fxstatat64(int v, int dfd, const char *p, struct stat64 *st, int fl)
{
	return do_fstatat(dfd, p, (struct stat *)st, fl);
}

EXPORT int statx(int dfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
	const struct emu_dev *d = NULL;
	struct fd_slot *s;
	const char *pth = path;	/* declared nonnull by glibc, NULL in practice */
	int ret;

	init();
	if (pth && !*pth && (flags & AT_EMPTY_PATH)) {
		s = fd_slot(dfd);
		d = s ? s->d : NULL;
		ret = real_statx(dfd, path, flags, mask, stx);
	} else {
		d = match_path(dfd, path);
		ret = d ? real_statx(AT_FDCWD, "/dev/null", 0, mask, stx) :
			  real_statx(dfd, path, flags, mask, stx);
	}
	if (!ret && d) {
		bool chr = d->kind == EMU_NG || d->kind == EMU_CTRL;

		stx->stx_mode = (uint16_t)((chr ? S_IFCHR : S_IFBLK) | 0600);
		stx->stx_rdev_major = d->major;
		stx->stx_rdev_minor = d->minor;
		stx->stx_size = 0;
	}
	return ret;
}

EXPORT int ioctl(int fd, unsigned long req, ...)
{
	struct fd_slot *s;
	bool handled = false;
	va_list ap;
	void *arg;
	int ret = -1, e;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	init();
	pthread_mutex_lock(&lock);
	s = fd_slot(fd);
	if (!s) {
		pthread_mutex_unlock(&lock);
		return real_ioctl(fd, req, arg);
	}
	if (_IOC_TYPE(req) == 'N') {
		ret = emu_nvme_ioctl(s->d, req, arg);
		handled = true;
	} else if (s->d->kind == EMU_NVME_BLK || s->d->kind == EMU_BLK) {
		ret = emu_blk_ioctl(s->d, s->flags, req, arg, &handled);
	}
	if (!handled) {
		errno = ENOTTY;
		ret = -1;
	}
	e = errno;
	pthread_mutex_unlock(&lock);
	errno = e;
	return ret;
}

/*
 * ZNP_EMU_SIGACTION_ERRNO=SIG:ERRNO: installing a handler for signal SIG
 * fails with errno ERRNO (the programs under test have no other way to
 * see sigaction() fail). Read on every call: it never needs init().
 */
/*
 * ZNP_EMU_FDOPENDIR_ERRNO=ERRNO: fdopendir() fails with errno ERRNO (the
 * listing of a state directory that cannot be read: ENOMEM, EACCES as
 * root). Read on every call, as above.
 */
EXPORT DIR *fdopendir(int fd)
{
	static DIR *(*real_fdopendir)(int);
	const char *f = getenv("ZNP_EMU_FDOPENDIR_ERRNO");
	int ferr;

	if (f && sscanf(f, "%d", &ferr) == 1) {
		errno = ferr;
		return NULL;
	}
	if (!real_fdopendir)
		real_fdopendir = (DIR *(*)(int))dlsym(RTLD_NEXT, "fdopendir");
	return real_fdopendir(fd);
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
	const char *f = act ? getenv("ZNP_EMU_SIGACTION_ERRNO") : NULL;
	int fsig, ferr;

	if (f && sscanf(f, "%d:%d", &fsig, &ferr) == 2 && fsig == sig) {
		errno = ferr;
		return -1;
	}
	if (!real_sigaction)
		real_sigaction = (int (*)(int, const struct sigaction *, struct sigaction *))
				 dlsym(RTLD_NEXT, "sigaction");
	return real_sigaction(sig, act, old);
}
