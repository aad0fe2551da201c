// SPDX-License-Identifier: GPL-2.0-or-later
/* ublk mapping records under /run/zns-npo2: their text, their files, the journal file. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "svc.h"
#include "svc-priv.h"

#define REC_MAX		4096

/* ---- record text -------------------------------------------------------- */

static bool field_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

int znp_ublk_rec_format(char *buf, size_t size, const struct znp_ublk_rec *r)
{
	int n;

	if (!r->ident[0] || !field_ok(r->ident) || !field_ok(r->ng) || !field_ok(r->name) ||
	    r->dev_id < 0 || r->pid <= 0)
		return -EINVAL;
	n = snprintf(buf, size,
		     "# zns-npo2 ublk mapping: written by its server, removed by unmap\n"
		     "ident=%s\nng=%s\nname=%s\nnsid=%" PRIu32 "\ndev_id=%d\npid=%ld\n"
		     "lba_size=%" PRIu32 "\nzone_size=%" PRIu64 "\nzone_cap=%" PRIu64 "\n"
		     "nr_zones=%" PRIu64 "\npo2_zone_sectors=%" PRIu64 "\npersist=%d\n"
		     "started=%" PRIu64 "\npid_start=%" PRIu64 "\nfingerprint=%" PRIu64 "\n",
		     r->ident, r->ng, r->name, r->nsid, r->dev_id, (long)r->pid, r->lba_size,
		     r->zone_size, r->zone_cap, r->nr_zones, r->po2_zone_sectors,
		     r->persist ? 1 : 0, r->started, r->pid_start, r->fingerprint);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* A decimal value of at most @max. Return: 0 or -1. */
static int kv_num(const struct znp_kv *kv, uint64_t max, uint64_t *out)
{
	uint64_t x;

	if (znp_kv_u64(kv, &x) || x > max)
		return -1;
	*out = x;
	return 0;
}

static int kv_text(const struct znp_kv *kv, char *dst, size_t size)
{
	return znp_kv_str(kv, dst, size) || !field_ok(dst) ? -1 : 0;
}

int znp_ublk_rec_parse(const char *buf, size_t len, struct znp_ublk_rec *r,
		       const char **why)
{
	bool have_ident = false, have_dev = false, have_pid = false;
	struct znp_kv kv;
	size_t off = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	r->dev_id = -1;
	while ((ret = znp_record_next(buf, len, &off, &kv, why)) == 1) {
		uint64_t x = 0;
		int bad = 0;

		if (znp_kv_is(&kv, "ident")) {
			bad = !kv.vlen || kv_text(&kv, r->ident, sizeof(r->ident));
			have_ident = !bad;
		} else if (znp_kv_is(&kv, "ng")) {
			bad = kv_text(&kv, r->ng, sizeof(r->ng));
		} else if (znp_kv_is(&kv, "name")) {
			bad = kv_text(&kv, r->name, sizeof(r->name));
		} else if (znp_kv_is(&kv, "nsid")) {
			bad = kv_num(&kv, UINT32_MAX, &x);
			r->nsid = (uint32_t)x;
		} else if (znp_kv_is(&kv, "dev_id")) {
			bad = kv_num(&kv, INT32_MAX, &x);
			r->dev_id = (int)x;
			have_dev = !bad;
		} else if (znp_kv_is(&kv, "pid")) {
			bad = kv_num(&kv, INT32_MAX, &x) || !x;
			r->pid = (pid_t)x;
			have_pid = !bad;
		} else if (znp_kv_is(&kv, "lba_size")) {
			bad = kv_num(&kv, UINT32_MAX, &x);
			r->lba_size = (uint32_t)x;
		} else if (znp_kv_is(&kv, "zone_size")) {
			bad = kv_num(&kv, UINT64_MAX, &r->zone_size);
		} else if (znp_kv_is(&kv, "zone_cap")) {
			bad = kv_num(&kv, UINT64_MAX, &r->zone_cap);
		} else if (znp_kv_is(&kv, "nr_zones")) {
			bad = kv_num(&kv, UINT64_MAX, &r->nr_zones);
		} else if (znp_kv_is(&kv, "po2_zone_sectors")) {
			bad = kv_num(&kv, UINT64_MAX, &r->po2_zone_sectors);
		} else if (znp_kv_is(&kv, "persist")) {
			bad = kv_num(&kv, 1, &x);
			r->persist = x;
		} else if (znp_kv_is(&kv, "started")) {
			bad = kv_num(&kv, UINT64_MAX, &r->started);
		} else if (znp_kv_is(&kv, "pid_start")) {
			bad = kv_num(&kv, UINT64_MAX, &r->pid_start);
		} else if (znp_kv_is(&kv, "fingerprint")) {
			bad = kv_num(&kv, UINT64_MAX, &r->fingerprint);
		}
		if (bad) {
			*why = "malformed value";
			return -EBADMSG;
		}
	}
	if (ret)
		return ret;
	if (!have_ident || !have_dev || !have_pid) {
		*why = !have_ident ? "no ident" : !have_dev ? "no dev_id" : "no pid";
		return -EBADMSG;
	}
	return 0;
}

/* ---- record files --------------------------------------------------------- */

int znp_ublk_rec_put(int dirfd, const struct znp_ublk_rec *r)
{
	char name[ZNP_SVC_KEY_MAX + 8], text[REC_MAX];
	struct znp_ublk_rec rec = *r;
	int ret;

	/* the server writes its own record: what tells its pid from a recycled one */
	if (rec.pid == getpid() && !rec.pid_start && znp_proc_start("/proc", rec.pid, &rec.pid_start))
		rec.pid_start = 0;
	ret = znp_ublk_rec_format(text, sizeof(text), &rec);
	if (!ret)
		ret = znp_svc_file_name(r->ident, REC_SUFFIX, name, sizeof(name));
	if (ret)
		return ret;
	return znp_file_replace(dirfd, name, text, strlen(text), 0600);
}

static int read_rec(int dirfd, const char *name, struct znp_ublk_rec *r, const char **why)
{
	char text[REC_MAX];
	struct stat st;
	size_t off = 0;
	int fd, ret = 0;

	*why = NULL;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size >= REC_MAX) {
		*why = "not a regular file of a record's size";
		ret = -EBADMSG;
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, text + off, sizeof(text) - 1 - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		if (!n)
			break;
		off += (size_t)n;	/* counted before the test: a full buffer is data too */
		if (off >= sizeof(text) - 1)
			break;
	}
	ret = znp_ublk_rec_parse(text, off, r, why);
out:
	close(fd);
	return ret;
}

