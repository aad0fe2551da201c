// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The state-file toolkit (src/core/statefile.c): atomic replace that never
 * follows a planted link, lock files an unprivileged user cannot hold, the
 * bounded wait, the inode re-check after flock(), the holder's pid, and
 * process start times. The parts about another user run as root only.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "test.h"

#define NOBODY	65534

static char base[] = "/tmp/znp-test-statefile-XXXXXX";

/*
 * The temporary's name comes from getrandom(): this definition takes the
 * library's place, so the test knows the names and can plant links there.
 */
static uint64_t next_random = 0x1111;

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	(void)flags;
	if (len != sizeof(next_random))
		return -1;
	memcpy(buf, &next_random, len);
	next_random += 0x1111;
	return (ssize_t)len;
}

static int dir_open(const char *sub, mode_t mode)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", base, sub);
	mkdir(path, mode);
	chmod(path, mode);
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static ssize_t read_at(int dirfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void test_replace(void)
{
	int d = dir_open("replace", 0700);
	char buf[256], tmp[64];
	struct stat st;

	CHECK_INT(znp_file_replace(d, "f", "one\n", 4, 0644), 0);
	CHECK_INT(read_at(d, "f", buf, sizeof(buf)), 4);
	CHECK_STR(buf, "one\n");
	CHECK(!fstatat(d, "f", &st, 0) && (st.st_mode & 07777) == 0644, "mode %o",
	      st.st_mode & 07777);
	CHECK_INT(znp_file_replace(d, "f", "two", 3, 0600), 0);
	CHECK_INT(read_at(d, "f", buf, sizeof(buf)), 3);
	CHECK(!fstatat(d, "f", &st, 0) && (st.st_mode & 07777) == 0600, "mode %o",
	      st.st_mode & 07777);
	CHECK_INT(znp_file_replace(d, "sub/f", "x", 1, 0600), -EINVAL);
	CHECK_INT(znp_file_replace(d, "", "x", 1, 0600), -EINVAL);

	/* a link planted at the file's own name is replaced, never written through */
	CHECK_INT(znp_file_replace(d, "victim", "precious", 8, 0600), 0);
	CHECK(!symlinkat("victim", d, "g"), "symlink g");
	CHECK_INT(znp_file_replace(d, "g", "new", 3, 0600), 0);
	CHECK(!fstatat(d, "g", &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode), "g a file now");
	CHECK_INT(read_at(d, "victim", buf, sizeof(buf)), 8);

	/* a link planted at the temporary's (predicted) name is not followed nor removed */
	next_random = 0x1111;
	snprintf(tmp, sizeof(tmp), ".h.%016llx", 0x1111ULL);
	CHECK(!symlinkat("victim", d, tmp), "plant %s", tmp);
	next_random = 0x1111;
	CHECK_INT(znp_file_replace(d, "h", "data", 4, 0600), 0);
	CHECK_INT(read_at(d, "h", buf, sizeof(buf)), 4);
	CHECK_STR(buf, "data");
	CHECK_INT(read_at(d, "victim", buf, sizeof(buf)), 8);
	CHECK_STR(buf, "precious");
	CHECK(!fstatat(d, tmp, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode),
	      "planted link left alone");
	/* every name taken: refused, the file untouched */
	for (int i = 1; i <= 16; i++) {
		snprintf(tmp, sizeof(tmp), ".h.%016llx", 0x1111ULL * (unsigned long long)i);
		symlinkat("victim", d, tmp);
	}
	next_random = 0x1111;
	CHECK_INT(znp_file_replace(d, "h", "else", 4, 0600), -EEXIST);
	CHECK_INT(read_at(d, "h", buf, sizeof(buf)), 4);
	CHECK_STR(buf, "data");
	CHECK_INT(read_at(d, "victim", buf, sizeof(buf)), 8);
	CHECK_STR(buf, "precious");
	close(d);
}

/* A child that takes @name's lock, says so on @ready, and holds it until killed. */
static pid_t hold_lock(int d, const char *name)
{
	int p[2], fd;
	char c;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		close(p[0]);
		if (znp_lock_take(d, name, 0, &fd))
			_exit(1);
		if (write(p[1], "L", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) {
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static void test_lock(void)
{
	int d = dir_open("lock", 0755), fd = -1, fd2 = -1;
	struct stat st;
	uint64_t t0;
	pid_t holder;

	CHECK_INT(znp_lock_take(d, "a.lock", 0, &fd), 0);
	CHECK(!fstatat(d, "a.lock", &st, 0) && (st.st_mode & 07777) == 0600, "created %o",
	      st.st_mode & 07777);
	CHECK_INT(znp_lock_take(d, "a.lock", 0, &fd2), -EBUSY);	/* another open file */
	close(fd);
	CHECK_INT(znp_lock_take(d, "a.lock", 0, &fd), 0);
	close(fd);

	/* an old 0644 lock file: anyone could flock() it; taken, it is 0600 */
	close(openat(d, "old.lock", O_CREAT | O_WRONLY, 0644));
	fchmodat(d, "old.lock", 0644, 0);
	CHECK_INT(znp_lock_take(d, "old.lock", 0, &fd), 0);
	CHECK(!fstatat(d, "old.lock", &st, 0) && (st.st_mode & 07777) == 0600, "now %o",
	      st.st_mode & 07777);
	close(fd);
	CHECK(!symlinkat("a.lock", d, "link.lock"), "symlink");
	CHECK_INT(znp_lock_take(d, "link.lock", 0, &fd), -ELOOP);
	CHECK(!mkdirat(d, "dir.lock", 0700), "mkdir");
	CHECK(znp_lock_take(d, "dir.lock", 0, &fd) < 0, "a directory is no lock file");

	/* the bounded wait, and who holds it */
	holder = hold_lock(d, "a.lock");
	CHECK(holder > 0, "holder");
	t0 = ms_now();
	CHECK_INT(znp_lock_take(d, "a.lock", 300, &fd), -EBUSY);
	CHECK(ms_now() - t0 >= 300 && ms_now() - t0 < 3000, "waited %llu ms",
	      (unsigned long long)(ms_now() - t0));
	CHECK_INT(znp_lock_holder(d, "a.lock", "/proc/locks"), holder);
	CHECK_INT(znp_lock_holder(d, "old.lock", "/proc/locks"), 0);
	reap(holder);
	CHECK_INT(znp_lock_take(d, "a.lock", 300, &fd), 0);	/* released: taken at once */
	close(fd);
	close(d);
}

/*
 * The inode re-check: a waiter whose file is unlinked by the holder ends up
 * holding the file at the name, so there are never two holders.
 */
static void test_lock_replaced(void)
{
	int d = dir_open("replaced", 0700), fd = -1, fd2 = -1, p[2];
	char c = 0;
	pid_t waiter;

	CHECK_INT(znp_lock_take(d, "n.lock", 0, &fd), 0);
	if (pipe(p))
		return;
	waiter = fork();
	if (!waiter) {
		struct stat a, b;
		int l;

		close(p[0]);
		close(fd);		/* the parent's lock, inherited */
		if (znp_lock_take(d, "n.lock", 5000, &l))
			_exit(1);
		c = !fstat(l, &a) && !fstatat(d, "n.lock", &b, 0) && a.st_ino == b.st_ino ? 'S'
											  : 'X';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	usleep(100 * 1000);			/* the waiter is polling the old file */
	CHECK_INT(znp_lock_unlink(d, "n.lock", fd), 0);
	close(fd);				/* its flock() succeeds on the unlinked file */
	CHECK(read(p[0], &c, 1) == 1 && c == 'S', "waiter holds the file at the name (%c)", c);
	CHECK_INT(znp_lock_take(d, "n.lock", 0, &fd2), -EBUSY);
	close(p[0]);
	reap(waiter);
	/* znp_lock_unlink() of a name that is another file now removes nothing */
	CHECK_INT(znp_lock_take(d, "n.lock", 0, &fd), 0);
	CHECK(!unlinkat(d, "n.lock", 0), "unlink");
	close(openat(d, "n.lock", O_CREAT | O_WRONLY, 0600));
	CHECK_INT(znp_lock_unlink(d, "n.lock", fd), 0);
	CHECK(!faccessat(d, "n.lock", F_OK, 0), "the other file stays");
	close(fd);
	close(d);
}

/* Another user: cannot open or hold a lock file, nor redirect the temporary. */
static void test_other_user(void)
{
	int d = dir_open("root", 0755), shared = dir_open("shared", 01777), fd = -1, st;
	char buf[64], tmp[64], outside[256];
	pid_t pid;

	/* where the link points: a file root can create and nobody cannot */
	snprintf(outside, sizeof(outside), "%s/root/outside", base);
	if (geteuid()) {
		printf("# not root: the other-user checks are left out\n");
		close(d);
		close(shared);
		return;
	}
	CHECK_INT(znp_lock_take(d, "m.lock", 0, &fd), 0);
	close(fd);
	pid = fork();
	if (!pid) {
		int l;

		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		/* no descriptor to flock(): neither read nor write open, nor a new file */
		if (openat(d, "m.lock", O_RDONLY) >= 0 || errno != EACCES)
			_exit(3);
		if (znp_lock_take(d, "m.lock", 0, &l) != -EACCES)
			_exit(4);
		if (znp_lock_take(d, "x.lock", 0, &l) != -EACCES)
			_exit(5);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "nobody got at the lock (step %d)", WEXITSTATUS(st));
	/* in a directory anyone may write: a lock file nobody planted is not used */
	pid = fork();
	if (!pid) {
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		close(openat(shared, "p.lock", O_CREAT | O_WRONLY, 0666));
		snprintf(tmp, sizeof(tmp), ".conf.%016llx", 0x1111ULL);
		_exit(symlinkat(outside, shared, tmp) ? 3 : 0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "nobody planted (step %d)", WEXITSTATUS(st));
	CHECK_INT(znp_lock_take(shared, "p.lock", 0, &fd), -EPERM);
	/* ... and root's replace does not follow nobody's link at the temporary's name */
	next_random = 0x1111;
	CHECK_INT(znp_file_replace(shared, "conf", "ok\n", 3, 0644), 0);
	CHECK_INT(read_at(shared, "conf", buf, sizeof(buf)), 3);
	CHECK(access(outside, F_OK) && errno == ENOENT, "the link target was not created");
	close(d);
	close(shared);
}

static void test_proc_start(void)
{
	uint64_t t = 0, self = 0, child = 0;
	int st;
	pid_t pid;

	CHECK_INT(znp_proc_stat_start("42 (a) b) c) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 "
				      "20 0 1 0 987654 1000 10 ...", &t), 0);
	CHECK_U64(t, 987654);
	CHECK_INT(znp_proc_stat_start("42 (a b) S 1 2 3", &t), -EBADMSG);
	CHECK_INT(znp_proc_stat_start("no parenthesis", &t), -EBADMSG);
	CHECK_INT(znp_proc_start("/proc", getpid(), &self), 0);
	CHECK(self > 0, "own start %llu", (unsigned long long)self);
	pid = fork();
	if (!pid) {
		pause();
		_exit(0);
	}
	CHECK_INT(znp_proc_start("/proc", pid, &child), 0);
	CHECK(child >= self, "a child starts later: %llu < %llu", (unsigned long long)child,
	      (unsigned long long)self);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	CHECK_INT(znp_proc_start("/proc", pid, &child), -ESRCH);
	CHECK_INT(znp_proc_start("/proc", 0, &child), -ESRCH);
}

int main(void)
{
	if (!mkdtemp(base))
		t_skip("mkdtemp");
	chmod(base, 0755);
	test_replace();
	test_lock();
	test_lock_replaced();
	test_other_user();
	test_proc_start();
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
		if (system(cmd))
			return 1;
	}
	return t_done("statefile");
}
