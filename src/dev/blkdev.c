// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block devices as sysfs and /proc/self/mountinfo describe them: kernel
 * names, device-mapper names, holders, mount points and queue limits. The
 * one mountinfo reader and the one holders reader of the library, and the
 * one answer to "may this block device be removed?" (znp_blk_prove_unused()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dev.h"
#include "sysfs.h"

/* <sysfs>/dev/block/MAJ:MIN@sub read as a link target (@link) or an attribute. */
static int blk_read(const struct znp_env *env, unsigned int maj, unsigned int min,
		    const char *sub, bool link, char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret;

	ret = znp_sysfs_path(env, path, sizeof(path), "dev/block/%u:%u%s", maj, min, sub);
	if (ret)
		return ret;
	return link ? znp_link_basename(path, buf, len) : znp_attr_read(path, buf, len);
}

int znp_blk_kname(const struct znp_env *env, unsigned int maj, unsigned int min,
		  char *buf, size_t len)
{
	int ret = blk_read(env, maj, min, "", true, buf, len);

	/* a dangling link's text is "MAJ:MIN": no kernel name */
	return !ret && strchr(buf, ':') ? -ENOENT : ret;
}

int znp_blk_dm_name(const struct znp_env *env, unsigned int maj, unsigned int min,
		    char *buf, size_t len)
{
	return blk_read(env, maj, min, "/dm/name", false, buf, len);
}

int znp_blk_queue_u64(const struct znp_env *env, unsigned int maj, unsigned int min,
		      const char *attr, uint64_t *v)
{
	char path[PATH_MAX];
	int i, ret = -ENOENT;

	for (i = 0; i < 2; i++) {
		/* a partition has no queue/: look at its disk */
		ret = znp_sysfs_path(env, path, sizeof(path), "dev/block/%u:%u/%squeue/%s",
				     maj, min, i ? "../" : "", attr);
		if (ret)
			return ret;
		ret = znp_attr_read_u64(path, v);
		if (ret != -ENOENT)
			return ret;
	}
	return ret;
}

/* Is @src (a mount source) a block device node of @maj:@min? */
static bool source_is(const char *src, unsigned int maj, unsigned int min)
{
	struct stat st;

	return src[0] == '/' && !stat(src, &st) && S_ISBLK(st.st_mode) &&
	       major(st.st_rdev) == maj && minor(st.st_rdev) == min;
}

/*
 * The one reader of /proc/self/mountinfo: @cb gets each line; a non-zero
 * return stops and is returned. Return: 0, @cb's value, or -errno.
 */
static int mountinfo_each(int (*cb)(const char *line, void *arg), void *arg)
{
	char line[4096];
	int ret = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f))
		ret = cb(line, arg);
	fclose(f);
	return ret;
}

struct mount_find {
	unsigned int maj, min;
	char *buf;
	size_t len;
};

static int mount_find_cb(const char *line, void *arg)
{
	struct mount_find *m = arg;
	char mnt[PATH_MAX], src[PATH_MAX];
	const char *sep = strstr(line, " - ");
	unsigned int ma, mi;

	mnt[0] = '\0';
	if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) < 2)
		return 0;
	/* btrfs shows an anonymous MAJ:MIN: the mount source names the device */
	if ((ma == m->maj && mi == m->min) ||
	    (sep && sscanf(sep, " - %*s %4095s", src) == 1 && source_is(src, m->maj, m->min))) {
		if (m->buf && m->len)
			znp_strlcpy(m->buf, mnt, m->len);
		return 1;
	}
	return 0;
}

/* 1 mounted (@buf: the mount point), 0 not, -errno mountinfo unreadable */
static int mounted(unsigned int maj, unsigned int min, char *buf, size_t len)
{
	struct mount_find m = { maj, min, buf, len };

	if (buf && len)
		buf[0] = '\0';
	return mountinfo_each(mount_find_cb, &m);
}

bool znp_blk_mount_point(unsigned int maj, unsigned int min, char *buf, size_t len)
{
	return mounted(maj, min, buf, len) == 1;
}

