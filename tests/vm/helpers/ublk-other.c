// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk-other: what the ublk layers need from "another program" (built
 * static into the guest by tests/layers.d/53-vm-ublk-life.sh).
 *
 *   ublk-other add ID           ADD_DEV of a ublk device at ID, never
 *                               started, with flags and ublksrv_flags no
 *                               nvme-zns-npo2 server uses (another
 *                               program's device at a reused id); prints ID
 *   ublk-other del ID           DEL_DEV (the test's own cleanup)
 *   ublk-other nocap CMD ARG..  run CMD without CAP_SYS_PTRACE (dropped from
 *                               the bounding set), as systemd's unit runs
 *                               the server: a hidepid= /proc then hides
 *                               other users' processes from it
 *   ublk-other hold DEV UID OFF LEN OUT
 *                               open DEV read-only (O_DIRECT), become UID,
 *                               and on each SIGUSR1 read LEN bytes at OFF
 *                               into OUT and write 0 (or the errno) to
 *                               OUT.rc; ends on SIGTERM
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/ublk_cmd.h>
#include <liburing.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#define CMD_ADD_DEV	_IOWR('u', 0x04, struct ublksrv_ctrl_cmd)
#define CMD_DEL_DEV	_IOWR('u', 0x05, struct ublksrv_ctrl_cmd)
#define OTHER_FLAGS	0x5a5a5a5aULL	/* ublksrv_flags: no fingerprint of ours */

static int ctrl(unsigned int op, unsigned int id, void *buf, unsigned int len)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct ublksrv_ctrl_cmd *c;
	int fd, ret;

	fd = open("/dev/ublk-control", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = io_uring_queue_init(2, &ring, IORING_SETUP_SQE128);
	if (ret) {
		close(fd);
		return ret;
	}
	sqe = io_uring_get_sqe(&ring);
	if (!sqe) {
		io_uring_queue_exit(&ring);
		close(fd);
		return -EBUSY;
	}
	memset(sqe, 0, 2 * sizeof(*sqe));	/* SQE128 */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = op;
	c = (struct ublksrv_ctrl_cmd *)sqe->cmd;
	c->dev_id = id;
	c->queue_id = (__u16)-1;
	c->addr = (__u64)(unsigned long)buf;
	c->len = (__u16)len;
	io_uring_submit(&ring);
	ret = io_uring_wait_cqe(&ring, &cqe);
	if (!ret)
		ret = cqe->res;
	io_uring_queue_exit(&ring);
	close(fd);
	return ret;
}

static int add(unsigned int id)
{
	struct ublksrv_ctrl_dev_info info;
	int ret;

	memset(&info, 0, sizeof(info));
	info.nr_hw_queues = 1;
	info.queue_depth = 4;
	info.max_io_buf_bytes = 65536;
	info.dev_id = id;
	info.ublksrv_pid = getpid();
	info.flags = 0;
	info.ublksrv_flags = OTHER_FLAGS;
	ret = ctrl(CMD_ADD_DEV, id, &info, sizeof(info));
	if (ret) {
		fprintf(stderr, "ublk-other: ADD_DEV %u: %s\n", id, strerror(-ret));
		return 1;
	}
	printf("%u\n", info.dev_id);
	return 0;
}

static int hold(char **argv)
{
	uid_t uid = (uid_t)strtoul(argv[1], NULL, 10);
	long long off = strtoll(argv[2], NULL, 10);
	size_t len = strtoul(argv[3], NULL, 10);
	char rcpath[4096];
	int fd, out, rc, sig;
	sigset_t set;
	void *buf;

	snprintf(rcpath, sizeof(rcpath), "%s.rc", argv[4]);
	fd = open(argv[0], O_RDONLY | O_DIRECT | O_CLOEXEC);
	out = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	rc = open(rcpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || out < 0 || rc < 0 || posix_memalign(&buf, 4096, len)) {
		perror("ublk-other hold");
		return 1;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
		perror("ublk-other hold: setuid");
		return 1;
	}
	for (;;) {
		ssize_t n;
		char text[32];
		int e = 0;

		if (sigwait(&set, &sig))
			return 1;
		n = pread(fd, buf, len, off);
		if (n < 0)
			e = errno;
		else if ((size_t)n != len)
			e = EIO;
		if (n > 0 && (ftruncate(out, 0) || pwrite(out, buf, (size_t)n, 0) != n))
			e = errno;
		snprintf(text, sizeof(text), "%d\n", e);
		if (ftruncate(rc, 0) || pwrite(rc, text, strlen(text), 0) < 0)
			return 1;
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "add"))
		return add((unsigned int)strtoul(argv[2], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "del")) {
		int ret = ctrl(CMD_DEL_DEV, (unsigned int)strtoul(argv[2], NULL, 10), NULL, 0);

		if (ret)
			fprintf(stderr, "ublk-other: DEL_DEV: %s\n", strerror(-ret));
		return !!ret;
	}
	if (argc >= 3 && !strcmp(argv[1], "nocap")) {
		if (prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0)) {
			perror("ublk-other: PR_CAPBSET_DROP");
			return 1;
		}
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	if (argc == 7 && !strcmp(argv[1], "hold"))
		return hold(argv + 2);
	fprintf(stderr, "usage: ublk-other add ID | del ID | nocap CMD [ARG...] | "
		"hold DEV UID OFF LEN OUT\n");
	return 2;
}
