// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: a queue's setup and teardown: its CPUs, the tag buffers,
 * the ring (znp_ublk_queue_init(), before the device is touched), the
 * registered files (znp_ublk_queue_files()), then the request descriptors
 * mapped from /dev/ublkcN (znp_ublk_queue_map(), once every tag is fetched). The ring
 * uses COOP_TASKRUN (no IPI for task work); both files are registered, the
 * tag buffers too (NVMe commands use them as fixed buffers), and with zero
 * copy as many empty slots for the requests' pages. The queue thread:
 * ublk-queue.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ublk-priv.h"

#define RING_BASE	(IORING_SETUP_SQE128 | IORING_SETUP_CQE32)
/*
 * Not SINGLE_ISSUER|DEFER_TASKRUN: with them a SIGKILLed server took more
 * than 30 s to die in layer 53 (cause not found).
 */
#define RING_FAST	IORING_SETUP_COOP_TASKRUN

/*
 * The ring, created disabled and enabled by its thread (ready for
 * SINGLE_ISSUER). A kernel that refuses COOP_TASKRUN gets a plain ring
 * (logged once).
 */
static int ring_init(struct znp_ublk_queue *q, unsigned int entries)
{
	struct znp_ublk_server *s = q->s;
	int ret;

	q->ring_flags = RING_BASE | RING_FAST | IORING_SETUP_R_DISABLED;
	ret = io_uring_queue_init(entries, &q->ring, q->ring_flags);
	if (ret == -EINVAL) {
		if (!atomic_exchange(&s->ring_logged, true))
			znp_ublk_log(s, LOG_NOTICE, "ublk%d: io_uring refuses COOP_TASKRUN: "
				     "using a plain ring", s->dev_id);
		q->ring_flags = RING_BASE;
		ret = io_uring_queue_init(entries, &q->ring, q->ring_flags);
	}
	if (ret)
		return ret;
	q->ring_ok = true;
	return 0;
}

/*
 * Registered tag buffers spare the pinning of their pages per NVMe command
 * (optional).
 */
static void register_buffers(struct znp_ublk_queue *q)
{
	struct znp_ublk_server *s = q->s;
	struct iovec *iov;
	unsigned int i, n;
	int ret;

	/* zero copy: one empty slot per tag after the tag buffers, for its request's pages */
	n = s->zero_copy ? 2 * s->depth : s->depth;
	iov = calloc(n, sizeof(*iov));
	if (!iov)
		return;
	for (i = 0; i < s->depth; i++) {
		iov[i].iov_base = q->tags[i].buf;
		iov[i].iov_len = (size_t)s->g.max_sectors * 512;
	}
	ret = io_uring_register_buffers(&q->ring, iov, n);
	free(iov);
	q->fixed_bufs = !ret;
	q->zc = !ret && s->zero_copy;
	if (ret && !q->qid)
		znp_ublk_log(s, LOG_NOTICE, "ublk%d: io_uring: buffers not registered: %s%s",
			     s->dev_id, strerror(-ret), s->zero_copy ? ": user copy, not zero copy" :
			     "");
}

/* Registered files spare an fget/fput per command (optional). */
static void register_files(struct znp_ublk_queue *q)
{
	struct znp_ublk_server *s = q->s;
	int fds[2] = { s->cdev_fd, s->ns->fd };
	int ret;

	q->cdev_fd = s->cdev_fd;
	q->ns_fd = s->ns->fd;
	q->sqe_flags = 0;
	ret = io_uring_register_files(&q->ring, fds, 2);
	if (!ret) {
		q->cdev_fd = 0;
		q->ns_fd = 1;
		q->sqe_flags = IOSQE_FIXED_FILE;
	} else if (!q->qid) {
		znp_ublk_log(s, LOG_NOTICE, "ublk%d: io_uring: files not registered: %s",
			     s->dev_id, strerror(-ret));
	}
}

