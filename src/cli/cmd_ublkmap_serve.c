// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map --ublk: the server's life around src/ublk/. The namespace's lock in
 * the state directory (svc.h) refuses a second server; a record of a
 * quiesced device (its server was killed) is taken back with user
 * recovery, a stale one dropped. Unless --foreground, a daemon child
 * serves and the parent waits on a pipe until the device is live. Once
 * live, the --persist entry and then the record are written (an entry that
 * cannot be written stops and deletes the device); after a clean stop the
 * device is deleted and the record removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_ublk.h"
#include "cmd_ublkmap.h"

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
	if (m->hold_err && prio <= LOG_ERR) {
		/* while creating or taking back: the reason goes into the one error line */
		syslog(prio, "%s: %s", m->o->args[0], buf);
		if (!m->lib_err[0])
			znp_strlcpy(m->lib_err, buf, sizeof(m->lib_err));
		return;
	}
	umap_say(m, prio, "%s", buf);
}

/* systemd's readiness protocol (Type=notify): "READY=1" to $NOTIFY_SOCKET. */
static void notify_ready(struct umap *m)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';	/* abstract socket */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, "READY=1", 7, 0, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		umap_say(m, LOG_WARNING, "cannot notify systemd: %s", znp_strerror(-errno));
	close(fd);
}

/* The record of this server and its device. Return: 0 or -errno (logged). */
static int write_record(struct serve *s, int dev_id)
{
	int ret;

	s->rec.dev_id = dev_id;
	s->rec.pid = getpid();
	s->rec.started = (uint64_t)time(NULL);
	ret = znp_ublk_rec_put(s->dirfd, &s->rec);
	if (ret)
		umap_say(s->m, LOG_ERR, "cannot write the record in %s: %s (status and unmap will "
			 "not find /dev/ublkb%d)", znp_cli_run_dir(), znp_strerror(ret), dev_id);
	return ret;
}

