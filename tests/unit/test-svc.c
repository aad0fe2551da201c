// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk mapping state (src/svc): the state directory's checks, keys, the
 * per-namespace lock, records, health, the ublk route and the check verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "core.h"
#include "svc.h"
#include "test.h"

static char base[] = "/tmp/znp-test-svc-XXXXXX";

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_run_dir(void)
{
	char dir[256], link[256], file[256];
	int fd;

	snprintf(dir, sizeof(dir), "%s/run", base);
	CHECK_INT(znp_run_dir_open(dir, false), -ENOENT);
	fd = znp_run_dir_open(dir, true);
	CHECK(fd >= 0, "create: %d", fd);
	if (fd >= 0) {
		struct stat st;

		CHECK(!fstat(fd, &st) && (st.st_mode & 0777) == 0700, "mode %o",
		      st.st_mode & 0777);
		close(fd);
	}
	fd = znp_run_dir_open(dir, true);	/* exists: fine */
	CHECK(fd >= 0, "reopen: %d", fd);
	if (fd >= 0)
		close(fd);
	chmod(dir, 0755);
	CHECK_INT(znp_run_dir_open(dir, false), -EPERM);
	chmod(dir, 0700);
	snprintf(link, sizeof(link), "%s/link", base);
	CHECK(!symlink(dir, link), "symlink");
	CHECK_INT(znp_run_dir_open(link, true), -ELOOP);
	snprintf(file, sizeof(file), "%s/file", base);
	put_file(file, "x");
	CHECK_INT(znp_run_dir_open(file, false), -ENOTDIR);
	CHECK_INT(znp_run_dir_open("", false), -EINVAL);
}

static void test_key(void)
{
	char k[ZNP_SVC_KEY_MAX], a[ZNP_SVC_KEY_MAX];

	CHECK_INT(znp_svc_key("nguid:00112233", k, sizeof(k)), 0);
	CHECK_STR(k, "nguid_3a00112233");
	CHECK_INT(znp_svc_key("sn:A B/..:nsid:1", k, sizeof(k)), 0);
	CHECK_STR(k, "sn_3aA_20B_2f.._3ansid_3a1");
	CHECK(!strchr(k, '/'), "slash in key %s", k);
	/* "_" itself is escaped: no two identities share a key */
	CHECK_INT(znp_svc_key("a_3a", k, sizeof(k)), 0);
	CHECK_INT(znp_svc_key("a:", a, sizeof(a)), 0);
	CHECK(strcmp(k, a), "keys collide: %s", k);
	CHECK_INT(znp_svc_key("", k, sizeof(k)), -EINVAL);
	CHECK_INT(znp_svc_key("..", k, sizeof(k)), -EINVAL);
	CHECK_INT(znp_svc_key("abcdef", k, 4), -ENAMETOOLONG);
}

/* SIGKILL and reap a holder of fork_holder(); nothing for -1 (none). */
static void kill_holder(pid_t pid)
{
	int st;

	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
}

/*
 * A child that takes @ident's lock and holds it until killed; returns once it
 * holds it (told through a pipe: a timed poll has a bound that a slow machine
 * can miss). Return: its pid, or -1 when it could not take the lock.
 */