int znp_ublk_queue_init(struct znp_ublk_server *s, struct znp_ublk_queue *q, unsigned int qid)
{
	const struct znp_ublk_geom *g = &s->g;
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i, entries;
	int ret;

	q->s = s;
	q->qid = qid;
	/* the CPUs whose requests blk-mq sends to this queue: its thread runs there */
	CPU_ZERO(&q->cpus);
	ret = znp_ublk_ctrl(s, UBLK_U_CMD_GET_QUEUE_AFFINITY, qid, &q->cpus, sizeof(q->cpus));
	q->cpus_ok = !ret && CPU_COUNT(&q->cpus);
	if (!q->cpus_ok)
		znp_ublk_log(s, LOG_WARNING, "ublk%d: queue %u: GET_QUEUE_AFFINITY: %s: thread "
			     "not pinned", s->dev_id, qid, ret ? strerror(-ret) : "no CPU");
	q->ifd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (q->ifd < 0)
		return -errno;
	q->scratch_n = (g->max_cmd_sectors * 512u - ZNP_ZREPORT_HDR_SIZE) / ZNP_ZDESC_SIZE;
	q->scratch = calloc(q->scratch_n, sizeof(*q->scratch));
	q->tags = calloc(s->depth, sizeof(*q->tags));
	if (!q->scratch || !q->tags)
		return -ENOMEM;
	for (i = 0; i < s->depth; i++) {
		q->tags[i].q = q;
		q->tags[i].tag = (uint16_t)i;
		if (posix_memalign(&q->tags[i].buf, (size_t)page, (size_t)g->max_sectors * 512))
			return -ENOMEM;
	}
	/*
	 * Per tag: its ublk command and up to max_sectors / max_cmd_sectors
	 * NVMe commands (3 with the defaults); plus the polls. A commit that
	 * still finds no SQE waits for the next turn of the loop.
	 */
	entries = s->depth * 4 + 8;
	if (entries > 4096)
		entries = 4096;
	ret = ring_init(q, entries);
	if (ret)
		return ret;
	register_buffers(q);
	return 0;
}

void znp_ublk_queue_files(struct znp_ublk_queue *q)
{
	if (!q->files_done) {
		register_files(q);
		q->files_done = true;
	}
}

int znp_ublk_queue_map(struct znp_ublk_queue *q)
{
	struct znp_ublk_server *s = q->s;
	long page = sysconf(_SC_PAGESIZE);
	size_t max_len = ((size_t)UBLK_MAX_QUEUE_DEPTH * sizeof(struct ublksrv_io_desc) +
			  (size_t)page - 1) & ~((size_t)page - 1);
	void *p;

	if (q->iods)
		return 0;
	q->iods_len = ((size_t)s->depth * sizeof(struct ublksrv_io_desc) + (size_t)page - 1) &
		      ~((size_t)page - 1);
	p = mmap(NULL, q->iods_len, PROT_READ, MAP_SHARED | MAP_POPULATE, s->cdev_fd,
		 (off_t)(UBLKSRV_CMD_BUF_OFFSET + q->qid * max_len));
	if (p == MAP_FAILED)
		return -errno;
	/* read by the queue thread once requests come (ublk-io.c) */
	__atomic_store_n(&q->iods, (const struct ublksrv_io_desc *)p, __ATOMIC_RELEASE);
	return 0;
}

void znp_ublk_queue_free(struct znp_ublk_queue *q)
{
	unsigned int i;

	if (q->ring_ok)
		io_uring_queue_exit(&q->ring);
	q->ring_ok = false;
	if (q->tags && !q->pinned) {
		/* (pinned: commands may still write into them; the process ends soon) */
		for (i = 0; i < q->s->depth; i++) {
			free(q->tags[i].buf);
			free(q->tags[i].rep_buf);
			free(q->tags[i].vbuf);
			free(q->tags[i].zbuf);
		}
		free(q->tags);
	}
	free(q->scratch);
	if (q->ifd > 0)
		close(q->ifd);
	if (q->iods)
		munmap((void *)q->iods, q->iods_len);
}