static void on_ready(void *arg, int dev_id)
{
	struct serve *s = arg;
	struct umap *m = s->m;
	int ret;

	/* lock, create, record: a mapping that cannot be recorded is undone */
	if (m->o->persist) {
		ret = umap_persist(s);
		if (ret) {
			s->undo = ret;
			znp_ublk_server_stop(the_server);
			return;
		}
	}
	s->live = true;
	write_record(s, dev_id);
	umap_say(m, LOG_NOTICE, "%s /dev/ublkb%d, server pid %ld", s->v.recovered ? "took back" :
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
			umap_say(m, LOG_INFO, "serving %s as /dev/ublkb%d: %" PRIu64 " zones of %"
				 PRIu64 " sectors (capacity %" PRIu64 "), queues %u x depth %u",
				 m->o->args[0], dev_id, s->g->nr_zones, s->v.zone_sectors,
				 s->v.zone_cap_sectors, s->v.queues, s->v.depth);
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
		.journal_fd = znp_ublk_journal_open(s->dirfd, s->rec.ident),
		.dev_id = znp_opt_given(m->o, ZNP_O_UBLK_ID) ? (int)m->o->ublk_id : -1,
		.nr_queues = m->o->queues, .queue_depth = m->o->queue_depth,
		.log = server_log, .log_arg = m,
	};
	struct znp_ublk_server *srv = NULL;
	struct sigaction sa = { .sa_handler = on_stop_signal };
	bool parked;
	int ret, dev_id;

	if (uo.journal_fd < 0)
		return umap_refuse(m, ZNP_EXIT_FAILED, "cannot open the append journal in %s: %s",
				   znp_cli_run_dir(), znp_strerror(uo.journal_fd));
	m->hold_err = true;
	m->lib_err[0] = '\0';
	ret = recover_id >= 0 ? znp_ublk_server_recover(s->dev, recover_id, &uo, &srv)
			      : znp_ublk_server_create(s->dev, &uo, &srv);
	m->hold_err = false;
	if (ret)
		return umap_refuse(m, znp_cli_exit(m->cli, ret), "cannot %s the ublk device: %s",
				   recover_id >= 0 ? "take back" : "create",
				   m->lib_err[0] ? m->lib_err : znp_strerror(ret));
	dev_id = znp_ublk_server_dev_id(srv);
	s->v.queues = znp_ublk_server_nr_queues(srv);	/* the kernel's count (recovery too) */
	/*
	 * Recorded before START_DEV: a server killed while starting leaves a
	 * record, so the next one deletes the half-made device instead of
	 * leaving it behind (a crash loop would pile them up).
	 */
	if (recover_id < 0 && write_record(s, dev_id)) {
		znp_ublk_server_free(srv);
		close(uo.journal_fd);
		return umap_refuse(m, ZNP_EXIT_FAILED, "cannot record /dev/ublkb%d in %s", dev_id,
				   znp_cli_run_dir());
	}
	the_server = srv;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	ret = znp_ublk_server_run(srv, on_ready, s);
	the_server = NULL;
	parked = znp_ublk_server_parked(srv);
	znp_ublk_server_free(srv);
	close(uo.journal_fd);
	if (s->undo) {
		/* stopped by on_ready(): not recorded in the mapping file, so not mapped */
		if (parked) {
			umap_say(m, LOG_NOTICE, "/dev/ublkb%d is in use: it stays, quiesced, for "
				 "the next server", dev_id);
			return s->undo;
		}
		ret = znp_ublk_dev_del(dev_id);
		if (ret && ret != -ENODEV)
			umap_say(m, LOG_ERR, "cannot delete /dev/ublkb%d: %s", dev_id,
				 znp_strerror(ret));
		znp_ublk_rec_drop(s->dirfd, s->rec.ident);
		return s->undo;
	}
	if (!s->live) {
		/* never started: create() deleted it; a recovered one stays quiesced */
		if (recover_id < 0)
			znp_ublk_rec_drop(s->dirfd, s->rec.ident);
		return umap_refuse(m, znp_cli_exit(m->cli, ret ? ret : -EIO), "cannot start "
				   "/dev/ublkb%d: %s", dev_id, znp_strerror(ret ? ret : -EIO));
	}
	if (!ret && parked) {
		/* in use: kept with its record, the next `map --ublk` takes it back */
		umap_say(m, LOG_NOTICE, "server of /dev/ublkb%d stopped; the device is in use and "
			 "stays, quiesced, for the next server", dev_id);
		return ZNP_EXIT_OK;
	}
	if (ret) {
		/* the device stays (quiesced): a new `map --ublk` takes it back */
		umap_say(m, LOG_ERR, "server of /dev/ublkb%d failed: %s; the device is kept for a "
			 "restart", dev_id, znp_strerror(ret));
		return ZNP_EXIT_FAILED;
	}
	ret = znp_ublk_dev_del(dev_id);
	if (ret && ret != -ENODEV)
		umap_say(m, LOG_ERR, "cannot delete /dev/ublkb%d: %s", dev_id, znp_strerror(ret));
	znp_ublk_rec_drop(s->dirfd, s->rec.ident);
	umap_say(m, LOG_NOTICE, "stopped /dev/ublkb%d", dev_id);
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

/* The state directory and the namespace's lock. Return: 0 or the exit code (refused). */
static int lock_ns(struct serve *s, int *lockfd)
{
	struct umap *m = s->m;
	struct znp_ublk_rec old;
	int ret;

	mkdir("/run", 0755);
	s->dirfd = znp_run_dir_open(znp_cli_run_dir(), true);
	if (s->dirfd < 0)
		return umap_refuse(m, ZNP_EXIT_FAILED, "unsafe or unusable state directory %s: %s",
				   znp_cli_run_dir(), znp_strerror(s->dirfd));
	ret = znp_ns_lock(s->dirfd, s->rec.ident, lockfd);
	if (ret == -EBUSY) {
		if (!znp_ublk_rec_get(s->dirfd, s->rec.ident, &old))
			return umap_refuse(m, ZNP_EXIT_REFUSED, "already served by server pid %ld "
					   "as /dev/ublkb%d: refusing a second server on this "
					   "namespace", (long)old.pid, old.dev_id);
		return umap_refuse(m, ZNP_EXIT_REFUSED, "another server is starting on this "
				   "namespace (its lock in %s is held)", znp_cli_run_dir());
	}
	if (ret)
		return umap_refuse(m, ZNP_EXIT_FAILED, "cannot lock the namespace in %s: %s",
				   znp_cli_run_dir(), znp_strerror(ret));
	return 0;
}

/*
 * --recover, or a record of this namespace: take back its quiesced device
 * (@recover_id), refuse a live one, drop one in any other state (and take
 * a fresh lock in @lockfd). Return: 0 or the exit code (refused).
 */
static int pick_recovery(struct serve *s, int *lockfd, int *recover_id)
{
	struct umap *m = s->m;
	struct znp_ublk_rec old;
	struct znp_ublk_info info;
	int ret;

	if (m->o->recover) {
		/* explicit: take back --ublk-id, record or not */
		*recover_id = (int)m->o->ublk_id;
		s->v.recovered = true;
		return 0;
	}
	/* a device left by a server that died: take it back */
	ret = znp_ublk_rec_get(s->dirfd, s->rec.ident, &old);
	if (ret == -ENOENT)
		return 0;	/* nothing recorded */
	if (ret) {
		umap_say(m, LOG_WARNING, "ignoring an unreadable record: %s", znp_strerror(ret));
		return 0;
	}
	ret = znp_ublk_dev_info(old.dev_id, &info);
	if (!ret && info.state != ZNP_UBLK_S_DEAD && info.srv_pid > 0 && info.srv_pid != old.pid) {
		znp_ns_unlock(*lockfd);
		return umap_refuse(m, ZNP_EXIT_REFUSED, "the record of this namespace names server "
				   "pid %ld, but /dev/ublkb%d was served by pid %ld: stale record, "
				   "not trusted", (long)old.pid, old.dev_id, (long)info.srv_pid);
	}
	if (!ret && info.state == ZNP_UBLK_S_LIVE && info.srv_pid > 0 &&
	    kill(info.srv_pid, 0) && errno == ESRCH) {
		/* its server just left (parked or died): the driver is quiescing it */
		*recover_id = old.dev_id;
		s->v.recovered = true;
		umap_say(m, LOG_NOTICE, "/dev/ublkb%d: server pid %ld is gone: taking the device "
			 "back", old.dev_id, (long)old.pid);
		return 0;
	}
	if (!ret && info.state == ZNP_UBLK_S_QUIESCED) {
		*recover_id = old.dev_id;
		s->v.recovered = true;
		umap_say(m, LOG_NOTICE, "/dev/ublkb%d is quiesced (server pid %ld died): taking "
			 "it back", old.dev_id, (long)old.pid);
		return 0;
	}
	if (!ret && info.state == ZNP_UBLK_S_LIVE) {
		znp_ns_unlock(*lockfd);
		return umap_refuse(m, ZNP_EXIT_REFUSED, "/dev/ublkb%d of this namespace is live "
				   "without its server's lock (pid %ld): not touched", old.dev_id,
				   (long)info.srv_pid);
	}
	if (!ret) {	/* added, never started or dead: delete it */
		umap_say(m, LOG_NOTICE, "deleting /dev/ublkb%d left in state %d", old.dev_id,
			 info.state);
		znp_ublk_dev_del(old.dev_id);
	}
	/* the record goes; the lock file stays, and we hold it */
	znp_ublk_rec_drop(s->dirfd, s->rec.ident);
	return 0;
}

/*
 * ZNP_TEST_FORK_FAIL=1 (test hooks only): the daemon's fork fails with
 * EAGAIN, and after the refusal the process stops itself (SIGSTOP) so that
 * a test can list the descriptors it still holds before it exits.
 */
static bool fork_fails(void)
{
#ifdef ZNP_TEST_HOOKS
	const char *v = getenv("ZNP_TEST_FORK_FAIL");

	return v && !strcmp(v, "1");
#else
	return false;
#endif
}

/* Fork the daemon, which takes over @lockfd; the parent waits until it is live. */
static int daemonize(struct serve *s, int lockfd, int recover_id)
{
	struct umap *m = s->m;
	int ret, pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return umap_refuse(m, ZNP_EXIT_FAILED, "pipe: %s", znp_strerror(-errno));
	fflush(NULL);
	if (fork_fails()) {
		pid = -1;
		errno = EAGAIN;
	} else {
		pid = fork();
	}
	if (pid < 0) {
		ret = -errno;
		close(pfd[0]);
		close(pfd[1]);
		ret = umap_refuse(m, ZNP_EXIT_FAILED, "fork: %s", znp_strerror(ret));
		if (fork_fails())
			raise(SIGSTOP);
		return ret;
	}
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
		umap_say(m, LOG_WARNING, "cannot chdir to /: %s", znp_strerror(-errno));
	detach_stdio();
	ret = serve(s, recover_id);
	_exit(ret);
}

int umap_start(struct serve *s)
{
	int lockfd = -1, recover_id = -1, ret;

	/* the lock first: a namespace served already is refused before anything changes */
	ret = lock_ns(s, &lockfd);
	if (!ret)
		ret = umap_need_driver(s->m);
	if (!ret)
		ret = pick_recovery(s, &lockfd, &recover_id);
	if (ret)
		return ret;
	if (s->m->o->foreground)
		return serve(s, recover_id);	/* the lock goes when we exit */
	return daemonize(s, lockfd, recover_id);
}
