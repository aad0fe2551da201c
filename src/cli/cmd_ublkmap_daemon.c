// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map --ublk: the daemon. Unless --foreground, a child serves (new session,
 * stdio on /dev/null, logging to syslog) and the parent waits on a pipe
 * until the device is live ("R <id> <recovered>") or the child refused
 * ("E <code> <why>"), then prints the result. --foreground serves here and
 * tells systemd (Type=notify) once live. The logging and the refusals of
 * map --ublk are here too: cmd_ublkmap.c calls down to this file, never
 * the other way.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_map.h"
#include "cmd_ublkmap.h"

/* Logging and refusals: the daemon's and the parent's (cmd_ublkmap.c calls them). */
void znp_ublkmap_say(void *arg, int prio, bool log_only, const char *msg)
{
	struct ublkmap *m = arg;

	syslog(prio, "%s: %s", m->o->args[0], msg);
	if (log_only || m->daemon || m->journal)
		return;
	if (prio <= LOG_WARNING)
		znp_cli_err(m->cli, m->o->args[0], "%s", msg);
	else if (m->o->verbose || m->o->foreground)
		fprintf(m->cli->err, "%s: %s: %s\n", m->cli->prog, m->o->args[0], msg);
}

void znp_ublkmap_refused(void *arg, struct znp_map_err *e)
{
	struct ublkmap *m = arg;
	int code = znp_cli_map_exit(m->cli, e);

	znp_ublkmap_say(m, LOG_ERR, false, e->why);
	if (m->report_fd >= 0) {
		dprintf(m->report_fd, "E %d %s\n", code, e->why);
		close(m->report_fd);
		m->report_fd = -1;
	}
	e->told = true;
}

int znp_ublkmap_refuse(struct ublkmap *m, struct znp_map_err *e)
{
	if (!e->told)
		znp_ublkmap_refused(m, e);
	return znp_cli_map_exit(m->cli, e);
}

static void on_stop_signal(int sig)
{
	(void)sig;
	znp_map_ublk_stop();
}

static void on_running(void *arg)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

/* systemd's readiness protocol (Type=notify): "READY=1" to $NOTIFY_SOCKET. */
static void notify_ready(struct ublkmap *m)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char msg[128];
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
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0) {
		snprintf(msg, sizeof(msg), "cannot notify systemd: %s", znp_strerror(-errno));
		znp_ublkmap_say(m, LOG_WARNING, false, msg);
	}
	close(fd);
}

static void on_live(void *arg, const struct znp_map_ublk *u)
{
	struct ublkmap *m = arg;
	char msg[512];

	m->v.dev_id = u->dev_id;
	m->v.pid = (long)getpid();
	m->v.recovered = u->recovered;
	m->v.queues = u->queues;
	if (m->report_fd >= 0) {
		dprintf(m->report_fd, "R %d %d\n", u->dev_id, u->recovered);
		close(m->report_fd);
		m->report_fd = -1;
	} else if (!m->daemon) {
		/*
		 * --foreground: stdout carries only the device path (scripts and
		 * units read it); the details go to stderr and the log
		 */
		if (m->o->fmt == ZNP_FMT_NORMAL) {
			fprintf(m->p->out, "/dev/ublkb%d\n", u->dev_id);
			snprintf(msg, sizeof(msg), "serving %s as /dev/ublkb%d: %" PRIu64 " zones of %"
				 PRIu64 " sectors (capacity %" PRIu64 "), queues %u x depth %u",
				 m->o->args[0], u->dev_id, u->g.nr_zones, m->v.zone_sectors,
				 m->v.zone_cap_sectors, m->v.queues, m->v.depth);
			znp_ublkmap_say(m, LOG_INFO, false, msg);
		} else {
			m->p->ops->map_ublk(m->p, &m->v);
		}
		fflush(m->p->out);
		notify_ready(m);
	}
}

/* The server's life (the daemon child, or --foreground). Return: exit code. */
static int serve(struct ublkmap *m)
{
	const struct znp_map_ublk_hooks h = {
		.say = znp_ublkmap_say, .refused = znp_ublkmap_refused, .running = on_running,
		.live = on_live, .arg = m,
	};
	struct znp_map_err e = { 0 };

	if (znp_map_ublk_serve(&m->u, &h, &e))
		return znp_ublkmap_refuse(m, &e);
	return ZNP_EXIT_OK;
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

/* Parent of the daemon: wait for "R <id> <recovered>" or "E <code> <why>". */
static int wait_child(struct ublkmap *m, int rfd, pid_t child)
{
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
		m->v.dev_id = id;
		m->v.pid = (long)child;
		m->v.recovered = rec;
		m->p->ops->map_ublk(m->p, &m->v);
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

/* Fork the daemon, which takes over the lock; the parent waits until it is live. */
static int daemonize(struct ublkmap *m)
{
	struct znp_map_err e = { 0 };
	int ret, pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC)) {
		znp_map_fail(&e, ZNP_MAP_FAILED, -errno, "pipe: %s", znp_strerror(-errno));
		return znp_ublkmap_refuse(m, &e);
	}
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
		znp_map_fail(&e, ZNP_MAP_FAILED, ret, "fork: %s", znp_strerror(ret));
		ret = znp_ublkmap_refuse(m, &e);
		if (fork_fails())
			raise(SIGSTOP);
		return ret;
	}
	if (pid) {
		close(pfd[1]);
		znp_map_ublk_release(&m->u);	/* the child holds the lock now */
		return wait_child(m, pfd[0], pid);
	}
	close(pfd[0]);
	m->report_fd = pfd[1];
	m->daemon = true;
	setsid();
	if (chdir("/")) {
		char msg[128];

		snprintf(msg, sizeof(msg), "cannot chdir to /: %s", znp_strerror(-errno));
		znp_ublkmap_say(m, LOG_WARNING, false, msg);
	}
	detach_stdio();
	ret = serve(m);
	_exit(ret);
}

int znp_ublkmap_start(struct ublkmap *m)
{
	const struct znp_map_ublk_hooks h = { .say = znp_ublkmap_say, .arg = m };
	struct znp_map_err e = { 0 };

	if (znp_map_ublk_prepare(&m->u, &h, &e))
		return znp_ublkmap_refuse(m, &e);
	m->v.recovered = m->u.recovered;
	if (m->o->foreground)
		return serve(m);	/* the lock goes when we exit */
	return daemonize(m);
}