static pid_t fork_holder(int dirfd, const char *ident)
{
	int p[2];
	char c = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		int l;

		close(p[0]);
		c = znp_ns_lock(dirfd, ident, &l) ? 'E' : 'L';
		if (write(p[1], &c, 1) != 1 || c != 'L')
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1 || c != 'L') {
		kill_holder(pid);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static void test_lock(int dirfd)
{
	const char *id = "sn:SER1:nsid:1", *id2 = "sn:SER1:nsid:2";
	int l1 = -1, l2 = -1, l3 = -1, st;
	pid_t pid;

	CHECK_INT(znp_ns_lock_held(dirfd, id), 0);	/* no lock file yet */
	CHECK_INT(znp_ns_lock(dirfd, id, &l1), 0);
	CHECK_INT(znp_ns_lock_held(dirfd, id), 1);
	/* a second server on the same namespace is refused ... */
	CHECK_INT(znp_ns_lock(dirfd, id, &l2), -EBUSY);
	/* ... another namespace is served at the same time */
	CHECK_INT(znp_ns_lock(dirfd, id2, &l3), 0);
	/* a child sees the lock held too (another process) */
	pid = fork();
	if (!pid) {
		int l;

		_exit(znp_ns_lock(dirfd, id, &l) == -EBUSY && znp_ns_lock_held(dirfd, id) == 1 ? 0 : 1);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "child saw the lock free");
	/* a killed holder releases it: no stale lock after SIGKILL */
	pid = fork_holder(dirfd, "sn:KILLED:nsid:1");
	CHECK(pid > 0, "the child took the lock");
	CHECK_INT(znp_ns_lock_held(dirfd, "sn:KILLED:nsid:1"), 1);
	kill_holder(pid);
	CHECK_INT(znp_ns_lock_held(dirfd, "sn:KILLED:nsid:1"), 0);
	CHECK_INT(znp_ns_lock(dirfd, "sn:KILLED:nsid:1", &l2), 0);
	znp_ns_unlock(l2);
	znp_ns_unlock(l1);
	CHECK_INT(znp_ns_lock_held(dirfd, id), 0);
	CHECK_INT(znp_ns_lock(dirfd, id, &l1), 0);
	znp_ns_unlock(l1);
	znp_ns_unlock(l3);
	/* the lock file must not be a symbolic link planted by someone */
	CHECK(!symlinkat("/etc/passwd", dirfd, "sn_3aEVIL_3ansid_3a1.lock"), "symlink");
	CHECK_INT(znp_ns_lock(dirfd, "sn:EVIL:nsid:1", &l1), -ELOOP);
}

static const struct znp_ublk_rec rec1 = {
	.ident = "nguid:0123456789abcdef0123456789abcdef", .ng = "ng0n1", .name = "po2-a",
	.nsid = 1, .dev_id = 3, .pid = 4242, .lba_size = 4096, .zone_size = 24576,
	.zone_cap = 24576, .nr_zones = 16, .po2_zone_sectors = 262144, .persist = true,
	.started = 1764600000, .fingerprint = 0xfedcba9876543210ULL,
};

static int count_cb(const struct znp_ublk_rec *r, const char *file, const char *why, void *arg)
{
	int *n = arg;

	n[r ? 0 : 1]++;
	return 0;
}

static void test_records(int dirfd)
{
	struct znp_ublk_rec r, r2;
	char text[4096];
	const char *why = NULL;
	int n[2] = { 0, 0 };

	CHECK_INT(znp_ublk_rec_format(text, sizeof(text), &rec1), 0);
	CHECK_INT(znp_ublk_rec_parse(text, strlen(text), &r, &why), 0);
	CHECK(!memcmp(&r, &rec1, sizeof(r)) || (!strcmp(r.ident, rec1.ident) &&
	      r.dev_id == 3 && r.pid == 4242 && r.nr_zones == 16 && r.persist &&
	      r.po2_zone_sectors == 262144 && r.started == rec1.started), "round trip");
	CHECK_STR(r.ng, "ng0n1");
	CHECK_STR(r.name, "po2-a");
	CHECK_INT(r.zone_cap, 24576);
	CHECK_U64(r.fingerprint, rec1.fingerprint);	/* what unmap compares the device with */
	/* bad records */
	CHECK_INT(znp_ublk_rec_parse("ident=x\npid=1\n", 14, &r, &why), -EBADMSG);
	CHECK_STR(why, "no dev_id");
	CHECK_INT(znp_ublk_rec_parse("ident=x\ndev_id=1\npid=0\n", 23, &r, &why), -EBADMSG);
	CHECK_INT(znp_ublk_rec_parse("ident=x\ndev_id=-1\npid=5\n", 24, &r, &why), -EBADMSG);
	CHECK_INT(znp_ublk_rec_parse("ident=x\ndev_id=1\npid=5\nnr_zones=1x\n", 34, &r, &why),
		  -EBADMSG);
	CHECK_INT(znp_ublk_rec_parse("ident=x\ndev_id=1\npid=5\ngarbage\n", 31, &r, &why), -EBADMSG);
	CHECK_INT(znp_ublk_rec_parse("ident=x\0\ndev_id=1\npid=5\n", 24, &r, &why), -EBADMSG);
	CHECK_INT(znp_ublk_rec_parse("ident=x y\ndev_id=1\npid=5\n", 25, &r, &why), -EBADMSG);
	/* unknown keys are ignored (newer writers) */
	CHECK_INT(znp_ublk_rec_parse("ident=x\ndev_id=1\npid=5\nfuture=1\n", 32, &r, &why), 0);
	/* what cannot be parsed back is not written */
	r2 = rec1;
	strcpy(r2.name, "a b");
	CHECK_INT(znp_ublk_rec_format(text, sizeof(text), &r2), -EINVAL);
	r2 = rec1;
	r2.pid = 0;
	CHECK_INT(znp_ublk_rec_format(text, sizeof(text), &r2), -EINVAL);

	/* files */
	CHECK_INT(znp_ublk_rec_get(dirfd, rec1.ident, &r), -ENOENT);
	CHECK_INT(znp_ublk_rec_put(dirfd, &rec1), 0);
	CHECK_INT(znp_ublk_rec_get(dirfd, rec1.ident, &r), 0);
	CHECK_INT(r.dev_id, 3);
	r2 = rec1;
	r2.pid = 777;		/* a restarted server rewrites its record */
	CHECK_INT(znp_ublk_rec_put(dirfd, &r2), 0);
	CHECK_INT(znp_ublk_rec_get(dirfd, rec1.ident, &r), 0);
	CHECK_INT(r.pid, 777);
	r2 = rec1;
	strcpy(r2.ident, "sn:OTHER:nsid:2");
	r2.dev_id = 4;
	CHECK_INT(znp_ublk_rec_put(dirfd, &r2), 0);
	/* a file that is not a record is reported, not fatal */
	CHECK(!symlinkat("/etc/passwd", dirfd, "zz.ublk"), "symlink");
	CHECK_INT(znp_ublk_rec_each(dirfd, count_cb, n), 0);
	CHECK_INT(n[0], 2);
	CHECK_INT(n[1], 1);
	/* a record under another identity's file name is not taken for it */
	CHECK(!renameat(dirfd, "sn_3aOTHER_3ansid_3a2.ublk", dirfd, "sn_3aTHIRD_3ansid_3a3.ublk"),
	      "rename");
	CHECK_INT(znp_ublk_rec_get(dirfd, "sn:THIRD:nsid:3", &r), -EBADMSG);
	CHECK_INT(znp_ublk_rec_drop(dirfd, rec1.ident), 0);
	CHECK_INT(znp_ublk_rec_get(dirfd, rec1.ident, &r), -ENOENT);
	CHECK_INT(znp_ublk_rec_drop(dirfd, rec1.ident), -ENOENT);
	/* no temporary files left behind */
	CHECK(faccessat(dirfd, ".nguid_3a0123456789abcdef0123456789abcdef.ublk.tmp", F_OK,
			AT_SYMLINK_NOFOLLOW), "tmp left");
}

/* A record of exactly @size bytes (comment lines pad it). */
static void put_sized_record(int dirfd, const char *file, size_t size)
{
	char text[8192];
	size_t n;
	int fd;

	n = (size_t)snprintf(text, sizeof(text), "ident=sn:BIG:nsid:1\ndev_id=9\npid=4243\n");
	while (n < size) {
		size_t line = size - n > 200 ? 200 : size - n;

		text[n] = '#';
		memset(text + n + 1, 'x', line - 1);
		text[n + line - 1] = '\n';
		n += line;
	}
	fd = openat(dirfd, file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, text, size) == (ssize_t)size, "write %zu", size);
	close(fd);
}