int znp_blk_holders(const struct znp_env *env, const char *blk,
		    int (*cb)(const struct znp_holder *h, void *arg), void *arg)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *d;
	DIR *dp;
	int ret = 0;

	if (!blk || !*blk || strchr(blk, '/'))
		return 0;
	if (znp_sysfs_path(env, dir, sizeof(dir), "block/%s/holders", blk))
		return 0;
	dp = opendir(dir);
	if (!dp)
		return 0;
	while (!ret && (d = readdir(dp))) {
		struct znp_holder h = { 0 };

		if (d->d_name[0] == '.')
			continue;
		if (znp_strlcpy(h.kname, d->d_name, sizeof(h.kname)))
			continue;
		snprintf(path, sizeof(path), "%s/%s/dm/name", dir, d->d_name);
		znp_attr_read(path, h.dm_name, sizeof(h.dm_name));
		snprintf(path, sizeof(path), "%s/%s/dm/uuid", dir, d->d_name);
		znp_attr_read(path, h.dm_uuid, sizeof(h.dm_uuid));
		ret = cb(&h, arg);
	}
	closedir(dp);
	return ret;
}

static int any_holder(const struct znp_holder *h, void *arg)
{
	return 1;
}

bool znp_blk_is_held(const struct znp_env *env, const char *blk)
{
	return znp_blk_holders(env, blk, any_holder, NULL) == 1;
}

/* ---- may a block device be removed? ------------------------------------ */

/*
 * Every check below answers 1 (a user found: @why names it), 0 (none), or
 * a negative errno (cannot tell: @why says what could not be read), which
 * counts as a user.
 */

static const char *proc_root(const struct znp_env *env)
{
	return env && env->proc_root ? env->proc_root : "/proc";
}

/* Does @path name block device @rdev? 1 yes, 0 no, -errno cannot tell. */
static int path_is(const char *path, dev_t rdev)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	return S_ISBLK(st.st_mode) && st.st_rdev == rdev;
}

/* opendir(DIR), or NULL with *RET a -errno and WHY naming the directory */
static DIR *dir_open(const char *dir, int *ret, char *why, size_t size)
{
	DIR *dp = opendir(dir);

	if (!dp) {
		*ret = -errno;
		snprintf(why, size, "cannot read %s: %s", dir, strerror(-*ret));
	}
	return dp;
}

/* the holders (device-mapper, md, bcache ...) in sysfs */
static int check_holders(const struct znp_env *env, const char *kname, char *why, size_t size)
{
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int ret = 0;

	ret = znp_sysfs_path(env, dir, sizeof(dir), "block/%s/holders", kname);
	if (ret)
		return ret;
	dp = dir_open(dir, &ret, why, size);
	if (!dp)
		return ret;
	while ((d = readdir(dp)))
		if (d->d_name[0] != '.') {
			snprintf(why, size, "held by %s", d->d_name);
			ret = 1;
			break;
		}
	closedir(dp);
	return ret;
}

