// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map --ublk: serve a npo2 namespace as a power-of-2 zoned ublk device
 * (the server is src/ublk/; this file is its life around it).
 *
 * 1. Refuse what cannot be served (check verdicts, geometry), before
 *    anything changes.
 * 2. The ublk driver: probe it, `modprobe ublk_drv` when it is not loaded.
 * 3. Take the namespace's lock in /run/zns-npo2 (svc.h): a second server on
 *    the same namespace is refused with the first one's PID and device.
 * 4. A record of a device that is still there and QUIESCED (its server was
 *    killed): take it back with user recovery; a stale record is dropped.
 * 5. Unless --foreground, fork: the child serves as a daemon (new session,
 *    stdio on /dev/null, logging to syslog), the parent waits on a pipe
 *    until the device is live (or the child failed) and prints the result.
 * 6. Once live: write the record (PID, ublk device id, namespace identity
 *    and geometry). SIGTERM/SIGINT stop the device; after a clean stop (also
 *    STOP_DEV from `unmap`) the device is deleted and the record removed.
 *
 * Every refusal is logged (stderr and syslog) with its reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_map.h"
#include "cmd_ublk.h"
#include "dm.h"
#include "ublk.h"

struct umap {
	const struct znp_cli *cli;
	const struct znp_opts *o;
	struct znp_print *p;
	bool daemon;			/* child of the fork: stderr is gone */
	int report_fd;			/* pipe to the waiting parent, -1 none */
};

/* One line to syslog, and to stderr unless we are the daemon. */
__attribute__((format(printf, 3, 4)))
static void say(struct umap *m, int prio, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	syslog(prio, "%s: %s", m->o->args[0], buf);
	if (!m->daemon && prio <= LOG_WARNING)
		znp_cli_err(m->cli, m->o->args[0], "%s", buf);
	else if (!m->daemon && (m->o->verbose || m->o->foreground))
		fprintf(m->cli->err, "%s: %s: %s\n", m->cli->prog, m->o->args[0], buf);
}

/* A refusal: logged with its reason, then passed to the parent. Return: @code. */
__attribute__((format(printf, 3, 4)))
static int refuse(struct umap *m, int code, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	say(m, LOG_ERR, "%s", buf);
	if (m->report_fd >= 0) {
		dprintf(m->report_fd, "E %d %s\n", code, buf);
		close(m->report_fd);
		m->report_fd = -1;
	}
	return code;
}

static int refuse_verdict(struct umap *m, const struct znp_dev *dev,
			  const struct znp_check_result *r)
{
	const struct znp_geom *g = &dev->geom;

	switch (r->verdict) {
	case ZNP_V_NEEDS_KERNEL:
	case ZNP_V_UBLK:
		break;
	case ZNP_V_MAPPABLE:
		if (m->o->force_ublk)
			break;
		return refuse(m, ZNP_EXIT_REFUSED, "the kernel shows this namespace's block device "
			      "(npo2 kernel patches): map it with plain `map` (dm-po2zone, cheaper), "
			      "or add --force-ublk to serve it through ublk anyway");
	case ZNP_V_PO2:
		return refuse(m, ZNP_EXIT_UNSUITABLE, "zone size 0x%" PRIx64 " LBAs is a power of "
			      "2: nothing to do (no mapping needed)", g->zone_size);
	case ZNP_V_CAP_LT_SIZE:
		return refuse(m, ZNP_EXIT_UNSUITABLE, "zone capacity 0x%" PRIx64 " < zone size 0x%"
			      PRIx64 " LBAs: a po2 mapping needs capacity == size", g->zone_cap,
			      g->zone_size);
	case ZNP_V_CAP_VARIES:
		return refuse(m, ZNP_EXIT_UNSUITABLE, "%s", znp_verdict_text(r->verdict));
	case ZNP_V_NOT_ZNS:
		return refuse(m, ZNP_EXIT_UNSUITABLE, "not a zoned namespace");
	}
	if (r->reasons & ZNP_R_SMALL_LAST_ZONE)
		return refuse(m, ZNP_EXIT_UNSUITABLE, "the last zone is smaller than the others: "
			      "a po2 mapping maps whole zones only");
	return 0;
}


/* ---- the driver -------------------------------------------------------------- */