/* Regressions: the 4095-byte record, unmap under a held lock, stale pids. */
static void test_rec_defects(int dirfd)
{
	struct znp_ublk_rec r, mine;
	uint64_t start;
	int lockfd = -1, pidfd = -1, st;
	pid_t pid;

	/* the largest record accepted is read whole, not as empty */
	put_sized_record(dirfd, "sn_3aBIG_3ansid_3a1.ublk", 4095);
	CHECK_INT(znp_ublk_rec_get(dirfd, "sn:BIG:nsid:1", &r), 0);
	CHECK_INT(r.dev_id, 9);
	CHECK_INT(r.pid, 4243);
	put_sized_record(dirfd, "sn_3aBIG_3ansid_3a1.ublk", 4094);
	CHECK_INT(znp_ublk_rec_get(dirfd, "sn:BIG:nsid:1", &r), 0);
	put_sized_record(dirfd, "sn_3aBIG_3ansid_3a1.ublk", 4096);
	CHECK_INT(znp_ublk_rec_get(dirfd, "sn:BIG:nsid:1", &r), -EBADMSG);
	CHECK(!unlinkat(dirfd, "sn_3aBIG_3ansid_3a1.ublk", 0), "unlink");

	/* unmap (znp_ublk_forget) never removes what a (hung) server holds */
	mine = rec1;
	strcpy(mine.ident, "sn:HUNG:nsid:1");
	CHECK_INT(znp_ublk_rec_put(dirfd, &mine), 0);
	pid = fork_holder(dirfd, mine.ident);
	CHECK(pid > 0, "the child took the lock");
	CHECK_INT(znp_ublk_forget(dirfd, mine.ident), -EBUSY);
	CHECK_INT(znp_ublk_rec_get(dirfd, mine.ident, &r), 0);
	CHECK(!faccessat(dirfd, "sn_3aHUNG_3ansid_3a1.lock", F_OK, AT_SYMLINK_NOFOLLOW),
	      "lock file kept while held");
	CHECK_INT(znp_ns_lock_held(dirfd, mine.ident), 1);
	kill_holder(pid);
	CHECK_INT(znp_ublk_forget(dirfd, mine.ident), 0);
	CHECK_INT(znp_ublk_rec_get(dirfd, mine.ident, &r), -ENOENT);
	CHECK(faccessat(dirfd, "sn_3aHUNG_3ansid_3a1.lock", F_OK, AT_SYMLINK_NOFOLLOW),
	      "lock file removed once free");
	CHECK_INT(znp_ublk_forget(dirfd, mine.ident), -ENOENT);
	/* the server's own drop keeps the lock file it holds */
	CHECK_INT(znp_ns_lock(dirfd, mine.ident, &lockfd), 0);
	CHECK_INT(znp_ublk_rec_put(dirfd, &mine), 0);
	CHECK_INT(znp_ublk_rec_drop(dirfd, mine.ident), 0);
	CHECK(!faccessat(dirfd, "sn_3aHUNG_3ansid_3a1.lock", F_OK, AT_SYMLINK_NOFOLLOW),
	      "holder's lock file kept");
	CHECK_INT(znp_ns_lock_held(dirfd, mine.ident), 1);
	znp_ns_unlock(lockfd);

	/* a server's record carries its start time */
	mine.pid = getpid();
	mine.pid_start = 0;
	CHECK_INT(znp_ublk_rec_put(dirfd, &mine), 0);
	CHECK_INT(znp_ublk_rec_get(dirfd, mine.ident, &r), 0);
	CHECK_INT(znp_proc_start("/proc", getpid(), &start), 0);
	CHECK_U64(r.pid_start, start);
	CHECK_INT(znp_ublk_rec_drop(dirfd, mine.ident), 0);

	/* the recorded pid is signalled only while it is the recorded process */
	pid = fork();
	if (!pid) {
		pause();
		_exit(0);
	}
	r = rec1;
	r.pid = pid;
	CHECK_INT(znp_proc_start("/proc", pid, &r.pid_start), 0);
	CHECK_INT(znp_ublk_server_pidfd("/proc", &r, &pidfd), 0);
	if (pidfd >= 0) {
		CHECK_INT(znp_pidfd_signal(pidfd, SIGTERM), 0);
		close(pidfd);
	} else {
		kill(pid, SIGKILL);	/* the check failed already; do not wait for ever */
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	      "the server got SIGTERM");
	CHECK_INT(znp_ublk_server_pidfd("/proc", &r, &pidfd), -ESRCH);	/* gone */
	/* a pid that is another process now: its start time is not the recorded one */
	r.pid = getpid();
	CHECK_INT(znp_proc_start("/proc", r.pid, &r.pid_start), 0);
	r.pid_start++;
	CHECK_INT(znp_ublk_server_pidfd("/proc", &r, &pidfd), -ESTALE);
	r.pid_start = 0;	/* a record without a start time is not trusted */
	CHECK_INT(znp_ublk_server_pidfd("/proc", &r, &pidfd), -ENODATA);
}

