// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk mappings in check, list, status and unmap. The records are written
 * by the servers `map --ublk` starts (cmd_ublkmap_serve.c); see src/svc/svc.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_map.h"
#include "cmd_ublk.h"
#include "dm.h"
#include "ublk.h"

#define UNMAP_WAIT_MS	10000	/* for the server to leave after STOP_DEV */

void znp_cli_ublk_route(const struct znp_cli *cli, struct znp_ublk_route_info *out)
{
	bool fake = cli->env.sysfs_root || cli->env.dev_root;
	char ctl[PATH_MAX], mods[PATH_MAX + 80];
	struct utsname u;
	int (*probe)(uint64_t *) = NULL;

	if (znp_dev_path(&cli->env, ctl, sizeof(ctl), "ublk-control"))
		ctl[0] = '\0';
	if (!fake && !uname(&u))
		snprintf(mods, sizeof(mods), "/lib/modules/%s", u.release);
	else
		mods[0] = '\0';
	if (!fake)
		probe = znp_ublk_probe;
	znp_ublk_route(ctl[0] ? ctl : NULL, mods[0] ? mods : NULL, probe, out);
}

const char *znp_cli_run_dir(void)
{
	const char *d = getenv("ZNP_RUN_DIR");

	return d && *d ? d : ZNP_RUN_DIR;
}

/* Health of a record's mapping: lock, sysfs, and GET_DEV_INFO when we can. */
static enum znp_ublk_health rec_health(const struct znp_cli *cli, int dirfd,
				       const struct znp_ublk_rec *r, int *state)
{
	struct znp_ublk_presence pr;
	int held = znp_ns_lock_held(dirfd, r->ident);

	znp_ublk_presence(cli->env.sysfs_root, r->dev_id, &pr);
	if (!cli->env.sysfs_root && (pr.cdev || pr.disk)) {
		struct znp_ublk_info info;

		if (!znp_ublk_dev_info(r->dev_id, &info))
			pr.state = info.state;
	}
	*state = pr.state;
	return znp_ublk_health(held > 0, &pr);
}

const char *znp_cli_ublk_mapped_as(const struct znp_cli *cli, const struct znp_ns_info *ns,
				   char *buf, size_t size)
{
	char ident[ZNP_IDENT_MAX];
	struct znp_ublk_rec r;
	struct znp_ublk_presence pr;
	int dirfd;
	const char *ret = NULL;

	if (znp_ident_from_ns(ns, ident, sizeof(ident)))
		return NULL;
	dirfd = znp_run_dir_open(znp_cli_run_dir(), false);
	if (dirfd < 0)
		return NULL;
	if (!znp_ublk_rec_get(dirfd, ident, &r)) {
		znp_ublk_presence(cli->env.sysfs_root, r.dev_id, &pr);
		if (pr.cdev || pr.disk) {
			snprintf(buf, size, "ublkb%d", r.dev_id);
			ret = buf;
		}
	}
	close(dirfd);
	return ret;
}

/* ---- which mapping does an argument name? ------------------------------- */

struct ublk_match {
	const struct znp_cli *cli;
	const char *arg;
	char ident[ZNP_IDENT_MAX];	/* of the namespace @arg names, "" if not one */
	int dev_id;			/* ublkbN named, -1 */
	struct znp_ublk_rec rec;
	bool found;
};

static int parse_ublkb(const char *s)
{
	const char *b = strrchr(s, '/');
	char *end;
	long v;

	b = b ? b + 1 : s;
	if (strncmp(b, "ublkb", 5) || b[5] < '0' || b[5] > '9')
		return -1;
	v = strtol(b + 5, &end, 10);
	return *end || v > INT_MAX ? -1 : (int)v;
}

static void match_prepare(struct ublk_match *m)
{
	struct znp_dev *dev;
	const char *why;

	m->dev_id = parse_ublkb(m->arg);
	m->ident[0] = '\0';
	if (m->dev_id >= 0 || !strchr(m->arg, '/'))
		return;
	/* a namespace node: its identity */
	if (!znp_dev_open(&m->cli->env, m->arg, 0, &dev, &why)) {
		if (znp_dev_is_nvme(dev) && znp_ident_from_ns(&dev->ns, m->ident, sizeof(m->ident)))
			m->ident[0] = '\0';
		znp_dev_close(dev);
	}
}