int znp_ublk_rec_get(int dirfd, const char *ident, struct znp_ublk_rec *r)
{
	char name[ZNP_SVC_KEY_MAX + 8];
	const char *why;
	int ret = znp_svc_file_name(ident, REC_SUFFIX, name, sizeof(name));

	if (ret)
		return ret;
	ret = read_rec(dirfd, name, r, &why);
	if (!ret && strcmp(r->ident, ident))
		ret = -EBADMSG;		/* a record under another namespace's name */
	return ret;
}

int znp_ublk_rec_drop(int dirfd, const char *ident)
{
	char name[ZNP_SVC_KEY_MAX + 8];
	int ret = znp_svc_file_name(ident, REC_SUFFIX, name, sizeof(name));

	if (ret)
		return ret;
	if (unlinkat(dirfd, name, 0))
		return -errno;
	/* the journal goes with it; the lock file stays: its holder (maybe the caller) has it */
	if (!znp_svc_file_name(ident, JOURNAL_SUFFIX, name, sizeof(name)))
		unlinkat(dirfd, name, 0);
	return 0;
}

int znp_ublk_forget(int dirfd, const char *ident)
{
	char name[ZNP_SVC_KEY_MAX + 8];
	int lockfd, ret = znp_svc_file_name(ident, LOCK_SUFFIX, name, sizeof(name));

	if (ret)
		return ret;
	ret = znp_lock_take(dirfd, name, 0, &lockfd);
	if (ret)
		return ret;	/* -EBUSY: a server (maybe hung) still holds it */
	ret = znp_ublk_rec_drop(dirfd, ident);
	/* unlinked while held: a server starting now re-opens the name (znp_lock_take) */
	znp_lock_unlink(dirfd, name, lockfd);
	close(lockfd);
	return ret;
}

int znp_ublk_journal_open(int dirfd, const char *ident)
{
	char name[ZNP_SVC_KEY_MAX + 16];
	int fd, ret = znp_svc_file_name(ident, JOURNAL_SUFFIX, name, sizeof(name));

	if (ret)
		return ret;
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int znp_ublk_rec_each(int dirfd,
		      int (*cb)(const struct znp_ublk_rec *r, const char *file,
				const char *why, void *arg),
		      void *arg)
{
	char **names = NULL;
	size_t nr = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int fd, ret = 0;

	fd = dup(dirfd);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **v;

		if (de->d_name[0] == '.' || l <= strlen(REC_SUFFIX) ||
		    strcmp(de->d_name + l - strlen(REC_SUFFIX), REC_SUFFIX))
			continue;
		v = znp_grow(names, &cap, nr, sizeof(*v), 16);
		if (!v) {
			ret = -ENOMEM;
			goto out;
		}
		names = v;
		names[nr] = strdup(de->d_name);
		if (!names[nr]) {
			ret = -ENOMEM;
			goto out;
		}
		nr++;
	}
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_names);
	for (size_t i = 0; i < nr && !ret; i++) {
		struct znp_ublk_rec r;
		const char *why;
		int rr = read_rec(dirfd, names[i], &r, &why);

		if (rr == -ENOENT)
			continue;	/* unmapped meanwhile */
		ret = cb(rr ? NULL : &r, names[i], rr ? (why ? why : "cannot read") : NULL, arg);
	}
out:
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return ret;
}
