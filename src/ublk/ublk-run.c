// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: the running device. The queue threads fetch every tag, the
 * device is started (or its recovery ended), then run() waits for a stop
 * request or for a queue to end, and stops the device.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ublk-priv.h"

/* How long a parking server waits for the namespace to finish what it started. */
#define PARK_WAIT_MS	30000

static void wake(struct znp_ublk_server *s)
{
	uint64_t one = 1;
	ssize_t r;

	r = write(s->efd, &one, sizeof(one));
	(void)r;
}

static void abandon(struct znp_ublk_server *s)
{
	uint64_t one = 1;
	ssize_t r;

	atomic_store(&s->stop, 1);
	r = write(s->qefd, &one, sizeof(one));
	(void)r;
}

void znp_ublk_log_wake(struct znp_ublk_server *s)
{
	wake(s);
}

void znp_ublk_server_stop(struct znp_ublk_server *s)
{
	atomic_store(&s->stop, 1);
	wake(s);
}

static int wait_queues_ready(struct znp_ublk_server *s)
{
	struct timespec ts = { 0, 1000 * 1000 };
	unsigned int i;

	for (i = 0; i < s->nr_queues; i++) {
		int r;

		while (!(r = atomic_load(&s->queues[i].ready)))
			nanosleep(&ts, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

static void stop_queues(struct znp_ublk_server *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_queues; i++)
		if (s->queues[i].thread_ok) {
			pthread_join(s->queues[i].thread, NULL);
			s->queues[i].thread_ok = false;
		}
}

/* Set up the queues, start their threads, wait until every tag is fetched. */
static int start_queues(struct znp_ublk_server *s)
{
	sigset_t all, old;
	unsigned int i;
	int ret;

	for (i = 0; i < s->nr_queues; i++) {
		ret = znp_ublk_queue_init(s, &s->queues[i], i);
		if (ret) {
			znp_ublk_log(s, LOG_ERR, "ublk%d: queue %u: %s", s->dev_id, i,
				     strerror(-ret));
			return ret;
		}
	}
	/* signals go to the caller's thread, never to a queue thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < s->nr_queues; i++) {
		ret = -pthread_create(&s->queues[i].thread, NULL, znp_ublk_queue_thread,
				      &s->queues[i]);
		if (ret)
			break;
		s->queues[i].thread_ok = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return ret;
	ret = wait_queues_ready(s);
	if (ret)
		znp_ublk_log(s, LOG_ERR, "ublk%d: fetching requests failed: %s", s->dev_id,
			     strerror(-ret));
	return ret;
}

/* Both block until every tag is fetched; START_DEV reads the zones. */
static int start_dev(struct znp_ublk_server *s)
{
	int ret;

	if (s->recovering) {
		ret = znp_ublk_ctrl(s, UBLK_U_CMD_END_USER_RECOVERY, (uint64_t)getpid(), NULL, 0);
		if (ret) {
			znp_ublk_log(s, LOG_ERR, "ublk%d: END_USER_RECOVERY failed: %s", s->dev_id,
				     strerror(-ret));
			return ret;
		}
		s->recovering = false;
	} else {
		ret = znp_ublk_ctrl(s, UBLK_U_CMD_START_DEV, (uint64_t)getpid(), NULL, 0);
		if (ret) {
			znp_ublk_log(s, LOG_ERR, "ublk%d: START_DEV failed: %s", s->dev_id,
				     strerror(-ret));
			return ret;
		}
	}
	s->started = true;
	s->del_on_free = false;
	znp_ublk_log(s, LOG_NOTICE, "ublk%d: /dev/ublkb%d serving %s", s->dev_id, s->dev_id,
		     s->ns->path);
	return 0;
}

/* Until a stop request, or until a queue thread ends. */
static void wait_end(struct znp_ublk_server *s)
{
	unsigned int i;
	uint64_t v;

	while (!atomic_load(&s->stop)) {
		ssize_t r = read(s->efd, &v, sizeof(v));

		if (r < 0 && errno != EINTR)
			break;
		znp_ublk_log_drain(s);
		if (atomic_load(&s->stop))
			break;
		/* a queue thread ended: stopped or deleted from outside, or failed */
		for (i = 0; i < s->nr_queues; i++)
			if (atomic_load(&s->queues[i].ready) == 2)
				break;
		if (i < s->nr_queues)
			break;
	}
}

/*
 * The stop's one decision: may this device be deleted? Only when nothing
 * can be using it (znp_blk_prove_unused(): mounts, holders, loop devices,
 * NVMe target namespaces, swap, every process's open files; whatever
 * cannot be read counts as a user). Return: true with *@exfd holding it
 * O_EXCL (no mount slips in before STOP_DEV), or false with @why (park).
 */
static bool may_delete(struct znp_ublk_server *s, int *exfd, char *why, size_t size)
{
	char path[64];
	int ret;

	snprintf(path, sizeof(path), "/dev/ublkb%d", s->dev_id);
	ret = znp_blk_prove_unused(NULL, path, exfd, why, size);
	if (!ret || ret == -ENOENT)
		return true;	/* unused, or no block device left to protect */
	if (ret != -EBUSY)
		snprintf(why, size, "cannot tell whether %s is in use: %s", path, strerror(-ret));
	return false;
}

/*
 * Leave the device quiesced for the next server: the queues finish the
 * requests they started (NVMe commands and commits), start no new one and
 * end; closing their rings then makes the driver quiesce the device, and
 * the requests taken but never started are requeued for the next server
 * (UBLK_F_USER_RECOVERY_REISSUE). Nothing the file system above sent fails.
 */
static void park(struct znp_ublk_server *s, const char *why)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	uint64_t one = 1;
	unsigned int i, waited = 0;
	ssize_t r;

	znp_ublk_log(s, LOG_NOTICE, "ublk%d: /dev/ublkb%d may be in use (%s): leaving it "
		     "quiesced for the next server instead of removing it (unmap removes it)",
		     s->dev_id, s->dev_id, why);
	r = write(s->pefd, &one, sizeof(one));
	(void)r;
	for (i = 0; i < s->nr_queues; i++) {
		while (atomic_load(&s->queues[i].ready) == 1 && waited < PARK_WAIT_MS) {
			nanosleep(&ts, NULL);
			waited += 10;
		}
	}
	if (waited >= PARK_WAIT_MS) {
		znp_ublk_log(s, LOG_WARNING, "ublk%d: requests still on the namespace after %u ms: "
			     "leaving anyway (the next server reconciles them)", s->dev_id,
			     waited);
		abandon(s);
	}
	s->parked = true;
	s->del_on_free = false;
}

/* On a stop request: write back, STOP_DEV. Return: 0 or -errno (logged). */
static int stop_dev(struct znp_ublk_server *s, int exfd)
{
	int ret;

	/*
	 * Write back the block device's cache while the queues still
	 * serve: with user recovery, STOP_DEV fails later I/O. @exfd (held
	 * O_EXCL) keeps mounts out until the device is gone.
	 */
	if (exfd >= 0)
		fsync(exfd);
	/* STOP_DEV waits for in-flight I/O */
	ret = znp_ublk_ctrl(s, UBLK_U_CMD_STOP_DEV, 0, NULL, 0);
	if (exfd >= 0)
		close(exfd);
	if (ret && ret != -ENODEV)
		znp_ublk_log(s, LOG_ERR, "ublk%d: STOP_DEV failed: %s", s->dev_id,
			     strerror(-ret));
	else
		ret = 0;
	s->del_on_free = true;
	return ret;
}

/*
 * How requests move, once: the ring's setup, and whether the driver offers
 * zero copy (UBLK_F_SUPPORT_ZERO_COPY from 6.15, UBLK_F_AUTO_BUF_REG from
 * 6.16). This server moves data by user copy either way; zero copy would
 * take the place of the two copies in ublk-data.c (znp_ublk_data_in/out()).
 */
static void log_io_path(struct znp_ublk_server *s)
{
	const struct znp_ublk_queue *q = &s->queues[0];
	bool zc = s->features & ZNP_UBLK_F_SUPPORT_ZERO_COPY;
	bool abr = s->features & ZNP_UBLK_F_AUTO_BUF_REG;

	znp_ublk_log(s, LOG_INFO, "ublk%d: io_uring: %s, %s files, %s buffers", s->dev_id,
		     q->ring_flags & IORING_SETUP_COOP_TASKRUN ?
		     "cooperative task work" : "plain ring",
		     q->sqe_flags ? "registered" : "unregistered",
		     q->fixed_bufs ? "registered" : "unregistered");
	znp_ublk_log(s, LOG_INFO, "ublk%d: driver features 0x%" PRIx64 ": zero copy %s, "
		     "automatic buffer registration %s: data moves by user copy", s->dev_id,
		     s->features, zc ? "offered (not used)" : "absent",
		     abr ? "offered (not used)" : "absent");
}

int znp_ublk_server_run(struct znp_ublk_server *s, void (*ready)(void *arg, int dev_id),
			void *arg)
{
	char path[64];
	unsigned int i;
	int ret;

	snprintf(path, sizeof(path), "/dev/ublkc%d", s->dev_id);
	/* non-blocking: io_uring then runs the user copy inline, not in io-wq */
	s->cdev_fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (s->cdev_fd < 0) {
		ret = -errno;
		znp_ublk_log(s, LOG_ERR, "%s: %s", path, strerror(-ret));
		return ret;
	}
	s->queues = calloc(s->nr_queues, sizeof(*s->queues));
	if (!s->queues)
		return -ENOMEM;
	/*
	 * Memory pressure must not make the server wait on writeback to its
	 * own device: its memory stays resident (the queue threads are also
	 * I/O flushers, ublk-queue.c).
	 */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		znp_ublk_log(s, LOG_WARNING, "ublk%d: cannot lock the server's memory: %s",
			     s->dev_id, strerror(errno));
	s->main_thread = pthread_self();
	s->log_async = true;
	ret = start_queues(s);
	if (!ret) {
		log_io_path(s);
		ret = start_dev(s);
	}
	if (ret)
		goto fail;
	if (ready)
		ready(arg, s->dev_id);

	wait_end(s);
	ret = 0;
	if (!atomic_load(&s->stop)) {
		/*
		 * A queue ended by itself: after STOP_DEV or DEL_DEV from
		 * outside the I/O has drained and every queue ends; after a
		 * failure the others must not be left serving alone (the
		 * device then waits, quiesced, for a recovery).
		 */
		for (i = 0; i < s->nr_queues; i++)
			if (atomic_load(&s->queues[i].ready) == 2)
				znp_ublk_log(s, s->queues[i].err ? LOG_ERR : LOG_NOTICE,
					     "ublk%d: queue %u ended%s%s: stopping the others",
					     s->dev_id, i, s->queues[i].err ? ": " : " (device "
					     "stopped or deleted from outside)",
					     s->queues[i].err ? strerror(-s->queues[i].err) : "");
		abandon(s);
	} else {
		char why[512];
		int exfd;

		if (may_delete(s, &exfd, why, sizeof(why)))
			ret = stop_dev(s, exfd);
		else
			park(s, why);
	}
	stop_queues(s);
	for (i = 0; i < s->nr_queues; i++)
		if (s->queues[i].err && !ret)
			ret = s->queues[i].err;
	s->log_async = false;
	znp_ublk_log_drain(s);
	znp_ublk_log(s, LOG_NOTICE, "ublk%d: stopped", s->dev_id);
	return ret;

fail:
	/* abandon: the queue threads exit, closing their rings cancels the commands */
	abandon(s);
	stop_queues(s);
	s->log_async = false;
	znp_ublk_log_drain(s);
	return ret;
}