static bool match_rec(const struct ublk_match *m, const struct znp_ublk_rec *r)
{
	if (m->dev_id >= 0)
		return r->dev_id == m->dev_id;
	if (m->ident[0])
		return !strcmp(r->ident, m->ident);
	return r->name[0] && !strcmp(r->name, m->arg);
}

static int find_cb(const struct znp_ublk_rec *r, const char *file, const char *why, void *arg)
{
	struct ublk_match *m = arg;

	if (!r || !match_rec(m, r))
		return 0;
	m->rec = *r;
	m->found = true;
	return 1;
}

static bool find_rec(const struct znp_cli *cli, int dirfd, const char *arg, struct ublk_match *m)
{
	*m = (struct ublk_match){ .cli = cli, .arg = arg };
	match_prepare(m);
	znp_ublk_rec_each(dirfd, find_cb, m);
	return m->found;
}

bool znp_cli_ublk_names(const struct znp_cli *cli, const char *arg)
{
	struct ublk_match m;
	int dirfd = znp_run_dir_open(znp_cli_run_dir(), false);
	bool ret;

	if (dirfd < 0)
		return false;
	ret = find_rec(cli, dirfd, arg, &m);
	close(dirfd);
	return ret;
}

/* ---- status --------------------------------------------------------------- */

struct conf_match {
	const char *ident;
	bool found;
};

static int conf_match_cb(unsigned int lineno, const struct znp_dmconf_entry *e,
			 const char *why, void *arg)
{
	struct conf_match *c = arg;

	if (e && e->ublk && !strcmp(e->ident, c->ident))
		c->found = true;
	return c->found;
}

/* Is the namespace recorded as a ublk mapping in the (default) mapping file? */
static bool persisted(const char *ident)
{
	struct conf_match c = { .ident = ident };
	char *buf;
	size_t len;

	if (znp_dmconf_read(ZNP_DMCONF_PATH, &buf, &len))
		return false;
	znp_dmconf_parse(buf, len, conf_match_cb, &c);
	free(buf);
	return c.found;
}

static void status_row(const struct znp_cli *cli, struct znp_print *p, int dirfd,
		       const struct znp_ublk_rec *r)
{
	struct znp_ublk_status_view u = { .rec = r };
	struct znp_status_row row = { .ublk = &u, .ident = r->ident, .backing = r->ng };
	char dev[32];
	int state;

	snprintf(dev, sizeof(dev), "ublkb%d", r->dev_id);
	u.device = dev;
	u.health = znp_ublk_health_name(rec_health(cli, dirfd, r, &state));
	u.dev_state = state;
	row.persisted = r->persist || persisted(r->ident);
	p->ops->status_row(p, &row);
}

struct status_each {
	const struct znp_cli *cli;
	struct znp_print *p;
	int dirfd, rows;
};

static int status_cb(const struct znp_ublk_rec *r, const char *file, const char *why, void *arg)
{
	struct status_each *s = arg;

	if (!s->p) {		/* counting */
		s->rows++;
		return 0;
	}
	if (!r) {
		znp_cli_err(s->cli, file, "unreadable ublk mapping record in %s: %s",
			    znp_cli_run_dir(), why);
		return 0;
	}
	status_row(s->cli, s->p, s->dirfd, r);
	s->rows++;
	return 0;
}

int znp_cli_ublk_status(const struct znp_cli *cli, struct znp_print *p, const char *arg)
{
	struct status_each s = { .cli = cli, .p = p };
	struct ublk_match m;

	s.dirfd = znp_run_dir_open(znp_cli_run_dir(), false);
	if (s.dirfd < 0)
		return arg ? -1 : 0;
	if (arg && p) {
		if (find_rec(cli, s.dirfd, arg, &m)) {
			status_row(cli, p, s.dirfd, &m.rec);
			s.rows = 1;
		} else {
			s.rows = -1;
		}
	} else {
		znp_ublk_rec_each(s.dirfd, status_cb, &s);
	}
	close(s.dirfd);
	return s.rows;
}

/* ---- unmap -------------------------------------------------------------- */

/* Mount point of block device @dev ("ublkb0"), "" when not mounted. */
static void ublk_mounted_on(const struct znp_cli *cli, const char *dev, char *buf, size_t size)
{
	char path[PATH_MAX];
	struct stat st;

	buf[0] = '\0';
	if (!znp_dev_path(&cli->env, path, sizeof(path), dev) && !stat(path, &st) &&
	    S_ISBLK(st.st_mode))
		znp_blk_mount_point(major(st.st_rdev), minor(st.st_rdev), buf, size);
}