/* `systemd-escape -- @s` (the real binary), or -1 without one. */
static int systemd_escape(const char *s, char *out, size_t size)
{
	int p[2], st;
	ssize_t n, off = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(p[1], 1);
		close(p[0]);
		execlp("systemd-escape", "systemd-escape", "--", s, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], out + off, size - 1 - (size_t)off)) > 0)
		off += n;
	close(p[0]);
	out[off] = '\0';
	out[strcspn(out, "\n")] = '\0';
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

/* Mapping names as unit instances: what systemd-escape makes of them. */
static void test_unit_escape(void)
{
	static const char *const names[] = {
		"po2-a", "po2-SN-ZNS-0-n1", "a+b", "x@y", "k=v#1", ".hidden", "a.b:c_d",
		"dir/name", "a b", "po2-Az09._+:@=#", ".-.", "back\\slash", "\xc3\xa4", "-", "plain09",
	};
	char got[512], want[512];
	int compared = 0;

	CHECK_INT(znp_unit_escape("po2-a", got, sizeof(got)), 0);
	CHECK_STR(got, "po2\\x2da");
	CHECK_INT(znp_unit_escape("", got, sizeof(got)), -EINVAL);
	CHECK_INT(znp_unit_escape("a-b", got, 4), -ENAMETOOLONG);
	CHECK_INT(znp_unit_escape("a-b", got, 7), 0);
	CHECK_STR(got, "a\\x2db");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (systemd_escape(names[i], want, sizeof(want)))
			continue;
		compared++;
		CHECK_INT(znp_unit_escape(names[i], got, sizeof(got)), 0);
		CHECK(!strcmp(got, want), "%s: \"%s\", systemd-escape \"%s\"", names[i], got, want);
	}
	if (!compared)
		printf("# no systemd-escape here: compared with the fixed cases only\n");
	else
		CHECK_INT(compared, sizeof(names) / sizeof(names[0]));
}