/* /proc/swaps: field 1 is the path, with spaces, tabs, newlines and '\' octal-escaped */
static int check_swaps(const struct znp_env *env, dev_t rdev, char *why, size_t size)
{
	char line[PATH_MAX + 128], path[PATH_MAX];
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/swaps", proc_root(env));
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		snprintf(why, size, "cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	if (!fgets(line, sizeof(line), f))	/* the header */
		line[0] = '\0';
	while (!ret && fgets(line, sizeof(line), f)) {
		size_t i = 0, o = 0;

		while (line[i] && line[i] != ' ' && line[i] != '\t' && o + 1 < sizeof(path)) {
			if (line[i] == '\\' && line[i + 1] >= '0' && line[i + 1] <= '3' &&
			    line[i + 2] >= '0' && line[i + 2] <= '7' &&
			    line[i + 3] >= '0' && line[i + 3] <= '7') {
				path[o++] = (char)((line[i + 1] - '0') * 64 + (line[i + 2] - '0') * 8 +
						   line[i + 3] - '0');
				i += 4;
			} else {
				path[o++] = line[i++];
			}
		}
		path[o] = '\0';
		ret = path_is(path, rdev);
		if (ret > 0)
			snprintf(why, size, "swap space");
		else if (ret == -ENOENT)
			ret = 0;	/* a swap file (the kernel's text of its path) */
		else if (ret < 0)
			snprintf(why, size, "cannot tell what swap %s is: %s", path, strerror(-ret));
	}
	fclose(f);
	return ret;
}

/* loop devices: <sysfs>/block/loopN/loop/backing_file (present while bound) */
static int check_loops(const struct znp_env *env, dev_t rdev, char *why, size_t size)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], back[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int ret = 0;

	ret = znp_sysfs_path(env, dir, sizeof(dir), "block");
	if (ret)
		return ret;
	dp = dir_open(dir, &ret, why, size);
	if (!dp)
		return ret;
	while (!ret && (d = readdir(dp))) {
		char *del;

		if (strncmp(d->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s/loop/backing_file", dir, d->d_name);
		ret = znp_attr_read(path, back, sizeof(back));
		if (ret == -ENOENT) {
			ret = 0;	/* not bound */
			continue;
		}
		if (!ret) {
			/* the kernel's path of an unlinked file ends in " (deleted)" */
			del = strstr(back, " (deleted)");
			if (del && !del[10])
				*del = '\0';
			ret = path_is(back, rdev);
		}
		if (ret > 0) {
			snprintf(path, sizeof(path), "%s/%s/dev", dir, d->d_name);
			if (znp_attr_read(path, back, sizeof(back)))
				back[0] = '\0';
			snprintf(why, size, "backing loop device %s%s%s%s", d->d_name,
				 back[0] ? " (" : "", back, back[0] ? ")" : "");
		} else if (ret < 0) {
			snprintf(why, size, "cannot tell what backs loop device %s: %s", d->d_name,
				 strerror(-ret));
		}
	}
	closedir(dp);
	return ret;
}

/*
 * NVMe target namespaces (configfs under <sysfs>/kernel/config/nvmet):
 * subsystems/NQN/namespaces/N/device_path of an enabled namespace. With
 * the nvmet module loaded and no configfs tree to read, nobody can tell.
 */
static int check_nvmet(const struct znp_env *env, dev_t rdev, char *why, size_t size)
{
	char dir[PATH_MAX], path[PATH_MAX * 2], val[PATH_MAX];
	struct dirent *s, *n;
	DIR *sp, *np;
	int ret;

	ret = znp_sysfs_path(env, dir, sizeof(dir), "kernel/config/nvmet/subsystems");
	if (ret)
		return ret;
	sp = opendir(dir);
	if (!sp) {
		ret = -errno;
		if (znp_sysfs_path(env, path, sizeof(path), "module/nvmet") || !znp_path_exists(path))
			return 0;	/* no NVMe target */
		snprintf(why, size, "the NVMe target is loaded and %s cannot be read: %s", dir,
			 strerror(-ret));
		return ret;
	}
	while (!ret && (s = readdir(sp))) {
		if (s->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/namespaces", dir, s->d_name);
		np = opendir(path);
		if (!np) {
			ret = -errno;
			snprintf(why, size, "cannot read the namespaces of NVMe target subsystem "
				 "%s: %s", s->d_name, strerror(-ret));
			break;
		}
		while (!ret && (n = readdir(np))) {
			if (n->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/namespaces/%s/enable", dir, s->d_name,
				 n->d_name);
			if (!znp_attr_read(path, val, sizeof(val)) && !strcmp(val, "0"))
				continue;	/* disabled: the target does not hold it */
			snprintf(path, sizeof(path), "%s/%s/namespaces/%s/device_path", dir,
				 s->d_name, n->d_name);
			ret = znp_attr_read(path, val, sizeof(val));
			if (!ret && !val[0])
				continue;
			if (!ret)
				ret = path_is(val, rdev);
			if (ret > 0)
				snprintf(why, size, "exported by NVMe target subsystem %s namespace %s",
					 s->d_name, n->d_name);
			else if (ret < 0)
				snprintf(why, size, "cannot tell what NVMe target subsystem %s "
					 "namespace %s exports: %s", s->d_name, n->d_name,
					 strerror(-ret));
		}
		closedir(np);
	}
	closedir(sp);
	return ret;
}

struct proc_mount {
	const char *root;
	char hidepid[32];
	bool found;
};

static int proc_mount_cb(const char *line, void *arg)
{
	struct proc_mount *p = arg;
	char mnt[PATH_MAX], type[64], opts[1024];
	const char *sep = strstr(line, " - "), *h;

	if (!sep || sscanf(line, "%*u %*u %*s %*s %4095s", mnt) != 1 || strcmp(mnt, p->root) ||
	    sscanf(sep, " - %63s %*s %1023s", type, opts) != 2 || strcmp(type, "proc"))
		return 0;
	/* the last mount there is the one seen */
	p->found = true;
	p->hidepid[0] = '\0';
	h = strstr(opts, "hidepid=");
	if (h)
		sscanf(h + 8, "%31[^,]", p->hidepid);
	return 0;
}

/* A line of this process's status (<proc>/self/status @key). */
static bool self_status(const struct znp_env *env, const char *key, char *val, size_t size)
{
	char line[512];
	size_t n = strlen(key);
	bool found = false;
	FILE *f;

	snprintf(line, sizeof(line), "%s/self/status", proc_root(env));
	f = fopen(line, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			znp_strlcpy(val, line + n + 1, size);
			found = true;
		}
	fclose(f);
	return found;
}

/*
 * Can this process see every process and its descriptors? Not from a
 * child PID namespace, nor through a /proc mounted hidepid= without
 * CAP_SYS_PTRACE (systemd's ProtectProc=invisible hides other users).
 */
static int check_proc_visible(const struct znp_env *env, char *why, size_t size)
{
	struct proc_mount pm = { proc_root(env), { 0 }, false };
	char val[256], *p;
	unsigned long long cap;
	int ret, n = 0;

	if (!self_status(env, "NSpid", val, sizeof(val))) {
		snprintf(why, size, "cannot read %s/self/status", proc_root(env));
		return -EACCES;
	}
	for (p = strtok(val, " \t\n"); p; p = strtok(NULL, " \t\n"))
		n++;
	if (n != 1) {
		snprintf(why, size, "cannot see processes outside this PID namespace");
		return -EACCES;
	}
	ret = mountinfo_each(proc_mount_cb, &pm);
	if (ret) {
		snprintf(why, size, "cannot read /proc/self/mountinfo: %s", strerror(-ret));
		return ret;
	}
	/* no proc mount on /proc (a test's tree elsewhere): nothing hidden by it */
	if (!pm.found || !pm.hidepid[0] || !strcmp(pm.hidepid, "0") || !strcmp(pm.hidepid, "off"))
		return 0;
	/* CAP_SYS_PTRACE (19) passes hidepid's ptrace check */
	if (self_status(env, "CapEff", val, sizeof(val)) && sscanf(val, "%llx", &cap) == 1 &&
	    (cap & (1ULL << 19)))
		return 0;
	snprintf(why, size, "%s is mounted hidepid=%s: other users' processes are hidden "
		 "from this one", pm.root, pm.hidepid);
	return -EACCES;
}

/*
 * Open by a process other than this one? Every descriptor table must be
 * read, unless @best_effort: then what cannot be read is skipped (a
 * refusal's text looks for a name; it proves nothing).
 */
static int check_procs(const struct znp_env *env, dev_t rdev, bool best_effort, char *why,
		       size_t size)
{
	const char *root = proc_root(env);
	char path[PATH_MAX], comm[64];
	struct dirent *p, *f;
	pid_t self = getpid();
	struct stat st;
	DIR *proc, *fds;
	int ret;

	ret = check_proc_visible(env, why, size);
	if (ret)
		return ret;
	proc = dir_open(root, &ret, why, size);
	if (!proc)
		return ret;
	while (!ret && (p = readdir(proc))) {
		char *end;
		long pid = strtol(p->d_name, &end, 10);

		if (pid <= 0 || *end || pid == self)
			continue;
		snprintf(path, sizeof(path), "%s/%s/fd", root, p->d_name);
		fds = opendir(path);
		if (!fds) {
			if (errno == ENOENT || errno == ESRCH || best_effort)
				continue;	/* it has exited */
			ret = -errno;
			snprintf(path, sizeof(path), "%s/%s", root, p->d_name);
			if (stat(path, &st))
				continue;
			snprintf(why, size, "cannot read the open files of pid %ld (uid %ld): %s",
				 pid, (long)st.st_uid, strerror(-ret));
			break;
		}
		while (!ret && (f = readdir(fds))) {
			if (f->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s/fd/%s", root, p->d_name, f->d_name);
			if (stat(path, &st)) {
				if (errno == ENOENT || errno == ESRCH || best_effort)
					continue;	/* closed meanwhile */
				/* a descriptor that cannot be looked at may be this device */
				ret = -errno;
				snprintf(why, size, "cannot look at descriptor %s of pid %ld: %s",
					 f->d_name, pid, strerror(-ret));
			} else if (S_ISBLK(st.st_mode) && st.st_rdev == rdev) {
				snprintf(path, sizeof(path), "%s/%s/comm", root, p->d_name);
				if (znp_attr_read(path, comm, sizeof(comm)))
					comm[0] = '\0';
				snprintf(why, size, "open by pid %ld%s%s%s", pid, comm[0] ? " (" : "",
					 comm, comm[0] ? ")" : "");
				ret = 1;
			}
		}
		closedir(fds);
	}
	closedir(proc);
	return ret;
}

int znp_blk_opener(const struct znp_env *env, dev_t rdev, char *why, size_t size)
{
	/* what cannot be read names nobody here: the refusal stands without a name */
	if (check_swaps(env, rdev, why, size) > 0 || check_procs(env, rdev, true, why, size) > 0)
		return 1;
	why[0] = '\0';
	return 0;
}

int znp_blk_prove_unused(const struct znp_env *env, const char *node, int *exfd, char *why,
			 size_t size)
{
	char kname[ZNP_NAME_MAX], mnt[PATH_MAX];
	struct stat st;
	dev_t rdev;
	int fd, ret;

	*exfd = -1;
	why[0] = '\0';
	if (stat(node, &st))
		return errno == ENOENT ? -ENOENT : -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	ret = mounted(major(st.st_rdev), minor(st.st_rdev), mnt, sizeof(mnt));
	if (ret) {
		if (ret > 0)
			snprintf(why, size, "mounted on %s", mnt);
		else
			snprintf(why, size, "cannot read /proc/self/mountinfo: %s", strerror(-ret));
		return -EBUSY;
	}
	/* held O_EXCL from here: nothing mounts or claims it behind the checks */
	fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT || ret == -ENXIO)
			return -ENOENT;
		snprintf(why, size, "%s", ret != -EBUSY ? strerror(-ret) :
			 "mounted, or claimed by another user (open exclusively)");
		return -EBUSY;
	}
	if (fstat(fd, &st) || !S_ISBLK(st.st_mode)) {
		close(fd);
		snprintf(why, size, "cannot look at the device it opens as");
		return -EBUSY;
	}
	rdev = st.st_rdev;
	ret = znp_blk_kname(env, major(rdev), minor(rdev), kname, sizeof(kname));
	if (ret)
		snprintf(why, size, "not in sysfs: %s", strerror(-ret));
	if (!ret)
		ret = check_holders(env, kname, why, size);
	if (!ret)
		ret = check_loops(env, rdev, why, size);
	if (!ret)
		ret = check_nvmet(env, rdev, why, size);
	if (!ret)
		ret = check_swaps(env, rdev, why, size);
	if (!ret)
		ret = check_procs(env, rdev, false, why, size);
	if (ret) {
		close(fd);
		return -EBUSY;
	}
	*exfd = fd;
	return 0;
}
