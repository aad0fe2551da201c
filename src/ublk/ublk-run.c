// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ublk server: the running device. The queue threads fetch every tag, the
 * device is started (or its recovery ended), then run() waits for a stop
 * request or for a queue to end, and stops the device.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ublk-priv.h"

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

/* On a stop request: write back, STOP_DEV. Return: 0 or -errno (logged). */
static int stop_dev(struct znp_ublk_server *s)
{
	char path[64];
	int ret, bfd;

	/*
	 * Write back the block device's cache while the queues still
	 * serve: with user recovery, STOP_DEV fails later I/O.
	 */
	snprintf(path, sizeof(path), "/dev/ublkb%d", s->dev_id);
	bfd = open(path, O_RDONLY | O_CLOEXEC);
	if (bfd >= 0) {
		fsync(bfd);
		close(bfd);
	}
	/* STOP_DEV waits for in-flight I/O */
	ret = znp_ublk_ctrl(s, UBLK_U_CMD_STOP_DEV, 0, NULL, 0);
	if (ret && ret != -ENODEV)
		znp_ublk_log(s, LOG_ERR, "ublk%d: STOP_DEV failed: %s", s->dev_id,
			     strerror(-ret));
	else
		ret = 0;
	s->del_on_free = true;
	return ret;
}

int znp_ublk_server_run(struct znp_ublk_server *s, void (*ready)(void *arg, int dev_id),
			void *arg)
{
	char path[64];
	unsigned int i;
	int ret;

	snprintf(path, sizeof(path), "/dev/ublkc%d", s->dev_id);
	s->cdev_fd = open(path, O_RDWR | O_CLOEXEC);
	if (s->cdev_fd < 0) {
		ret = -errno;
		znp_ublk_log(s, LOG_ERR, "%s: %s", path, strerror(-ret));
		return ret;
	}
	s->queues = calloc(s->nr_queues, sizeof(*s->queues));
	if (!s->queues)
		return -ENOMEM;
	ret = start_queues(s);
	if (!ret)
		ret = start_dev(s);
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
		abandon(s);
	} else {
		ret = stop_dev(s);
	}
	stop_queues(s);
	for (i = 0; i < s->nr_queues; i++)
		if (s->queues[i].err && !ret)
			ret = s->queues[i].err;
	znp_ublk_log(s, LOG_NOTICE, "ublk%d: stopped", s->dev_id);
	return ret;

fail:
	/* abandon: the queue threads exit, closing their rings cancels the commands */
	abandon(s);
	stop_queues(s);
	return ret;
}