static void test_health(void)
{
	struct { bool lock, cdev, disk; int state; enum znp_ublk_health want; } t[] = {
		{ true, true, true, ZNP_SVC_S_UNKNOWN, ZNP_UBLK_ALIVE },
		{ true, true, true, ZNP_SVC_S_LIVE, ZNP_UBLK_ALIVE },
		{ true, false, false, ZNP_SVC_S_UNKNOWN, ZNP_UBLK_STARTING },
		{ false, true, true, ZNP_SVC_S_QUIESCED, ZNP_UBLK_DEAD_QUIESCED },
		{ false, true, true, ZNP_SVC_S_UNKNOWN, ZNP_UBLK_DEAD_QUIESCED },
		{ false, true, false, ZNP_SVC_S_UNKNOWN, ZNP_UBLK_DEAD },
		{ false, true, false, ZNP_SVC_S_DEAD, ZNP_UBLK_DEAD },
		{ false, false, false, ZNP_SVC_S_UNKNOWN, ZNP_UBLK_MISSING },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct znp_ublk_presence pr = { t[i].cdev, t[i].disk, t[i].state };

		CHECK(znp_ublk_health(t[i].lock, &pr) == t[i].want, "row %zu: %s", i,
		      znp_ublk_health_name(znp_ublk_health(t[i].lock, &pr)));
	}
	CHECK_STR(znp_ublk_health_name(ZNP_UBLK_DEAD_QUIESCED), "dead-quiesced");
	CHECK_STR(znp_ublk_health_name(ZNP_UBLK_MISSING), "missing");
	CHECK_STR(znp_ublk_health_name(ZNP_UBLK_ALIVE), "alive");
}