static int modprobe_ublk(void)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		execlp("modprobe", "modprobe", "-q", "ublk_drv", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -ECHILD;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -ENOENT;
}

static int need_driver(struct umap *m)
{
	uint64_t feat = 0;
	int ret = znp_ublk_probe(&feat);

	if (ret == -ENOENT) {
		say(m, LOG_NOTICE, "loading ublk_drv");
		if (!modprobe_ublk()) {
			for (int i = 0; i < 40 && (ret = znp_ublk_probe(&feat)) == -ENOENT; i++)
				usleep(50000);	/* the control node appears */
		}
	}
	if (ret == -ENOENT)
		return refuse(m, ZNP_EXIT_UNSUPPORTED, "the kernel has no ublk driver "
			      "(/dev/ublk-control missing, `modprobe ublk_drv` failed)");
	if (ret == -EACCES || ret == -EPERM)
		return refuse(m, ZNP_EXIT_REFUSED, "no access to /dev/ublk-control: a ublk server "
			      "needs root (CAP_SYS_ADMIN)");
	if (ret == -EOPNOTSUPP)
		return refuse(m, ZNP_EXIT_UNSUPPORTED, "the ublk driver lacks zoned devices, user "
			      "copy or user recovery (features 0x%" PRIx64 "; needs Linux >= 6.6)",
			      feat);
	if (ret)
		return refuse(m, ZNP_EXIT_FAILED, "cannot ask the ublk driver for its features: %s",
			      znp_strerror(ret));
	return 0;
}

/* ---- serving --------------------------------------------------------------- */

struct serve {
	struct umap *m;
	struct znp_dev *dev;
	const struct znp_ublk_geom *g;
	struct znp_map_ublk_view v;
	struct znp_ublk_rec rec;
	int dirfd;
	bool live;
};

static struct znp_ublk_server *volatile the_server;

static void on_stop_signal(int sig)
{
	(void)sig;
	if (the_server)
		znp_ublk_server_stop(the_server);
}

static void server_log(void *arg, int prio, const char *fmt, ...)
{
	struct umap *m = arg;
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	say(m, prio, "%s", buf);
}

/* systemd's readiness protocol (Type=notify): "READY=1" to $NOTIFY_SOCKET. */
static void notify_ready(struct umap *m)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') ||
	    (len = strlen(path)) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';	/* abstract socket */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, "READY=1", 7, 0, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		say(m, LOG_WARNING, "cannot notify systemd: %s", znp_strerror(-errno));
	close(fd);
}

static void on_ready(void *arg, int dev_id)
{
	struct serve *s = arg;
	struct umap *m = s->m;
	int ret;

	s->live = true;
	s->rec.dev_id = dev_id;
	s->rec.pid = getpid();
	s->rec.started = (uint64_t)time(NULL);
	ret = znp_ublk_rec_put(s->dirfd, &s->rec);
	if (ret)
		say(m, LOG_ERR, "cannot write the record in %s: %s (status and unmap will not "
		    "find /dev/ublkb%d)", znp_cli_run_dir(), znp_strerror(ret), dev_id);
	say(m, LOG_NOTICE, "%s /dev/ublkb%d, server pid %ld", s->v.recovered ? "took back" :
	    "serving", dev_id, (long)getpid());
	s->v.dev_id = dev_id;
	s->v.pid = (long)getpid();
	if (m->report_fd >= 0) {
		dprintf(m->report_fd, "R %d %d\n", dev_id, s->v.recovered);
		close(m->report_fd);
		m->report_fd = -1;
	} else if (!m->daemon) {
		/*
		 * --foreground: stdout carries only the device path (scripts and
		 * units read it); the details go to stderr and the log
		 */
		if (m->o->fmt == ZNP_FMT_NORMAL) {
			fprintf(m->p->out, "/dev/ublkb%d\n", dev_id);
			say(m, LOG_INFO, "serving %s as /dev/ublkb%d: %" PRIu64 " zones of %" PRIu64
			    " sectors (capacity %" PRIu64 "), queues %u x depth %u", m->o->args[0],
			    dev_id, s->g->nr_zones, s->v.zone_sectors, s->v.zone_cap_sectors,
			    s->v.queues, s->v.depth);
		} else {
			m->p->ops->map_ublk(m->p, &s->v);
		}
		fflush(m->p->out);
		notify_ready(m);
	}
}