/* Is the block device held (mounted, opened exclusively, a holder on top)? */
static bool ublk_busy(const struct znp_cli *cli, const char *dev, char *why, size_t size)
{
	char path[PATH_MAX], mnt[512];
	int fd;

	ublk_mounted_on(cli, dev, mnt, sizeof(mnt));
	if (mnt[0]) {
		snprintf(why, size, "mounted on %s", mnt);
		return true;
	}
	if (znp_dev_path(&cli->env, path, sizeof(path), dev))
		return false;
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == EBUSY) {
		snprintf(why, size, "held by another user (open exclusively)");
		return true;
	}
	if (fd >= 0)
		close(fd);
	return false;
}

/* Write back what the page cache holds for the device before it goes. */
static void ublk_sync(const struct znp_cli *cli, const char *dev)
{
	char path[PATH_MAX];
	int fd;

	if (znp_dev_path(&cli->env, path, sizeof(path), dev))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static bool wait_unlocked(int dirfd, const char *ident, int ms)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	for (int t = 0; t < ms; t += 50) {
		if (znp_ns_lock_held(dirfd, ident) <= 0)
			return true;
		nanosleep(&ts, NULL);
	}
	return znp_ns_lock_held(dirfd, ident) <= 0;
}

/*
 * SIGTERM to the record's server, only when its pid still is that server
 * (pidfd + start time): a stale pid may be anyone's process now.
 */
static void stop_server(const struct znp_cli *cli, const char *name, const struct znp_ublk_rec *r)
{
	int pidfd, ret = znp_ublk_server_pidfd("/proc", r, &pidfd);

	if (!ret) {
		ret = znp_pidfd_signal(pidfd, SIGTERM);
		close(pidfd);
	}
	if (ret && ret != -ESRCH)
		znp_cli_err(cli, name, "not signalling recorded server pid %ld: %s", (long)r->pid,
			    ret == -ESTALE ? "that pid is another process now (stale record)" :
			    ret == -ENODATA ? "the record has no start time to check it by" :
			    znp_strerror(ret));
}

int znp_cli_ublk_unmap(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct znp_unmap_view v = { .dry_run = o->dry_run, .config = znp_map_config(o) };
	char dev[32], why[600], name[ZNP_DM_NAME_MAX], lockwhy[PATH_MAX + 96];
	struct ublk_match m;
	int dirfd, ret, state;
	enum znp_ublk_health h;

	dirfd = znp_run_dir_open(znp_cli_run_dir(), false);
	if (dirfd < 0 || !find_rec(cli, dirfd, o->args[0], &m)) {
		znp_cli_err(cli, o->args[0], "is not a ublk mapping of this tool");
		if (dirfd >= 0)
			close(dirfd);
		return ZNP_EXIT_UNSUITABLE;
	}
	snprintf(dev, sizeof(dev), "ublkb%d", m.rec.dev_id);
	snprintf(name, sizeof(name), "%s", m.rec.name[0] ? m.rec.name : dev);
	v.name = name;
	v.backing = m.rec.ng[0] ? m.rec.ng : NULL;
	v.ublk = true;
	h = rec_health(cli, dirfd, &m.rec, &state);
	if (h != ZNP_UBLK_MISSING && ublk_busy(cli, dev, why, sizeof(why)) && !o->force) {
		znp_cli_err(cli, name, "/dev/%s is in use (%s): not unmapped; unmount or close it, "
			    "or use --force (its users then get I/O errors)", dev, why);
		close(dirfd);
		return ZNP_EXIT_REFUSED;
	}
	if (o->dry_run) {
		p->ops->unmap(p, &v);
		close(dirfd);
		return ZNP_EXIT_OK;
	}
	ret = 0;
	if (h != ZNP_UBLK_MISSING) {
		ublk_sync(cli, dev);
		/* STOP_DEV: the server's run loop ends, it deletes the device and its record */
		ret = znp_ublk_dev_stop(m.rec.dev_id);
		if (ret && ret != -ENODEV) {
			znp_cli_err(cli, name, "cannot stop /dev/%s: %s", dev, znp_strerror(ret));
			close(dirfd);
			return znp_exit_from_ret(ret);
		}
		if (h == ZNP_UBLK_ALIVE && !wait_unlocked(dirfd, m.rec.ident, UNMAP_WAIT_MS))
			stop_server(cli, name, &m.rec);
		if (!wait_unlocked(dirfd, m.rec.ident, UNMAP_WAIT_MS)) {
			/* DEL_DEV would wait for the hung server; its record and lock stay */
			znp_cli_err(cli, name, "the server of /dev/%s (pid %ld in its record) still "
				    "holds the namespace's lock in %s: stopped, not removed", dev,
				    (long)m.rec.pid, znp_cli_run_dir());
			close(dirfd);
			return ZNP_EXIT_FAILED;
		}
		ret = znp_ublk_dev_del(m.rec.dev_id);
		if (ret == -ENODEV)
			ret = 0;
	}
	if (ret) {
		znp_cli_err(cli, name, "cannot remove /dev/%s: %s", dev, znp_strerror(ret));
		close(dirfd);
		return znp_exit_from_ret(ret);
	}
	ret = znp_ublk_forget(dirfd, m.rec.ident);
	close(dirfd);
	if (ret && ret != -ENOENT) {
		znp_cli_err(cli, name, "removed, but cannot remove its record in %s: %s",
			    znp_cli_run_dir(), ret == -EBUSY ? "a server holds the namespace's "
			    "lock again" : znp_strerror(ret));
		return ZNP_EXIT_FAILED;
	}
	ret = znp_dmconf_drop(znp_map_config(o), m.rec.ident, NULL);
	if (ret < 0) {
		p->ops->unmap(p, &v);
		znp_cli_err(cli, name, "removed, but cannot update %s: %s", znp_map_config(o),
			    znp_cli_conf_strerror(znp_map_config(o), ret, lockwhy, sizeof(lockwhy)));
		return ZNP_EXIT_FAILED;
	}
	v.forgotten = ret == 1;
	p->ops->unmap(p, &v);
	return ZNP_EXIT_OK;
}