static void test_presence(void)
{
	char d[256];
	struct znp_ublk_presence pr;

	snprintf(d, sizeof(d), "mkdir -p %s/sys/class/ublk-char/ublkc7 %s/sys/block/ublkb7 "
		 "%s/sys/class/ublk-char/ublkc8", base, base, base);
	CHECK(!system(d), "mkdir");
	snprintf(d, sizeof(d), "%s/sys", base);
	znp_ublk_presence(d, 7, &pr);
	CHECK(pr.cdev && pr.disk && pr.state == ZNP_SVC_S_UNKNOWN, "ublk 7");
	znp_ublk_presence(d, 8, &pr);
	CHECK(pr.cdev && !pr.disk, "ublk 8");
	znp_ublk_presence(d, 9, &pr);
	CHECK(!pr.cdev && !pr.disk, "ublk 9");
}

static int probe_ret, probe_calls;
static uint64_t probe_feat;

static int fake_probe(uint64_t *f)
{
	probe_calls++;
	*f = probe_feat;
	return probe_ret;
}

static void test_route(void)
{
	char mods[256], path[300];
	struct znp_ublk_route_info ri;

	CHECK_INT(znp_ublk_route_decide(true, false, 0, 0x1fe), ZNP_ROUTE_OPEN);
	CHECK_INT(znp_ublk_route_decide(true, true, 0, 0x7e), ZNP_ROUTE_NO_ZONED);	/* 6.1: no zoned */
	CHECK_INT(znp_ublk_route_decide(true, false, 0, ZNP_ROUTE_F_ZONED), ZNP_ROUTE_NO_ZONED);
	CHECK_INT(znp_ublk_route_decide(true, false, -EACCES, 0), ZNP_ROUTE_UNVERIFIED);
	CHECK_INT(znp_ublk_route_decide(true, false, -EOPNOTSUPP, 0x1fe & ~ZNP_ROUTE_F_USER_RECOVERY),
		  ZNP_ROUTE_NO_ZONED);
	CHECK_INT(znp_ublk_route_decide(true, true, -ENOENT, 0), ZNP_ROUTE_LOADABLE);
	CHECK_INT(znp_ublk_route_decide(true, false, 1, 0), ZNP_ROUTE_UNVERIFIED);
	CHECK_INT(znp_ublk_route_decide(false, true, 1, 0), ZNP_ROUTE_LOADABLE);
	CHECK_INT(znp_ublk_route_decide(false, false, 1, 0), ZNP_ROUTE_ABSENT);
	CHECK(znp_ublk_route_usable(ZNP_ROUTE_OPEN) && znp_ublk_route_usable(ZNP_ROUTE_LOADABLE) &&
	      !znp_ublk_route_usable(ZNP_ROUTE_ABSENT) &&
	      !znp_ublk_route_usable(ZNP_ROUTE_NO_ZONED), "usable");
	CHECK_STR(znp_ublk_route_name(ZNP_ROUTE_OPEN), "open");

	/* installed modules: modules.dep lines, compressed or not; builtin */
	snprintf(mods, sizeof(mods), "%s/mods", base);
	mkdir(mods, 0755);
	CHECK(!znp_ublk_module_installed(mods), "empty dir");
	snprintf(path, sizeof(path), "%s/modules.dep", mods);
	put_file(path, "kernel/drivers/block/loop.ko.xz:\n"
		 "kernel/drivers/block/nbd.ko.xz: kernel/fs/ublk_drv.ko.xzz\n"
		 "kernel/drivers/block/ublk_drvx.ko.xz:\n");
	CHECK(!znp_ublk_module_installed(mods), "only look-alikes");
	put_file(path, "kernel/drivers/block/loop.ko.xz:\n"
		 "kernel/drivers/block/ublk_drv.ko.xz:\n");
	CHECK(znp_ublk_module_installed(mods), "modules.dep lists it");
	unlink(path);
	snprintf(path, sizeof(path), "%s/modules.builtin", mods);
	put_file(path, "kernel/drivers/block/ublk_drv.ko\n");
	CHECK(znp_ublk_module_installed(mods), "builtin");
	CHECK(!znp_ublk_module_installed(NULL), "NULL");

	/* the control node must be a char device; the probe is asked only then */
	snprintf(path, sizeof(path), "%s/ublk-control", base);
	put_file(path, "");
	probe_calls = 0;
	znp_ublk_route(path, NULL, fake_probe, &ri);
	CHECK_INT(ri.route, ZNP_ROUTE_ABSENT);
	CHECK_INT(probe_calls, 0);
	znp_ublk_route("/dev/null", NULL, fake_probe, &ri);	/* a char device */
	CHECK_INT(probe_calls, 1);
	CHECK_INT(ri.route, ZNP_ROUTE_NO_ZONED);	/* features 0 */
	probe_feat = 0x1fe;
	probe_ret = 0;
	znp_ublk_route("/dev/null", NULL, fake_probe, &ri);
	CHECK_INT(ri.route, ZNP_ROUTE_OPEN);
	CHECK_U64(ri.features, 0x1fe);
	probe_ret = -EACCES;
	znp_ublk_route("/dev/null", NULL, fake_probe, &ri);
	CHECK_INT(ri.route, ZNP_ROUTE_UNVERIFIED);
	znp_ublk_route(NULL, mods, NULL, &ri);
	CHECK_INT(ri.route, ZNP_ROUTE_LOADABLE);
}