static void detach_stdio(void)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0)
		return;
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	if (null > 2)
		close(null);
}

/* The server's life (the daemon child, or --foreground). Return: exit code. */
static int serve(struct serve *s, int recover_id)
{
	struct umap *m = s->m;
	struct znp_ublk_opts uo = {
		.dev_id = znp_opt_given(m->o, ZNP_O_UBLK_ID) ? (int)m->o->ublk_id : -1,
		.nr_queues = m->o->queues, .queue_depth = m->o->queue_depth,
		.log = server_log, .log_arg = m,
	};
	struct znp_ublk_server *srv = NULL;
	struct sigaction sa = { .sa_handler = on_stop_signal };
	int ret, dev_id;

	ret = recover_id >= 0 ? znp_ublk_server_recover(s->dev, recover_id, &uo, &srv)
			      : znp_ublk_server_create(s->dev, &uo, &srv);
	if (ret)
		return refuse(m, znp_exit_from_ret(ret), "cannot %s the ublk device: %s",
			      recover_id >= 0 ? "take back" : "create", znp_strerror(ret));
	dev_id = znp_ublk_server_dev_id(srv);
	the_server = srv;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	ret = znp_ublk_server_run(srv, on_ready, s);
	the_server = NULL;
	znp_ublk_server_free(srv);
	if (!s->live) {
		/* never started: create() deleted it; a recovered one stays quiesced */
		return refuse(m, znp_exit_from_ret(ret ? ret : -EIO), "cannot start /dev/ublkb%d: %s",
			      dev_id, znp_strerror(ret ? ret : -EIO));
	}
	if (ret) {
		/* the device stays (quiesced): a new `map --ublk` takes it back */
		say(m, LOG_ERR, "server of /dev/ublkb%d failed: %s; the device is kept for a "
		    "restart", dev_id, znp_strerror(ret));
		return ZNP_EXIT_FAILED;
	}
	ret = znp_ublk_dev_del(dev_id);
	if (ret && ret != -ENODEV)
		say(m, LOG_ERR, "cannot delete /dev/ublkb%d: %s", dev_id, znp_strerror(ret));
	znp_ublk_rec_drop(s->dirfd, s->rec.ident);
	say(m, LOG_NOTICE, "stopped /dev/ublkb%d", dev_id);
	return ZNP_EXIT_OK;
}