/* ---- map --restore of a ublk entry --------------------------------------- */

static int run_wait(char *const argv[])
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		execv(argv[0], argv);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -ECHILD;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int znp_cli_ublk_restore(const struct znp_cli *cli, const struct znp_opts *o, const char *name,
			 const char *ng, const char **result, char *err, size_t size)
{
	char unit[4 * ZNP_DM_NAME_MAX + 32], inst[4 * ZNP_DM_NAME_MAX], self[PATH_MAX];
	struct ublk_match m;
	struct stat st;
	int dirfd, ret, state;
	ssize_t n;

	*result = "failed";
	dirfd = znp_run_dir_open(znp_cli_run_dir(), false);
	if (dirfd >= 0) {
		bool served = find_rec(cli, dirfd, ng, &m) &&
			      rec_health(cli, dirfd, &m.rec, &state) == ZNP_UBLK_ALIVE;

		close(dirfd);
		if (served) {
			*result = "already-mapped";
			return ZNP_EXIT_OK;
		}
	}
	if (o->dry_run) {
		*result = "would-map";
		return ZNP_EXIT_OK;
	}
	/* under systemd: its unit serves (and restarts) the mapping */
	if (!getenv("ZNP_RUN_DIR") && !stat("/run/systemd/system", &st) && S_ISDIR(st.st_mode)) {
		char *argv[] = { "systemctl", "start", "--no-block", unit, NULL };

		/* "po2-a" is zns-npo2-ublk@po2\x2da.service: the unit's %I gives it back */
		if (znp_unit_escape(name, inst, sizeof(inst))) {
			snprintf(err, size, "cannot make a unit name of mapping name %s", name);
			return ZNP_EXIT_FAILED;
		}
		snprintf(unit, sizeof(unit), "zns-npo2-ublk@%s.service", inst);
		ret = run_wait(argv);
		if (!ret) {
			*result = "started";
			return ZNP_EXIT_OK;
		}
		snprintf(err, size, "systemctl start %s failed (exit %d)", unit, ret);
		return ZNP_EXIT_FAILED;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		snprintf(err, size, "cannot find this program: %s", znp_strerror(-errno));
		return ZNP_EXIT_FAILED;
	}
	self[n] = '\0';
	{
		char *argv[] = { self, "map", "--ublk", (char *)ng, "--name", (char *)name,
				 "--config", (char *)znp_map_config(o), NULL };

		ret = run_wait(argv);
	}
	if (!ret) {
		*result = "mapped";
		return ZNP_EXIT_OK;
	}
	snprintf(err, size, "map --ublk %s exited with %d (see the system log)", ng, ret);
	return ret > 0 && ret < 128 ? ret : ZNP_EXIT_FAILED;
}