static void test_check_verdict(void)
{
	struct znp_ns_info ns = { .blk_visible = false, .nsid = 1 };
	struct znp_geom g = { .lba_size = 4096, .nlbas = 16 * 24576, .zone_size = 24576,
			      .zone_cap = 24576, .nr_zones = 16 };
	struct znp_check_result r;

	CHECK_INT(znp_check(&ns, &g, true, &r), 0);
	CHECK_INT(r.verdict, ZNP_V_NEEDS_KERNEL);
	znp_check_ublk(&r, false, false);
	CHECK_INT(r.verdict, ZNP_V_NEEDS_KERNEL);	/* no route: unchanged */
	znp_check_ublk(&r, true, true);
	CHECK_INT(r.verdict, ZNP_V_UBLK);
	CHECK_STR(znp_verdict_name(r.verdict), "mappable-ublk");
	CHECK(r.reasons & ZNP_R_UBLK_ROUTE && r.reasons & ZNP_R_UBLK_NOT_LOADED &&
	      r.reasons & ZNP_R_BLK_HIDDEN, "reasons %#x", r.reasons);
	CHECK_STR(znp_reason_name(ZNP_R_UBLK_NOT_LOADED), "ublk-module-not-loaded");
	/* capacity < size stays refused, ublk or not (same layout as dm-po2zone) */
	g.zone_cap = 16384;
	CHECK_INT(znp_check(&ns, &g, true, &r), 0);
	znp_check_ublk(&r, true, false);
	CHECK_INT(r.verdict, ZNP_V_CAP_LT_SIZE);
	/* a visible block device keeps "mappable" (dm-po2zone) */
	g.zone_cap = 24576;
	ns.blk_visible = true;
	CHECK_INT(znp_check(&ns, &g, true, &r), 0);
	znp_check_ublk(&r, true, false);
	CHECK_INT(r.verdict, ZNP_V_MAPPABLE);
	/* po2 stays po2 */
	g.zone_size = g.zone_cap = 32768;
	ns.blk_visible = false;
	CHECK_INT(znp_check(&ns, &g, true, &r), 0);
	znp_check_ublk(&r, true, false);
	CHECK_INT(r.verdict, ZNP_V_PO2);
}

int main(void)
{
	char dir[300];
	int dirfd;

	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	test_run_dir();
	test_key();
	snprintf(dir, sizeof(dir), "%s/run", base);
	dirfd = znp_run_dir_open(dir, true);
	CHECK(dirfd >= 0, "state dir: %d", dirfd);
	if (dirfd >= 0) {
		test_lock(dirfd);
		test_records(dirfd);
		test_rec_defects(dirfd);
		close(dirfd);
	}
	test_unit_escape();
	test_health();
	test_presence();
	test_route();
	test_check_verdict();
	snprintf(dir, sizeof(dir), "rm -rf %s", base);
	if (system(dir))
		fprintf(stderr, "cannot remove %s\n", base);
	return t_done("svc");
}