/* Parent of the daemon: wait for "R <id> <recovered>" or "E <code> <why>". */
static int wait_child(struct serve *s, int rfd, pid_t child)
{
	struct umap *m = s->m;
	char buf[640];
	size_t off = 0;
	int code, id, rec, st;

	for (;;) {
		ssize_t n = read(rfd, buf + off, sizeof(buf) - 1 - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
		if (off == sizeof(buf) - 1)
			break;
	}
	close(rfd);
	buf[off] = '\0';
	if (sscanf(buf, "R %d %d", &id, &rec) == 2) {
		s->v.dev_id = id;
		s->v.pid = (long)child;
		s->v.recovered = rec;
		m->p->ops->map_ublk(m->p, &s->v);
		return ZNP_EXIT_OK;
	}
	if (sscanf(buf, "E %d", &code) == 1 && strchr(buf + 2, ' ')) {
		buf[strcspn(buf, "\n")] = '\0';
		znp_cli_err(m->cli, m->o->args[0], "%s", strchr(buf + 2, ' ') + 1);
		waitpid(child, &st, 0);
		return code;
	}
	waitpid(child, &st, 0);
	znp_cli_err(m->cli, m->o->args[0], "the server exited before the device was live "
		    "(see the system log)");
	return ZNP_EXIT_FAILED;
}

/* Lock, recovery decision, fork. Return: exit code. */
static int start(struct serve *s)
{
	struct umap *m = s->m;
	struct znp_ublk_rec old;
	struct znp_ublk_info info;
	int lockfd = -1, recover_id = -1, ret, pfd[2];
	pid_t pid;

	mkdir("/run", 0755);
	s->dirfd = znp_run_dir_open(znp_cli_run_dir(), true);
	if (s->dirfd < 0)
		return refuse(m, ZNP_EXIT_FAILED, "unsafe or unusable state directory %s: %s",
			      znp_cli_run_dir(), znp_strerror(s->dirfd));
	ret = znp_ns_lock(s->dirfd, s->rec.ident, &lockfd);
	if (ret == -EBUSY) {
		if (!znp_ublk_rec_get(s->dirfd, s->rec.ident, &old))
			return refuse(m, ZNP_EXIT_REFUSED, "already served by server pid %ld as "
				      "/dev/ublkb%d: refusing a second server on this namespace",
				      (long)old.pid, old.dev_id);
		return refuse(m, ZNP_EXIT_REFUSED, "another server is starting on this namespace "
			      "(its lock in %s is held)", znp_cli_run_dir());
	}
	if (ret)
		return refuse(m, ZNP_EXIT_FAILED, "cannot lock the namespace in %s: %s",
			      znp_cli_run_dir(), znp_strerror(ret));
	if (m->o->recover) {
		/* explicit: take back --ublk-id, record or not */
		recover_id = (int)m->o->ublk_id;
		s->v.recovered = true;
		ret = -ENOENT;
	} else {
		/* a device left by a server that died: take it back */
		ret = znp_ublk_rec_get(s->dirfd, s->rec.ident, &old);
	}
	if (ret == -ENOENT) {
		/* nothing recorded */
	} else if (!ret) {
		ret = znp_ublk_dev_info(old.dev_id, &info);
		if (!ret && info.state == ZNP_UBLK_S_QUIESCED) {
			recover_id = old.dev_id;
			s->v.recovered = true;
			say(m, LOG_NOTICE, "/dev/ublkb%d is quiesced (server pid %ld died): taking "
			    "it back", old.dev_id, (long)old.pid);
		} else if (!ret && info.state == ZNP_UBLK_S_LIVE) {
			znp_ns_unlock(lockfd);
			return refuse(m, ZNP_EXIT_REFUSED, "/dev/ublkb%d of this namespace is live "
				      "without its server's lock (pid %ld): not touched", old.dev_id,
				      (long)info.srv_pid);
		} else {
			if (!ret) {	/* added, never started or dead: delete it */
				say(m, LOG_NOTICE, "deleting /dev/ublkb%d left in state %d",
				    old.dev_id, info.state);
				znp_ublk_dev_del(old.dev_id);
			}
			znp_ublk_rec_drop(s->dirfd, s->rec.ident);
			/* the lock file went with it; ours stays valid, take a fresh one */
			znp_ns_unlock(lockfd);
			ret = znp_ns_lock(s->dirfd, s->rec.ident, &lockfd);
			if (ret)
				return refuse(m, ret == -EBUSY ? ZNP_EXIT_REFUSED : ZNP_EXIT_FAILED,
					      "cannot lock the namespace: %s", znp_strerror(ret));
		}
	} else {
		say(m, LOG_WARNING, "ignoring an unreadable record: %s", znp_strerror(ret));
	}
	if (m->o->foreground)
		return serve(s, recover_id);	/* the lock goes when we exit */

	if (pipe2(pfd, O_CLOEXEC))
		return refuse(m, ZNP_EXIT_FAILED, "pipe: %s", znp_strerror(-errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return refuse(m, ZNP_EXIT_FAILED, "fork: %s", znp_strerror(-errno));
	if (pid) {
		close(pfd[1]);
		znp_ns_unlock(lockfd);	/* the child holds the lock now */
		return wait_child(s, pfd[0], pid);
	}
	close(pfd[0]);
	m->report_fd = pfd[1];
	m->daemon = true;
	setsid();
	if (chdir("/"))
		say(m, LOG_WARNING, "cannot chdir to /: %s", znp_strerror(-errno));
	detach_stdio();
	ret = serve(s, recover_id);
	_exit(ret);
}

struct by_name {
	const char *name;
	struct znp_dmconf_entry e;
	bool found;
	char ng[PATH_MAX];
	const struct znp_cli *cli;
};

static int by_name_cb(unsigned int lineno, const struct znp_dmconf_entry *e, const char *why,
		      void *arg)
{
	struct by_name *b = arg;

	if (e && !strcmp(e->name, b->name)) {
		b->e = *e;
		b->found = true;
		return 1;
	}
	return 0;
}

static int by_ident_cb(const struct znp_scan_entry *se, void *arg)
{
	struct by_name *b = arg;
	char ident[ZNP_IDENT_MAX];

	if (se->ns.ng_name[0] && !znp_ident_from_ns(&se->ns, ident, sizeof(ident)) &&
	    !strcmp(ident, b->e.ident)) {
		znp_dev_path(&b->cli->env, b->ng, sizeof(b->ng), se->ns.ng_name);
		return 1;
	}
	return 0;
}

/*
 * `map --ublk --name NAME` without a device (the systemd unit): the
 * namespace recorded under NAME in the mapping file, found by identity.
 * Return: 0 with b->ng set, or an exit code (error printed and logged).
 */
static int recorded_ng(const struct znp_cli *cli, const struct znp_opts *o, struct by_name *b)
{
	char *buf;
	size_t len;
	int ret;

	b->name = o->name;
	b->cli = cli;
	ret = znp_dmconf_read(znp_map_config(o), &buf, &len);
	if (ret) {
		znp_cli_err(cli, o->name, "cannot read %s: %s", znp_map_config(o), znp_strerror(ret));
		syslog(LOG_ERR, "%s: cannot read %s: %s", o->name, znp_map_config(o),
		       znp_strerror(ret));
		return ret == -ENOENT ? ZNP_EXIT_UNSUITABLE : ZNP_EXIT_FAILED;
	}
	znp_dmconf_parse(buf, len, by_name_cb, b);
	free(buf);
	if (!b->found || !b->e.ublk) {
		znp_cli_err(cli, o->name, "no ublk mapping of this name in %s", znp_map_config(o));
		syslog(LOG_ERR, "%s: no ublk mapping of this name in %s", o->name,
		       znp_map_config(o));
		return ZNP_EXIT_UNSUITABLE;
	}
	b->ng[0] = '\0';
	znp_scan(&cli->env, by_ident_cb, b);
	if (!b->ng[0]) {
		znp_cli_err(cli, o->name, "namespace %s is not present", b->e.ident);
		syslog(LOG_ERR, "%s: namespace %s is not present", o->name, b->e.ident);
		return ZNP_EXIT_UNSUITABLE;
	}
	return 0;
}

int znp_cmd_map_ublk(const struct znp_cli *cli, const struct znp_opts *o, struct znp_print *p)
{
	struct umap m = { .cli = cli, .o = o, .p = p, .report_fd = -1 };
	struct serve s = { .m = &m, .dirfd = -1 };
	struct znp_ublk_geom g;
	struct znp_check_result res;
	char ident[ZNP_IDENT_MAX];
	const char *why;
	struct znp_dev *dev;
	int ret;

	openlog("nvme-zns-npo2", LOG_PID, LOG_DAEMON);
	if (!o->nargs) {
		static struct znp_opts o2;
		static struct by_name b;

		if (!o->name) {
			znp_cli_err(cli, "map", "missing argument <device> (or --name of a "
				    "recorded ublk mapping)");
			return ZNP_EXIT_USAGE;
		}
		ret = recorded_ng(cli, o, &b);
		if (ret)
			return ret;
		o2 = *o;
		o2.args[0] = b.ng;
		o2.nargs = 1;
		o = &o2;
		m.o = o;
	}
	if (o->recover && !znp_opt_given(o, ZNP_O_UBLK_ID)) {
		znp_cli_err(cli, o->args[0], "--recover needs --ublk-id (the device to take back)");
		return ZNP_EXIT_USAGE;
	}
	if (znp_opt_given(o, ZNP_O_UBLK_ID) && o->ublk_id > INT32_MAX - 1) {
		znp_cli_err(cli, o->args[0], "--ublk-id too large");
		return ZNP_EXIT_USAGE;
	}
	if (o->queues > ZNP_UBLK_MAX_QUEUES || (znp_opt_given(o, ZNP_O_QUEUES) && !o->queues)) {
		znp_cli_err(cli, o->args[0], "--queues must be 1 to %d", ZNP_UBLK_MAX_QUEUES);
		return ZNP_EXIT_USAGE;
	}
	if (o->queue_depth > ZNP_UBLK_MAX_DEPTH ||
	    (znp_opt_given(o, ZNP_O_QUEUE_DEPTH) && !o->queue_depth)) {
		znp_cli_err(cli, o->args[0], "--queue-depth must be 1 to %d", ZNP_UBLK_MAX_DEPTH);
		return ZNP_EXIT_USAGE;
	}
	ret = znp_cli_open_dev(cli, o, ZNP_OPEN_WRITE | ZNP_CLI_FULL_CAP, false, &dev);
	if (ret)
		return ret;
	if (!znp_dev_is_nvme(dev)) {
		ret = refuse(&m, ZNP_EXIT_UNSUITABLE, "not an NVMe namespace: a ublk mapping serves "
			     "an NVMe ZNS namespace through its ng node");
		goto out;
	}
	ret = znp_check(&dev->ns, &dev->geom, dev->is_zoned, &res);
	if (!ret)
		ret = refuse_verdict(&m, dev, &res);
	else
		ret = refuse(&m, ZNP_EXIT_FAILED, "cannot decide: %s", znp_strerror(ret));
	if (ret)
		goto out;
	ret = znp_ublk_geom_from_dev(dev, &g, &why);
	if (ret) {
		ret = refuse(&m, ret == -E2BIG || ret == -EINVAL ? ZNP_EXIT_UNSUITABLE :
			     znp_exit_from_ret(ret), "cannot be served through ublk: %s",
			     why ? why : znp_strerror(ret));
		goto out;
	}
	if (znp_ident_from_ns(&dev->ns, ident, sizeof(ident))) {
		ret = refuse(&m, ZNP_EXIT_UNSUITABLE, "no stable identity (NGUID, EUI-64 or serial "
			     "number): the namespace's lock and record are keyed by it");
		goto out;
	}
	s.dev = dev;
	s.g = &g;
	s.v = (struct znp_map_ublk_view){
		.device = o->args[0], .ns = &dev->ns, .geom = &dev->geom, .ident = ident,
		.name = o->name ? o->name : "", .dev_id = -1, .zone_sectors = g.zone_sectors,
		.zone_cap_sectors = g.zone_cap_sectors, .dev_sectors = g.dev_sectors,
		.queues = o->queues ? o->queues : ZNP_UBLK_DEF_QUEUES,
		.depth = o->queue_depth ? o->queue_depth : ZNP_UBLK_DEF_DEPTH,
		.foreground = o->foreground, .dry_run = o->dry_run, .persisted = o->persist,
		.config = znp_map_config(o),
	};
	s.rec = (struct znp_ublk_rec){
		.nsid = dev->ns.nsid, .lba_size = dev->geom.lba_size,
		.zone_size = dev->geom.zone_size, .zone_cap = dev->geom.zone_cap,
		.nr_zones = g.nr_zones, .po2_zone_sectors = g.zone_sectors,
		.persist = o->persist,
	};
	znp_strlcpy(s.rec.ident, ident, sizeof(s.rec.ident));
	znp_strlcpy(s.rec.ng, dev->ns.ng_name, sizeof(s.rec.ng));
	if (o->name)
		znp_strlcpy(s.rec.name, o->name, sizeof(s.rec.name));
	if (o->dry_run) {
		p->ops->map_ublk(p, &s.v);
		ret = ZNP_EXIT_OK;
		goto out;
	}
	ret = need_driver(&m);
	if (ret)
		goto out;
	if (o->persist) {
		struct znp_dmconf_entry e = { .lba_size = dev->geom.lba_size,
			.zone_size = dev->geom.zone_size, .nr_zones = dev->geom.nr_zones,
			.ublk = true };

		snprintf(e.name, sizeof(e.name), "%s", o->name ? o->name : "");
		if (!e.name[0])
			znp_dm_default_name(&dev->ns, dev->name, e.name, sizeof(e.name));
		znp_strlcpy(s.rec.name, e.name, sizeof(s.rec.name));
		znp_strlcpy(e.ident, ident, sizeof(e.ident));
		ret = znp_dmconf_put(znp_map_config(o), &e);
		if (ret) {
			ret = refuse(&m, ZNP_EXIT_FAILED, "cannot record it in %s: %s; not mapped",
				     znp_map_config(o), znp_strerror(ret));
			goto out;
		}
	}
	ret = start(&s);
out:
	if (s.dirfd >= 0)
		close(s.dirfd);
	znp_dev_close(dev);
	return ret;
}

